"""The kernel library from Python (tdist.kernels), every call against a numpy reference, run by
every PE of a job under tdist-run. Inputs are made from the PE and the element index, so every PE
knows every other PE's inputs."""

import numpy as np
import pytest

import tdist
import tdist.kernels as tk
from conftest import read, write


@pytest.fixture(scope="module", autouse=True)
def job():
    tdist.init()
    yield
    tdist.finalize()   # closes the default context first


def values(pe, shape, seed=0):
    count = int(np.prod(shape))
    return (((np.arange(count) * 7 + pe * 13 + seed) % 17) - 8).astype(np.float32).reshape(shape)


def heap(shape, data=None, dtype="float32"):
    t = tdist.zeros(shape, dtype)
    if data is not None:
        write(t, data)
    return t


@pytest.mark.parametrize("algorithm", ["auto", "one_shot", "two_shot", "ring", "two-shot"])
def test_all_reduce(algorithm):
    me, n = tdist.my_pe(), tdist.n_pes()
    x, y = heap(4096, values(me, 4096)), heap(4096)
    assert tk.all_reduce(x, y, algorithm=algorithm, chunk_bytes=4096) is y
    np.testing.assert_array_equal(read(y), sum(values(pe, 4096) for pe in range(n)))
    tk.all_reduce(x)  # in place, the default output
    np.testing.assert_array_equal(read(x), sum(values(pe, 4096) for pe in range(n)))
    tdist.barrier_all()
    tdist.free_tensor(x)
    tdist.free_tensor(y)


def test_all_gather_and_reduce_scatter():
    me, n = tdist.my_pe(), tdist.n_pes()
    x, gathered = heap(1024, values(me, 1024)), heap(n * 1024)
    tk.all_gather(x, gathered)
    np.testing.assert_array_equal(read(gathered), np.concatenate([values(pe, 1024) for pe in range(n)]))
    tdist.barrier_all()
    gathered_too = heap(n * 1024)
    tk.all_gather(x, gathered_too, engine="copy-engine")  # tdist-bench's spelling of copy_engine
    np.testing.assert_array_equal(read(gathered_too), read(gathered))
    block = heap(1024)
    tk.reduce_scatter(gathered, block)  # every PE's input is the same gather: block p is n times it
    np.testing.assert_array_equal(read(block), n * values(me, 1024))
    tdist.barrier_all()
    for t in (x, gathered, gathered_too, block):
        tdist.free_tensor(t)


def test_gemms_against_numpy():
    me, n = tdist.my_pe(), tdist.n_pes()
    m_local, k, cols = 16, 24, 32
    a, b, c = heap((m_local, k), values(me, (m_local, k))), heap((k, cols), values(0, (k, cols), 5)), \
        heap((n * m_local, cols))
    tk.all_gather_gemm(a, b, c, chunks_per_pe=2, tile_m=8, tile_n=16)
    full_a = np.concatenate([values(pe, (m_local, k)) for pe in range(n)])
    np.testing.assert_allclose(read(c), full_a @ values(0, (k, cols), 5), rtol=1e-5, atol=1e-4)
    write(c, np.zeros((n * m_local, cols), np.float32))
    tk.all_gather_gemm(a, b, c, tile_order="m4")  # the cuda fused GEMM's order: the same product
    np.testing.assert_allclose(read(c), full_a @ values(0, (k, cols), 5), rtol=1e-5, atol=1e-4)
    # GEMM + ReduceScatter: the sum over PEs of a_p [M, k] x b_p [k, N], block me of its rows.
    rows = 8 * n
    a2, b2, c2 = heap((rows, k), values(me, (rows, k), 1)), heap((k, cols), values(me, (k, cols), 2)), \
        heap((rows // n, cols))
    tk.gemm_reduce_scatter(a2, b2, c2)
    total = sum(values(pe, (rows, k), 1) @ values(pe, (k, cols), 2) for pe in range(n))
    np.testing.assert_allclose(read(c2), total[me * 8:(me + 1) * 8], rtol=1e-5, atol=1e-3)
    tdist.barrier_all()
    for t in (a, b, c, a2, b2, c2):
        tdist.free_tensor(t)


def test_moe_dispatch_and_combine_round_trip():
    me, n = tdist.my_pe(), tdist.n_pes()
    experts, top_k, tokens, hidden = 2 * n, 2, 6, 8
    capacity = n * tokens * top_k
    x = heap((tokens, hidden), values(me, (tokens, hidden)))
    ids = np.array([[(t + me) % experts, (t + me + 1) % experts] for t in range(tokens)], dtype=np.int32)
    topk_ids = heap((tokens, top_k), ids, "int32")
    recv = heap((capacity, hidden))
    layout = tk.moe_dispatch(x, topk_ids, recv, experts=experts, top_k=top_k, capacity=capacity)
    assert layout.rows == sum(layout.counts) and len(layout.counts) == (experts // n) * n
    # Experts that return their input: the combine gives back sum_k w[t, k] * x[t].
    weights = np.full((tokens, top_k), 0.25, dtype=np.float32)
    topk_weights, out = heap((tokens, top_k), weights), heap((tokens, hidden))
    tk.moe_combine(recv, layout, topk_ids, topk_weights, out, experts=experts, top_k=top_k, capacity=capacity)
    np.testing.assert_allclose(read(out), 0.5 * values(me, (tokens, hidden)), rtol=1e-6)
    # A layout made from the counts alone is the dispatch's (offsets: their prefix sums).
    rebuilt = tk.DispatchLayout(layout.counts)
    assert (rebuilt.counts, rebuilt.offsets, rebuilt.rows) == (layout.counts, layout.offsets, layout.rows)
    write(out, np.zeros((tokens, hidden), np.float32))
    tk.moe_combine(recv, rebuilt, topk_ids, topk_weights, out, experts=experts, top_k=top_k, capacity=capacity)
    np.testing.assert_allclose(read(out), 0.5 * values(me, (tokens, hidden)), rtol=1e-6)
    with pytest.raises(tdist.Error, match="layout"):  # counts of another shape: an error on every PE
        tk.moe_combine(recv, tk.DispatchLayout(layout.counts[:-1]), topk_ids, topk_weights, out, experts=experts,
                       top_k=top_k, capacity=capacity)
    tdist.barrier_all()
    for t in (x, topk_ids, recv, topk_weights, out):
        tdist.free_tensor(t)


def test_contexts_and_bad_calls_are_clear_errors():
    invalid = tdist.ErrorCode.InvalidParam
    ctx = tk.Context(scratch_bytes=1 << 20, max_signals=tk.min_signals())
    assert ctx.backend == tdist.backend() and ctx.scratch_bytes == 1 << 20
    x, y = heap(256, values(tdist.my_pe(), 256)), heap(128)
    a, b, c = heap((4, 8)), heap((8, 8)), heap((4 * tdist.n_pes(), 8))
    gathered = heap(256 * tdist.n_pes())
    inside = np.from_dlpack(gathered)[:256]  # the output's first block: symmetric, inside it
    for call, words in [
            (lambda: tk.all_reduce(x, y, context=ctx), "output"),
            (lambda: tk.all_reduce(x, algorithm="fastest", context=ctx), "algorithm 'fastest'"),
            (lambda: tk.all_gather(x, y, engine="dma", context=ctx), "engine 'dma'"),
            (lambda: tk.all_gather(inside, gathered, context=ctx), "input and output overlap"),
            (lambda: tk.all_gather_gemm(a, b, c, tile_order="m3", context=ctx),
             "tile_order 'm3' is none of auto, n1, n2, n4, n8, m1, m2, m4, m8"),
            (lambda: tk.all_gather_gemm(a, b, c, tile_order="along_m", context=ctx), "tile_order 'along_m'"),
            (lambda: tk.all_reduce(np.zeros(256, np.float32), context=ctx), "heap"),
            (lambda: tk.all_reduce(x, context="mine"), "context= takes a tdist.kernels.Context")]:
        with pytest.raises(tdist.Error) as raised:
            call()
        assert raised.value.code == invalid, raised.value
        assert words in str(raised.value), str(raised.value)
    tk.all_reduce(x, context=ctx)  # the context still works
    ctx.synchronize()
    ctx.close()
    with pytest.raises(tdist.Error, match="the context was closed"):
        tk.all_reduce(x, context=ctx)
    tdist.barrier_all()
    del inside
    for t in (x, y, a, b, c, gathered):
        tdist.free_tensor(t)
