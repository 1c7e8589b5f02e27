"""tdist.language.shmem on the cuda platform: the device library's shmem functions for Triton
kernels, at program scope (every thread of the program calls them; see tdist.language). RMA runs
in the block forms (every thread copies its share); signals, atomics and their results once for
the program, after a barrier of its threads, the result the same in every thread."""

from triton.language import core

from . import _address, _as, _fail, _pointer, _text, _word, extern

_SIG_OPS = {"set": 0, "add": 1}
_CMPS = {"eq": 0, "ne": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5}
_WORDS = (core.int32, core.int64, core.uint64)


def _signal(ptr, what):
    word = _pointer(ptr, what)
    if word not in _WORDS:
        _fail(f"shmem.{what}: signal type {word} is not allowed (int32, int64 or uint64)")
    return word


def _choice(value, table, what):
    value = _text(value)
    if isinstance(value, str) and value in table:
        return table[value]
    if isinstance(value, int) and value in table.values():
        return value
    _fail(f"shmem.{what}: expected one of {', '.join(table)} (or {sorted(table.values())}), got {value!r}")


def _rma(symbol, dest, source, nbytes, pe, _semantic):
    _pointer(dest, symbol)
    _pointer(source, symbol)
    args = [_address(dest, _semantic), _address(source, _semantic), _as(nbytes, core.uint64, _semantic),
            _as(pe, core.int32, _semantic)]
    return extern(f"tdist_program_{symbol}", args, [core.int64, core.int64, core.uint64, core.int32], core.int32,
                  False, _semantic)


@core.extern
def my_pe(_semantic=None):
    return extern("tdist_rank", [], [], core.int32, True, _semantic)


@core.extern
def n_pes(_semantic=None):
    return extern("tdist_num_ranks", [], [], core.int32, True, _semantic)


def _rma_call(symbol, name, doc):
    @core.extern
    def call(dest, source, nbytes, pe, _semantic=None):
        return _rma(symbol, dest, source, nbytes, pe, _semantic)
    call.__name__, call.__doc__ = name, doc
    return call


putmem_block = _rma_call("putmem", "putmem_block", "nbytes from this PE's source to PE pe's copy of dest; complete "
                         "(source reusable) on return.")
getmem_block = _rma_call("getmem", "getmem_block", "nbytes from PE pe's copy of source into this PE's dest; complete "
                         "on return.")
putmem_nbi_block = _rma_call("putmem_nbi", "putmem_nbi_block", "As putmem_block; complete at the next quiet.")
getmem_nbi_block = _rma_call("getmem_nbi", "getmem_nbi_block", "As getmem_block; complete at the next quiet.")


@core.extern
def putmem_signal_block(dest, source, nbytes, sig_addr, signal, sig_op, pe, _semantic=None):
    """putmem_block, then the signal on PE pe (set or add), delivered after the data."""
    _pointer(dest, "putmem_signal_block")
    _pointer(source, "putmem_signal_block")
    word = _signal(sig_addr, "putmem_signal_block")
    op = _choice(sig_op, _SIG_OPS, "putmem_signal_block: sig_op")
    args = [_address(dest, _semantic), _address(source, _semantic), _as(nbytes, core.uint64, _semantic),
            _address(sig_addr, _semantic), _as(signal, word, _semantic), _semantic.to_tensor(op),
            _as(pe, core.int32, _semantic)]
    types = [core.int64, core.int64, core.uint64, core.int64, word, core.int32, core.int32]
    return extern(f"tdist_program_putmem_signal_{_word(word)}", args, types, core.int32, False, _semantic)


@core.extern
def signal_op(sig_addr, signal, sig_op, pe, _semantic=None):
    """Sets (or adds signal to) PE pe's copy of the signal, once for the program."""
    word = _signal(sig_addr, "signal_op")
    op = _choice(sig_op, _SIG_OPS, "signal_op: sig_op")
    args = [_address(sig_addr, _semantic), _as(signal, word, _semantic), _semantic.to_tensor(op),
            _as(pe, core.int32, _semantic)]
    return extern(f"tdist_program_signal_op_{_word(word)}", args, [core.int64, word, core.int32, core.int32],
                  core.int32, False, _semantic)


@core.extern
def signal_wait_until(sig_addr, cmp, cmp_value, _semantic=None):
    """Waits until the local signal compares true with cmp_value; returns the value that did."""
    word = _signal(sig_addr, "signal_wait_until")
    comparison = _choice(cmp, _CMPS, "signal_wait_until: cmp")
    args = [_address(sig_addr, _semantic), _semantic.to_tensor(comparison), _as(cmp_value, word, _semantic)]
    return extern(f"tdist_program_signal_wait_until_{_word(word)}", args, [core.int64, core.int32, word], word,
                  False, _semantic)


def _atomic(name, dest, operands, pe, returns, _semantic):
    word = _signal(dest, name)
    args = [_address(dest, _semantic)] + [_as(v, word, _semantic) for v in operands] + [_as(pe, core.int32, _semantic)]
    types = [core.int64] + [word] * len(operands) + [core.int32]
    return extern(f"tdist_program_{name}_{_word(word)}", args, types, word if returns else core.int32, False,
                  _semantic)


@core.extern
def atomic_fetch_add(dest, value, pe, _semantic=None):
    return _atomic("atomic_fetch_add", dest, [value], pe, True, _semantic)


@core.extern
def atomic_compare_swap(dest, cond, value, pe, _semantic=None):
    return _atomic("atomic_compare_swap", dest, [cond, value], pe, True, _semantic)


@core.extern
def atomic_swap(dest, value, pe, _semantic=None):
    return _atomic("atomic_swap", dest, [value], pe, True, _semantic)


@core.extern
def atomic_fetch(source, pe, _semantic=None):
    return _atomic("atomic_fetch", source, [], pe, True, _semantic)


@core.extern
def atomic_set(dest, value, pe, _semantic=None):
    return _atomic("atomic_set", dest, [value], pe, False, _semantic)


@core.extern
def atomic_add(dest, value, pe, _semantic=None):
    return _atomic("atomic_add", dest, [value], pe, False, _semantic)


def _ordering(name):
    @core.extern
    def call(_semantic=None):
        return extern(f"tdist_program_{name}", [], [], core.int32, False, _semantic)
    call.__name__ = name
    return call


quiet = _ordering("quiet")
fence = _ordering("fence")
barrier_all = _ordering("barrier_all")
sync_all = _ordering("sync_all")

# The names without _block: the same calls (at program scope every form is the block's).
putmem, getmem, putmem_nbi, getmem_nbi = putmem_block, getmem_block, putmem_nbi_block, getmem_nbi_block
putmem_signal = putmem_signal_block
