"""tdist: a symmetric heap shared by the PEs of a job, and tile-centric overlap of computation
and communication on it.

The C++ runtime does the work; this package binds it (the native module ``tdist._C``) and adds
only the conversions Python needs. A job is started by tdist-run, which gives every PE the
environment ``init()`` reads::

    tdist-run -n 4 -- python3 my_program.py

Errors are ``tdist.Error`` (a RuntimeError) with the runtime's message and its ``ErrorCode`` as
``.code``. Heap tensors leave as DLPack: ``numpy.from_dlpack(t)``, ``torch.from_dlpack(t)`` and
``cupy.from_dlpack(t)`` view them without a copy. docs/PYTHON.md describes the package.
"""

import operator

import importlib.util as _importlib_util

# torch before the native module, where torch is installed: on the cuda backend, torch's import
# crashes (SIGSEGV) when tdist's kernel library, with the toolkit's CUDA runtime and cuBLASLt, is
# loaded before torch's own copies; in the other order both work. kernels.py imports torch anyway.
if _importlib_util.find_spec("torch") is not None:
    import torch as _torch  # noqa: F401

from . import _C


def _read_torch_in_cpp():
    """Hands tdist._torch_C's access to tdist._C where torch is imported and the module was built
    against that torch (bindings/torch_access.h); otherwise torch tensors are read through their
    attributes, ~1 us a tensor more a call. Returns the module, or None."""
    if _importlib_util.find_spec("torch") is None or _importlib_util.find_spec(__name__ + "._torch_C") is None:
        return None
    import warnings
    try:
        from . import _torch_C
    except ImportError as error:
        warnings.warn(f"tdist: tdist._torch_C does not load ({error}); torch tensors are read through their "
                      "attributes (slower calls)", RuntimeWarning, stacklevel=3)
        return None
    if _torch_C.torch_version != _torch.__version__:
        warnings.warn(f"tdist: tdist._torch_C was built against torch {_torch_C.torch_version}, this is torch "
                      f"{_torch.__version__}; torch tensors are read through their attributes (slower calls): "
                      "rebuild tdist against this torch", RuntimeWarning, stacklevel=3)
        return None
    _C._set_torch_access(_torch_C.access)
    return _torch_C


_torch_C = _read_torch_in_cpp()

from ._C import (
    DType,
    Error,
    ErrorCode,
    InitAttr,
    TEAM_INVALID,
    TEAM_WORLD,
    Tensor,
    attr_from_environment,
    backend,
    barrier_all,
    fence,
    heap_size,
    is_initialized,
    my_pe,
    n_pes,
    quiet,
    sync_all,
    team_barrier,
    team_destroy,
    team_my_pe,
    team_n_pes,
    team_split_strided,
    team_translate_pe,
)
from ._dtypes import dtype_of, invalid

__all__ = [
    "DType", "Error", "ErrorCode", "InitAttr", "TEAM_INVALID", "TEAM_WORLD", "Tensor",
    "attr_from_environment", "backend", "barrier_all", "dtype_of", "empty", "fcollect", "fence", "finalize",
    "free_tensor", "get", "get_nbi", "heap_size", "init", "is_initialized", "my_pe", "n_pes", "peer",
    "put", "put_nbi", "put_signal", "put_signal_nbi", "quiet", "reduce", "signal_op", "signal_wait_until", "sync_all",
    "team_barrier", "team_destroy", "team_my_pe", "team_n_pes", "team_split_strided",
    "team_translate_pe", "zeros",
]


def finalize():
    """Leaves the job (collective): closes the kernel library's default context first."""
    import sys
    kernels = sys.modules.get(__name__ + ".kernels")
    if kernels is not None:
        kernels._close_default()
    _C.finalize()


def init(attr=None):
    """Joins the job: with ``attr`` (an InitAttr), or else from tdist-run's environment."""
    _C.init(attr if attr is not None else _C.attr_from_environment())


def _shape(shape):
    try:
        if not isinstance(shape, (str, bytes)) and not hasattr(shape, "__len__"):
            return [operator.index(shape)]
        if isinstance(shape, (str, bytes)):
            raise TypeError
        return [operator.index(extent) for extent in shape]
    except TypeError:
        raise invalid(f"tdist: a shape is an int or a sequence of ints, not {shape!r}") from None


def empty(shape, dtype="float32"):
    """A tensor on the symmetric heap, its values undefined. Collective: every PE calls it with
    the same shape and dtype, in the same order as the other collective calls."""
    return _C.create_tensor(_shape(shape), dtype_of(dtype), False)


def zeros(shape, dtype="float32"):
    """As empty(), with every element zero on every PE before any PE returns."""
    return _C.create_tensor(_shape(shape), dtype_of(dtype), True)


def free_tensor(tensor):
    """Frees a tensor from empty() or zeros(). Collective; a garbage-collected tensor frees
    nothing, so that no PE frees alone."""
    if not isinstance(tensor, Tensor):
        raise invalid(f"tdist.free_tensor: {type(tensor).__name__} is not a tensor on the symmetric heap "
                    "(tdist.empty, tdist.zeros)")
    _C.free_tensor(tensor)


def peer(tensor, pe):
    """PE ``pe``'s copy of ``tensor``, as a tensor this PE loads and stores (the host-side
    symm_at). A view: free the tensor, not the view."""
    if not isinstance(tensor, Tensor):
        raise invalid(f"tdist.peer: {type(tensor).__name__} is not a tensor on the symmetric heap")
    return _C.peer(tensor, pe)


# ---- RMA and signals on tensors (tdist::shmem's host calls) ---------------------------------
# The symmetric side is a tensor on the heap, named by this PE's copy; the other side any tensor
# of this PE (numpy, torch, a heap tensor). The bytes are the source's, which must fit the
# destination. A signal is element ``index`` of an int32, int64 or uint64 tensor on the heap.


def put(dest, source, pe):
    """Copies source (this PE's) into PE pe's copy of dest; done when it returns."""
    _C.put(dest, source, pe)


def get(dest, source, pe):
    """Copies PE pe's copy of source into dest (this PE's); done when it returns."""
    _C.get(dest, source, pe)


def put_nbi(dest, source, pe):
    """As put, done by the next quiet(); source must not change before."""
    _C.put_nbi(dest, source, pe)


def get_nbi(dest, source, pe):
    """As get, done by the next quiet()."""
    _C.get_nbi(dest, source, pe)


def put_signal(dest, source, signal, value, sig_op, pe, *, index=0):
    """put, then sig_op ("set" or "add") value on PE pe's copy of the signal: the data arrives
    before the signal changes."""
    _C.put_signal(dest, source, signal, value, sig_op, pe, index)


def put_signal_nbi(dest, source, signal, value, sig_op, pe, *, index=0):
    """As put_signal, the put done by the next quiet()."""
    _C.put_signal_nbi(dest, source, signal, value, sig_op, pe, index)


def signal_op(signal, value, sig_op, pe, *, index=0):
    """sig_op ("set" or "add") value on PE pe's copy of the signal word."""
    _C.signal_op(signal, value, sig_op, pe, index)


def signal_wait_until(signal, cmp, value, *, index=0):
    """Waits until this PE's signal word satisfies cmp ("eq", "ne", "gt", "ge", "lt", "le")
    value, within the wait deadline; returns the word's value."""
    return _C.signal_wait_until(signal, cmp, value, index)


# ---- Team collectives (tdist::shmem's host calls; every member of the team calls them alike) ----


def reduce(dest, source, op="sum", *, team=TEAM_WORLD):
    """dest (on the heap) = source (on the heap) of every member of team combined element by
    element in team order with op ("sum", "prod", "min", "max"; "and", "or", "xor" on integers);
    int32, int64, uint32, uint64, float32 or float64; dest may be source."""
    _C.reduce(dest, source, op, team)


def fcollect(dest, source, *, team=TEAM_WORLD):
    """dest (on the heap, apart from source) = source (on the heap) of every member of team,
    concatenated in team order."""
    _C.fcollect(dest, source, team)
