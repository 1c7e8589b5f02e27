"""The host API from Python (tdist), run by every PE of a job under tdist-run: every test makes
the same collective calls in the same order on every PE."""

import os

import numpy as np
import pytest

import tdist
from conftest import read, write


@pytest.fixture(scope="module", autouse=True)
def job():
    tdist.init()
    yield
    tdist.finalize()


def expect_error(code, words, call, *args):
    with pytest.raises(tdist.Error) as raised:
        call(*args)
    assert raised.value.code == code, raised.value
    assert words in str(raised.value), str(raised.value)


def test_identity_comes_from_tdist_run():
    assert tdist.is_initialized()
    assert tdist.my_pe() == int(os.environ["TDIST_PE"])
    assert tdist.n_pes() == int(os.environ["TDIST_N_PES"])
    assert tdist.backend() == os.environ.get("TDIST_BACKEND", "cpu")
    assert tdist.heap_size() >= 16 << 20


def mapped(pe):
    """Whether this PE loads and stores PE pe's heap (its node's PEs, unless TDIST_TRANSPORT=ucx
    sends every peer through the network); tdist-run --nodes K makes blocks of n / K PEs."""
    me, n = tdist.my_pe(), tdist.n_pes()
    per_node = n // int(os.environ.get("TDIST_N_NODES", "1"))
    network = os.environ.get("TDIST_TRANSPORT") == "ucx"
    return pe == me or (not network and pe // per_node == me // per_node)


def test_every_pe_sees_every_copy():
    me, n = tdist.my_pe(), tdist.n_pes()
    t = tdist.zeros((4, 8), "float32")
    assert t.shape == [4, 8] and t.dtype == tdist.DType.float32 and t.nbytes == 128 and t.pe == me
    assert (read(t) == 0).all()
    write(t, np.arange(32, dtype=np.float32).reshape(4, 8) + 100 * me)
    tdist.barrier_all()
    for pe in range(n):
        expected = np.arange(32, dtype=np.float32).reshape(4, 8) + 100 * pe
        if not mapped(pe):
            # Another node's copy: no view to load through, a clear error, and a get instead.
            expect_error(tdist.ErrorCode.NotSupported, "cannot be reached by loads and stores", tdist.peer, t, pe)
            got = np.zeros((4, 8), np.float32)
            tdist.get(got, t, pe)
            np.testing.assert_array_equal(got, expected)
            continue
        copy = tdist.peer(t, pe)
        assert copy.pe == pe and copy.shape == [4, 8]
        np.testing.assert_array_equal(read(copy), expected)
    # A store into the next PE's copy (once every PE has read), seen there after the barrier.
    tdist.barrier_all()
    mine = np.full((4, 8), -me, dtype=np.float32)
    if mapped((me + 1) % n):
        write(tdist.peer(t, (me + 1) % n), mine)
    else:
        tdist.put(t, mine, (me + 1) % n)
    tdist.barrier_all()
    assert (read(t) == -((me - 1) % n)).all()
    tdist.barrier_all()
    tdist.free_tensor(t)


def test_on_heap_tells_heap_addresses_from_others():
    t = tdist.empty(256, "uint8")
    assert tdist._C.on_heap(t.data_ptr, 256) and tdist._C.on_heap(t.data_ptr + 255, 1)
    assert not tdist._C.on_heap(np.zeros(256, np.uint8).ctypes.data, 256)
    assert not tdist._C.on_heap(t.data_ptr, tdist.heap_size() + 1)      # runs past the heap's end
    assert not tdist._C.on_heap(t.data_ptr, (1 << 64) - 1)              # no overflow of the end
    tdist.free_tensor(t)


@pytest.mark.parametrize("dtype,size", [
    ("int8", 1), (np.int16, 2), (np.dtype("int32"), 4), ("int64", 8), ("uint8", 1), ("uint16", 2),
    ("uint32", 4), ("uint64", 8), ("float16", 2), ("bf16", 2), (np.float32, 4), ("double", 8)])
def test_dtypes_from_names_and_numpy(dtype, size):
    t = tdist.empty([3, 5], dtype)
    assert t.nbytes == 15 * size
    assert t.__dlpack_device__()[0] == (1 if tdist.backend() == "cpu" else 2)
    if t.dtype != tdist.DType.bfloat16 and tdist.backend() == "cpu":
        view = np.from_dlpack(t)
        assert view.shape == (3, 5) and view.dtype == np.dtype(t.dtype.name)
        assert view.ctypes.data == t.data_ptr
    tdist.free_tensor(t)


def test_bad_input_is_a_clear_error_and_loses_nothing():
    invalid = tdist.ErrorCode.InvalidParam
    t = tdist.zeros(16, "int32")
    expect_error(invalid, "no element type 'complex64'", tdist.empty, 4, "complex64")
    expect_error(invalid, "negative extent -2", tdist.empty, (3, -2))
    expect_error(invalid, "overflows 64 bits", tdist.empty, (1 << 40, 1 << 40))
    expect_error(invalid, "a shape is an int or a sequence of ints", tdist.empty, "abc")
    expect_error(invalid, "is out of range 0..", tdist.peer, t, tdist.n_pes())
    expect_error(invalid, "ndarray is not a tensor on the symmetric heap", tdist.free_tensor, np.zeros(4))
    expect_error(tdist.ErrorCode.HeapExhausted, "cannot allocate", tdist.empty, tdist.heap_size() + 64, "uint8")
    view = tdist.peer(t, tdist.my_pe())
    tdist.free_tensor(t)
    expect_error(invalid, "was freed", tdist.free_tensor, t)
    expect_error(invalid, "was freed", t.__dlpack__)
    expect_error(invalid, "was freed", getattr, view, "shape")
    assert t.freed and view.freed and "freed" in repr(t)
    # The heap is whole: the same allocation again.
    again = tdist.zeros(16, "int32")
    assert (read(again) == 0).all()
    tdist.free_tensor(again)


def test_teams_split_and_synchronize():
    me, n = tdist.my_pe(), tdist.n_pes()
    evens = tdist.team_split_strided(tdist.TEAM_WORLD, 0, 2, (n + 1) // 2)
    if me % 2 == 0:
        assert evens != tdist.TEAM_INVALID
        assert tdist.team_my_pe(evens) == me // 2
        assert tdist.team_n_pes(evens) == (n + 1) // 2
        assert tdist.team_translate_pe(evens, tdist.team_my_pe(evens), tdist.TEAM_WORLD) == me
        tdist.team_barrier(evens)
        tdist.team_destroy(evens)
    else:
        assert evens == tdist.TEAM_INVALID
    tdist.barrier_all()


def test_team_collectives_on_tensors():
    me, n = tdist.my_pe(), tdist.n_pes()
    # Values whose float32 sum depends on the order: the result is the team-order sum, bit for bit.
    def contribution(pe):
        return (np.float32((-1) ** pe * 3.0 ** (pe % 5)) + np.arange(40000, dtype=np.float32) * np.float32(1e-3))
    source = tdist.zeros(40000, "float32")
    dest = tdist.zeros(40000, "float32")
    write(source, contribution(me))
    tdist.barrier_all()
    tdist.reduce(dest, source)
    expected = contribution(0)
    for pe in range(1, n):
        expected = expected + contribution(pe)
    assert np.array_equal(read(dest), expected)
    tdist.reduce(source, source, "max")  # in place
    assert np.array_equal(read(source), np.max([contribution(pe) for pe in range(n)], axis=0))
    words = tdist.zeros(3, "int64")
    write(words, np.array([me, 1 << me, -me], np.int64))
    tdist.barrier_all()
    tdist.reduce(words, words, "xor")
    assert list(read(words)) == [np.bitwise_xor.reduce(np.array(v, np.int64)) for v in
                                 ([pe for pe in range(n)], [1 << pe for pe in range(n)], [-pe for pe in range(n)])]
    gathered = tdist.zeros(3 * n, "int64")
    mine = tdist.zeros(3, "int64")
    write(mine, np.array([me, me * 10, me * 100], np.int64))
    tdist.barrier_all()
    tdist.fcollect(gathered, mine)
    assert list(read(gathered)) == [v for pe in range(n) for v in (pe, pe * 10, pe * 100)]
    invalid = tdist.ErrorCode.InvalidParam
    expect_error(invalid, "op 'mean' is none of and, or, xor, max, min, sum, prod", tdist.reduce, dest, source, "mean")
    expect_error(invalid, "the xor reduction is not defined on its type", tdist.reduce, dest, source, "xor")
    expect_error(invalid, "a reduction keeps its type", tdist.reduce, words, source)
    expect_error(invalid, "do not hold the team's", tdist.fcollect, mine, source)
    tdist.reduce(dest, source)  # the next call goes through
    tdist.barrier_all()
    for t in (source, dest, words, gathered, mine):
        tdist.free_tensor(t)


def test_rma_and_signals_on_tensors():
    me, n = tdist.my_pe(), tdist.n_pes()
    right, left = (me + 1) % n, (me - 1) % n
    data, src, back = tdist.zeros(64, "float32"), tdist.zeros(64, "float32"), tdist.zeros(64, "float32")
    sig = tdist.zeros(4, "uint64")
    write(src, np.arange(64, dtype=np.float32) + 100 * me)
    # Data with a signal to the right; the left neighbour's arrives here, the data first.
    tdist.put_signal(data, src, sig, 1, "add", right, index=2)
    assert tdist.signal_wait_until(sig, "ge", 1, index=2) == 1
    np.testing.assert_array_equal(read(data), np.arange(64, dtype=np.float32) + 100 * left)
    tdist.barrier_all()
    # Get the right neighbour's data, which came from this PE.
    tdist.get(back, data, right)
    np.testing.assert_array_equal(read(back), np.arange(64, dtype=np.float32) + 100 * me)
    # A plain put and a signal: set word 0 of the right's signal to 5 + this PE.
    tdist.barrier_all()
    tdist.put_nbi(data, src, right)
    tdist.quiet()
    tdist.signal_op(sig, 5 + me, "set", right)
    assert tdist.signal_wait_until(sig, "eq", 5 + left) == 5 + left
    np.testing.assert_array_equal(read(data), np.arange(64, dtype=np.float32) + 100 * left)
    tdist.barrier_all()
    invalid = tdist.ErrorCode.InvalidParam
    small = tdist.zeros(8, "float32")
    expect_error(invalid, "do not fit the destination's 32", tdist.put, small, src, right)
    expect_error(invalid, "sig_op 'xor' is neither set nor add", tdist.signal_op, sig, 1, "xor", right)
    expect_error(invalid, "cmp 'gte' is none of", tdist.signal_wait_until, sig, "gte", 1)
    expect_error(invalid, "a signal is int32, int64 or uint64, not f32", tdist.signal_op, src, 1, "set", right)
    expect_error(invalid, "signal index 4 is outside", lambda: tdist.signal_op(sig, 1, "set", right, index=4))
    expect_error(invalid, "out of range", tdist.put, data, src, n)
    tdist.barrier_all()
    for t in (data, src, back, sig, small):
        tdist.free_tensor(t)
