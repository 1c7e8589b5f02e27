"""What tdist.language kernels need at run time: the device library linked into every kernel of
tdist.language.jit, and every module Triton loads attached to tdist's runtime (its
tdist_device_state filled, now and at every later init), through Triton's kernel_load_end_hook,
which runs on a first load and on a cache hit alike."""

import hashlib
import os

import triton
from triton.runtime.jit import JITFunction

from .. import _C
from . import LIBRARY, device_library

_hook_installed = False


def _attach(module, function, name, metadata_group, hash):
    """kernel_load_end_hook: modules without tdist's state global are left alone."""
    _C.cuda_module_attach(int(module))


def install_hook():
    global _hook_installed
    if not _hook_installed:
        triton.knobs.runtime.kernel_load_end_hook.add(_attach)
        _hook_installed = True


def _language_hash():
    """The sources of tdist.language: Triton's cache key covers a kernel's own source and the
    device library's file, not the builtins it calls, so a new tdist must not reuse old kernels."""
    digest = hashlib.sha256()
    folder = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as source:
                digest.update(name.encode() + source.read())
    return digest.hexdigest()


_LANGUAGE_HASH = _language_hash()


class TdistJITFunction(JITFunction):
    """A triton.jit kernel that links the device library (no extern_libs at the call site), and
    whose cache key covers tdist.language's sources."""

    @property
    def cache_key(self):
        return super().cache_key + "-tdist-" + _LANGUAGE_HASH

    def run(self, *args, grid, warmup, **kwargs):
        libraries = dict(kwargs.pop("extern_libs", None) or {})
        libraries.setdefault(LIBRARY, device_library())
        install_hook()
        return super().run(*args, grid=grid, warmup=warmup, extern_libs=libraries, **kwargs)
