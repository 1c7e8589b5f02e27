"""tdist.language: the seeds' `dl` primitives for stock Triton kernels (docs/TRITON.md).

    import tdist.language as tdl

    @tdl.jit                      # triton.jit, with tdist's device library linked and attached
    def kernel(data, signals, ...):
        peer = (tdl.rank() + 1) % tdl.num_ranks()
        tl.store(tdl.symm_at(data, peer) + offsets, tile)
        tdl.notify(signals, peer, signal=1, sig_op="set")
        token = tdl.wait(signals, 1, "sys", "acquire")
        tile = tl.load(tdl.consume_token(data, token) + offsets)

Every function is called by every thread of the program, as Triton runs scalar code, and acts
once for the program where that is its meaning: notify stores after a barrier of the program's
threads, so that what they stored before it is visible to the PE that sees the signal; wait
returns when every one of its signals holds the value, in every thread. The calls go to the
device library (include/tdist/device, compiled to lib/libtdist_device.ll), the same code CUDA C++
kernels include: waits keep its deadline, its diagnostic and its hang record.

The checks are the distributed dialect's (its verifier): symm_at and notify take a pointer (not a
tensor of pointers); notify's signal is int64 or uint64, sig_op "set" or "add", comm_scope "gpu",
"intra_node" or "inter_node"; wait's signal is int32, int64 or uint64, its count positive and at
most 65536, scope "gpu", "cta" or "sys", semantic "acquire" or "relaxed".
"""

import os

import triton
import triton.language as tl
from triton.language import core

__all__ = ["rank", "num_ranks", "symm_at", "notify", "wait", "consume_token", "jit", "device_library"]

LIBRARY = "libtdist_device"
MAX_WAIT_SLOTS = 65536


def device_library():
    """The device library as LLVM IR that Triton links: $TDIST_DEVICE_IR, else the package's
    lib/libtdist_device.ll (the build tree's and an installed package's)."""
    path = os.environ.get("TDIST_DEVICE_IR") or os.path.join(os.path.dirname(os.path.dirname(__file__)), "lib",
                                                             "libtdist_device.ll")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"tdist.language: the device library {path} does not exist (built with clang-22 by "
                                "tdist's CMake; set TDIST_DEVICE_IR to a copy of lib/libtdist_device.ll)")
    return path


def _text(value):
    return core._unwrap_if_constexpr(value)


def _fail(message):
    raise ValueError(f"tdist.language.{message}")


def extern(symbol, args, types, result, pure, _semantic):
    """A call of the device library's `symbol`; types: the args' dtypes after conversion."""
    return core.extern_elementwise(LIBRARY, device_library(), list(args), {tuple(types): (symbol, result)},
                                   is_pure=pure, _semantic=_semantic)


def _pointer(ptr, what):
    """The element type of a scalar pointer argument (a tensor of pointers is an error)."""
    if not isinstance(ptr, core.tensor) or not ptr.type.is_ptr():
        kind = "a tensor of pointers" if isinstance(ptr, core.tensor) and ptr.dtype.is_ptr() else repr(ptr)
        _fail(f"{what}: expected a pointer, got {kind}")
    return ptr.dtype.element_ty


def _address(ptr, _semantic):
    return ptr.to(core.int64, bitcast=True, _semantic=_semantic)


def _as(value, dtype, _semantic):
    tensor = _semantic.to_tensor(value)
    return tensor.to(dtype, _semantic=_semantic) if tensor.dtype != dtype else tensor


def _word(dtype):
    return {core.int32: "i32", core.int64: "i64", core.uint64: "u64"}.get(dtype)


# Pointer arithmetic that keeps what Triton knows of the pointer: an offset Triton cannot see
# through (an extern's or asm's result) times a constant keeps the pointer's alignment up to the
# constant's bytes, and a tensor of pointers keeps its contiguity, so loads through the result
# stay vectorised.
_ALIGNMENT = 128


def _shifted(value, units, _semantic):
    """value + units * (_ALIGNMENT // size) elements; units counts _ALIGNMENT-byte steps."""
    size = value.dtype.element_ty.primitive_bitwidth // 8 if value.dtype.is_ptr() else 1
    step = _ALIGNMENT // size if value.dtype.is_ptr() else _ALIGNMENT
    return _semantic.add(value, _semantic.mul(units, _semantic.to_tensor(step), True), True)


@core.extern
def rank(axis=0, _semantic=None):
    """This PE's number (int32)."""
    if _text(axis) != 0:
        _fail(f"rank: axis {_text(axis)} does not exist: the device mesh has only axis 0")
    return extern("tdist_rank", [], [], core.int32, True, _semantic)


@core.extern
def num_ranks(axis=0, _semantic=None):
    """The number of PEs (int32)."""
    if _text(axis) != 0:
        _fail(f"num_ranks: axis {_text(axis)} does not exist: the device mesh has only axis 0")
    return extern("tdist_num_ranks", [], [], core.int32, True, _semantic)


@core.extern
def symm_at(ptr, rank, _semantic=None):
    """PE `rank`'s copy of the symmetric object at ptr (a pointer of this PE's heap, or any PE's)."""
    _pointer(ptr, "symm_at")
    address = _address(ptr, _semantic)
    peer = extern("tdist_symm_at", [address, _as(rank, core.int32, _semantic)], [core.int64, core.int32],
                  core.int64, True, _semantic)
    # The heap's segments are at least _ALIGNMENT apart: the distance is a whole number of steps.
    steps = _semantic.ashr(_semantic.sub(peer, address, True), _semantic.to_tensor(_ALIGNMENT.bit_length() - 1))
    return _shifted(ptr, steps, _semantic)


_SIG_OPS = {"set": 0, "add": 1}
_COMM_SCOPES = ("gpu", "intra_node", "inter_node")


@core.extern
def notify(ptr, rank, signal=1, sig_op="set", comm_scope="inter_node", _semantic=None):
    """Sets (or adds `signal` to) PE `rank`'s copy of the signal at ptr, with release order, once
    for the program and after what every thread of it did before."""
    word = _pointer(ptr, "notify")
    op, scope = _text(sig_op), _text(comm_scope)
    if word not in (core.int64, core.uint64):
        _fail(f"notify: signal type {word} is not allowed on this target (int64 or uint64)")
    if op not in _SIG_OPS:
        _fail(f"notify: sig_op must be 'set' or 'add', got {op!r}")
    if scope not in _COMM_SCOPES:
        _fail(f"notify: comm_scope must be one of {', '.join(_COMM_SCOPES)}, got {scope!r}")
    args = [_address(ptr, _semantic), _as(rank, core.int32, _semantic), _as(signal, word, _semantic),
            _semantic.to_tensor(_SIG_OPS[op])]
    return extern(f"tdist_program_notify_{_word(word)}", args, [core.int64, core.int32, word, core.int32],
                  core.int32, False, _semantic)


_SCOPES = ("gpu", "cta", "sys")
_SEMANTICS = ("acquire", "relaxed")


@core.extern
def wait(ptr, num_barriers, scope="gpu", semantic="acquire", wait_value=1, _semantic=None):
    """Waits until each of the num_barriers signals from ptr (64 bytes apart) equals wait_value;
    returns a token for consume_token. Never changes the signals."""
    word = _pointer(ptr, "wait")
    count, scope, semantic = _text(num_barriers), _text(scope), _text(semantic)
    if _word(word) is None:
        _fail(f"wait: signal type {word} is not allowed (int32, int64 or uint64)")
    if isinstance(count, int) and not 0 < count <= MAX_WAIT_SLOTS:
        _fail(f"wait: the number of barriers must be positive and at most {MAX_WAIT_SLOTS}, got {count}")
    if scope not in _SCOPES:
        _fail(f"wait: scope must be one of {', '.join(_SCOPES)}, got {scope!r}")
    if semantic not in _SEMANTICS:
        _fail(f"wait: semantic must be 'acquire' or 'relaxed', got {semantic!r}")
    args = [_address(ptr, _semantic), _as(num_barriers, core.int32, _semantic), _as(wait_value, word, _semantic)]
    return extern(f"tdist_program_wait_{_word(word)}", args, [core.int64, core.int32, word], core.uint64, False,
                  _semantic)


@core.extern
def consume_token(value, token, _semantic=None):
    """value (a pointer, a tensor of pointers or of integers), such that loads and stores through
    it cannot happen before the wait that made `token`. Costs an add: Triton keeps knowing the
    value's alignment and contiguity, and loads through it stay vectorised."""
    if not isinstance(value, core.tensor) or not (value.dtype.is_ptr() or value.dtype.is_int()):
        _fail(f"consume_token: expected a pointer, or a tensor of pointers or integers, got {value!r}")
    # Zero, but only once the token exists: asm that Triton and LLVM cannot see through or move.
    zero = core.inline_asm_elementwise("mov.u64 $0, 0;", "=l,l", [token], dtype=core.int64, is_pure=False, pack=1,
                                       _semantic=_semantic)
    if value.dtype.is_int() and value.dtype != core.int64:
        zero = zero.to(value.dtype, _semantic=_semantic)
    return _shifted(value, zero, _semantic)


def jit(fn=None, **options):
    """triton.jit for kernels that call tdist.language: the device library is linked (no
    extern_libs at the call site) and every module Triton loads is attached to the runtime."""
    from ._runtime import TdistJITFunction
    if fn is None:
        return lambda f: jit(f, **options)
    return TdistJITFunction(fn, **options)
