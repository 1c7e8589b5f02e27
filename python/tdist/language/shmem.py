"""tdist.language.shmem: the device library's shmem functions for Triton kernels, as seed 001 §7
dispatches libshmem_device: a ModuleProxy that picks the platform's module and forwards every
name to it. The platform is $TDIST_LANGUAGE_PLATFORM when set (to compile for a GPU elsewhere),
else the one whose management tool is on PATH (nvidia-smi: cuda; npu-smi: ascend). cuda has a
module (tdist/language/_cuda_shmem.py); ascend is IR only here (the distributed dialect's
lowering), so selecting it says so."""

import importlib
import os
import shutil


def is_cuda():
    return shutil.which("nvidia-smi") is not None


def is_ascend():
    return shutil.which("npu-smi") is not None


class ModuleProxy:
    """Forwards attribute access to the one module whose predicate holds (checked on first use)."""

    def __init__(self, choices):
        self._choices = choices
        self._module = None

    def _select(self):
        forced = os.environ.get("TDIST_LANGUAGE_PLATFORM")
        chosen = [(name, module) for name, predicate, module in self._choices
                  if (forced == name if forced else predicate())]
        if len(chosen) != 1:
            names = ", ".join(name for name, _ in chosen) or "none"
            raise RuntimeError(f"tdist.language.shmem: exactly one platform must be present, found {names} "
                               "(set TDIST_LANGUAGE_PLATFORM=cuda to compile for a GPU on a machine without one)")
        name, module = chosen[0]
        if module is None:
            raise RuntimeError(f"tdist.language.shmem: the {name} platform has no Triton device module in tdist "
                               "(its path is the distributed dialect's lowering)")
        return importlib.import_module(module, __package__)

    def __getattr__(self, name):
        if self._module is None:
            self._module = self._select()
        return getattr(self._module, name)


libshmem_device = ModuleProxy([("cuda", is_cuda, "._cuda_shmem"), ("ascend", is_ascend, None)])


def __getattr__(name):
    return getattr(libshmem_device, name)
