"""The kernel library from torch (torch.ops.tdist.*, through tdist.kernels): on torch tensors that
view the heap, on torch's current stream, captured into a CUDA graph, and traced by torch.compile.
Run by every PE under tdist-run; skipped (status 77) where torch cannot be imported."""

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import tdist  # noqa: E402
import tdist.kernels as tk  # noqa: E402



@pytest.fixture(scope="module", autouse=True)
def job():
    tdist.init()
    yield
    tdist.finalize()


@pytest.fixture
def cuda_only(job):
    # A fixture, not a skip mark: the backend is known only after init.
    if tdist.backend() != "cuda":
        pytest.skip("streams and graphs are the cuda backend's")


def heap(shape, dtype=torch.float32):
    t = tdist.zeros(shape, dtype)
    return t, torch.from_dlpack(t)


def sync():
    if tdist.backend() == "cuda":
        torch.cuda.synchronize()


def total(n, f):
    return sum(f(pe) for pe in range(n))


def test_torch_imports_after_tdist():
    # The order a user writes without thinking of it: tdist first, torch second, in a new process.
    job = subprocess.run([sys.executable, "-c", "import tdist, torch; print(torch.ones(2).sum().item())"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert job.returncode == 0 and job.stdout.strip().endswith("2.0"), (job.returncode, job.stdout)


def _torch_module_built():
    import importlib.util
    return importlib.util.find_spec("tdist._torch_C") is not None


@pytest.fixture
def torch_module(job):
    if not _torch_module_built():
        pytest.skip("tdist._torch_C was not built (no torch headers at build time)")
    assert tdist._torch_C is not None, "tdist._torch_C was built but is not in use"
    yield tdist._torch_C
    tdist._C._set_torch_access(tdist._torch_C.access)


def test_torch_tensors_read_in_cpp_as_through_their_attributes(torch_module):
    # Every dtype tdist takes, ranks 0..3, strided views and offsets: what a call takes of a torch
    # tensor is the same through tdist._torch_C as through the tensor's Python attributes.
    device = "cuda" if tdist.backend() == "cuda" else "cpu"
    dtypes = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.float16, torch.bfloat16,
              torch.float32, torch.float64]
    dtypes += [getattr(torch, name) for name in ("uint16", "uint32", "uint64") if hasattr(torch, name)]
    tensors = []
    for dtype in dtypes:
        base = torch.zeros(4, 6, 10, dtype=dtype, device=device)
        tensors += [base, base[1], base[1, 2], base[1, 2, 3], base.transpose(0, 2), base[:, ::2, 1:], base.reshape(-1)]
    for t in tensors:
        fast = tdist._C._tensor_arg(t)
        tdist._C._set_torch_access(None)
        try:
            slow = tdist._C._tensor_arg(t)
        finally:
            tdist._C._set_torch_access(torch_module.access)
        assert fast == slow, (t.dtype, t.shape, t.stride())
        assert fast[0] == t.data_ptr() and fast[2] == list(t.shape) and fast[3] == list(t.stride())
    # What the fast path does not take goes through the attributes, which say why.
    for bad, reason in ((torch.ones(4, dtype=torch.complex64), "has an element type \\(torch.complex64\\)"),
                        (torch.ones(4, requires_grad=True), "cannot be taken: it requires grad"),
                        (torch.ones(4).to_sparse(), "cannot be taken: ")):
        with pytest.raises(tdist.Error, match=reason):
            tdist._C._tensor_arg(bad)


def test_stream_of_is_the_stream_torch_runs_on(torch_module):
    from tdist import _torch_ops
    host = torch.ones(4)
    assert torch_module.stream_of(host) == _torch_ops._stream_handle_by_attributes(host) == 0
    with pytest.raises(TypeError, match="expected a torch.Tensor"):
        torch_module.stream_of(host.numpy())
    if tdist.backend() != "cuda":
        return
    x = torch.ones(4, device="cuda")
    assert torch_module.stream_of(x) == _torch_ops._stream_handle_by_attributes(x) == 1  # the legacy default
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        assert torch_module.stream_of(x) == _torch_ops._stream_handle_by_attributes(x) == s.cuda_stream


def test_a_torch_module_built_against_another_torch_is_not_used():
    if not _torch_module_built():
        pytest.skip("tdist._torch_C was not built (no torch headers at build time)")
    program = ("import warnings, torch\n"
               "torch.__version__ = '0.0.0+other'\n"
               "with warnings.catch_warnings(record=True) as caught:\n"
               "    warnings.simplefilter('always')\n"
               "    import tdist\n"
               "print(tdist._torch_C, [str(w.message) for w in caught])\n")
    job = subprocess.run([sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=300)
    assert job.returncode == 0, job.stdout
    assert job.stdout.startswith("None ") and "was built against torch" in job.stdout, job.stdout
    assert "this is torch 0.0.0+other" in job.stdout, job.stdout


def test_the_ops_are_registered():
    for name in ("all_reduce", "all_reduce_", "all_gather", "reduce_scatter", "all_gather_gemm",
                 "gemm_reduce_scatter", "moe_dispatch", "moe_combine"):
        assert hasattr(torch.ops.tdist, name), name
        if name not in ("all_reduce_",):
            assert hasattr(torch.ops.tdist, name + "_functional"), name


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_all_reduce_on_torch_views(dtype):
    if dtype == torch.bfloat16 and tdist.backend() != "cuda":
        pytest.skip("bf16 collectives are the cuda backend's")
    me, n = tdist.my_pe(), tdist.n_pes()
    t, x = heap(8192, dtype)
    u, y = heap(8192, dtype)
    x.fill_(me + 1)
    tk.all_reduce(x, y)
    tk.all_reduce(x)  # in place
    sync()
    assert (y.float() == total(n, lambda pe: pe + 1)).all() and (x.float() == total(n, lambda pe: pe + 1)).all()
    # A torch view beside a tdist.Tensor: the call runs on the torch tensor's stream.
    x.fill_(me + 1)
    y.zero_()
    sync()
    tk.all_reduce(x, u)
    sync()
    assert (y.float() == total(n, lambda pe: pe + 1)).all()
    # A tensor torch will not export (a sparse one) is a tdist.Error that passes torch's reason on.
    with pytest.raises(tdist.Error, match="input cannot be taken: ") as raised:
        tk.all_reduce(torch.ones(8).to_sparse(), y)
    assert raised.value.code == tdist.ErrorCode.InvalidParam
    # One that requires grad is refused (the calls are not differentiable), and nothing is changed.
    with pytest.raises(tdist.Error, match="input cannot be taken: it requires grad") as raised:
        tk.all_reduce(torch.ones(8192, dtype=dtype, requires_grad=True), y)
    assert raised.value.code == tdist.ErrorCode.InvalidParam
    # The torch ops themselves (tdist.kernels calls the C++ calls directly in eager mode).
    x.fill_(me + 1)
    torch.ops.tdist.all_reduce(x, y, "auto", 256 << 10, 0)
    torch.ops.tdist.all_reduce_(x, "auto", 256 << 10, 0)
    sync()
    assert (y.float() == total(n, lambda pe: pe + 1)).all() and (x.float() == total(n, lambda pe: pe + 1)).all()
    tdist.barrier_all()
    tdist.free_tensor(t)
    tdist.free_tensor(u)


@pytest.mark.usefixtures("cuda_only")
def test_calls_run_on_the_current_stream():
    me, n = tdist.my_pe(), tdist.n_pes()
    t, x = heap(1 << 16)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x.fill_(me + 1)          # ordered before the all_reduce by the stream alone
        tk.all_reduce(x)
        x.mul_(2)
    s.synchronize()
    assert (x == 2 * total(n, lambda pe: pe + 1)).all()
    tdist.barrier_all()
    tdist.free_tensor(t)


def test_all_gather_gemm_into_a_gathered_tensor_runs_on_the_current_stream():
    # gathered= takes gather(A) instead of the scratch; with torch views, on torch's current stream.
    me, n = tdist.my_pe(), tdist.n_pes()
    ta, a = heap((8, 16))
    tb, b = heap((16, 32))
    tc, c = heap((8 * n, 32))
    tg, gathered = heap((8 * n, 16))
    rows = [((torch.arange(8 * 16, dtype=torch.float32).reshape(8, 16) % 7 + pe) / 4) for pe in range(n)]
    b_values = (torch.arange(16 * 32, dtype=torch.float32).reshape(16, 32) % 5) / 4
    sync()
    tdist.barrier_all()
    side = torch.cuda.Stream() if tdist.backend() == "cuda" else None
    with torch.cuda.stream(side) if side is not None else _no_error():
        a.copy_(rows[me])        # ordered before the call by the stream alone
        b.copy_(b_values)
        tk.all_gather_gemm(a, b, c, gathered)
        c.mul_(2)
    sync()
    assert torch.equal(gathered.cpu(), torch.cat(rows))
    torch.testing.assert_close(c.cpu(), 2 * (torch.cat(rows) @ b_values))
    tdist.barrier_all()
    for t in (ta, tb, tc, tg):
        tdist.free_tensor(t)


@pytest.mark.usefixtures("cuda_only")
def test_a_captured_all_reduce_replays():
    me, n = tdist.my_pe(), tdist.n_pes()
    t, x = heap(4096)
    u, y = heap(4096)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        tk.all_reduce(x, y)      # the warm-up: makes the stream's context
    s.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=s):
        tk.all_reduce(x, y)
    for round in range(3):
        x.fill_(me + round)
        torch.cuda.synchronize()
        tdist.barrier_all()
        graph.replay()
        torch.cuda.synchronize()
        assert (y == total(n, lambda pe: pe + round)).all(), round
        tdist.barrier_all()
    del graph
    tdist.free_tensor(t)
    tdist.free_tensor(u)


def mlp_weights(pe, k, hidden, n_out):
    """This PE's rows of a row-parallel MLP's two weights (the same on every run)."""
    g = torch.Generator().manual_seed(1000 + pe)
    w1 = torch.randint(-2, 3, (k, hidden), generator=g).float() / 4
    w2 = torch.randint(-2, 3, (hidden, n_out), generator=g).float() / 4
    return w1, w2


class RowParallelMlp(torch.nn.Module):
    """relu(x w1) w2 with the hidden units split over the PEs: each PE's partial sum of the output,
    summed over the PEs by an all_reduce (tensor parallelism's second layer)."""

    def __init__(self, w1, w2):
        super().__init__()
        self.register_buffer("w1", w1)
        self.register_buffer("w2", w2)

    def forward(self, x):
        partial = torch.relu(x @ self.w1) @ self.w2
        return torch.ops.tdist.all_reduce_functional(partial, "auto", 256 << 10, 0)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_of_a_model_that_calls_all_reduce(backend):
    me, n = tdist.my_pe(), tdist.n_pes()
    device = "cuda" if tdist.backend() == "cuda" else "cpu"
    torch._dynamo.reset()
    x = (torch.arange(8 * 16, dtype=torch.float32).reshape(8, 16) % 5 - 2).to(device)
    model = RowParallelMlp(*mlp_weights(me, 16, 32, 8)).to(device)
    expected = sum(torch.relu(x.cpu() @ w1) @ w2 for w1, w2 in (mlp_weights(pe, 16, 32, 8) for pe in range(n)))
    eager = model(x)
    compiled = torch.compile(model, backend=backend, fullgraph=True)
    out = compiled(x)
    again = compiled(x + 0)  # a second call runs the compiled graph again
    sync()
    assert torch.equal(eager.cpu(), expected) and torch.equal(out.cpu(), expected) and torch.equal(again.cpu(), expected)
    tdist.barrier_all()


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_torch_compile_traces_in_place_calls_on_heap_tensors(backend):
    me, n = tdist.my_pe(), tdist.n_pes()
    torch._dynamo.reset()
    t, x = heap(1024)
    u, y = heap(1024)
    v, g = heap(n * 1024)
    x.fill_(me + 1)
    sync()

    def step(x, y, g):
        y.copy_(x * 2)
        tk.all_reduce(y)        # in place, on a graph input that the graph also changed
        tk.all_gather(x, g)
        return y + 1

    out = torch.compile(step, backend=backend, fullgraph=True)(x, y, g)
    sync()
    assert (out == 2 * total(n, lambda pe: pe + 1) + 1).all()
    assert (y == 2 * total(n, lambda pe: pe + 1)).all()  # the mutation reached the heap tensor
    assert torch.equal(g.cpu(), torch.cat([torch.full((1024,), pe + 1.0) for pe in range(n)]))
    tdist.barrier_all()
    for h in (t, u, v):
        tdist.free_tensor(h)


def test_functional_forms_take_any_tensor_and_change_none():
    me, n = tdist.my_pe(), tdist.n_pes()
    device = "cuda" if tdist.backend() == "cuda" else "cpu"
    ops = torch.ops.tdist
    x = torch.arange(4 * n * 3, dtype=torch.float32, device=device).reshape(4 * n, 3) + 100 * me
    before = x.clone()
    total_x = sum(torch.arange(4 * n * 3, dtype=torch.float32).reshape(4 * n, 3) + 100 * pe for pe in range(n))
    assert torch.equal(ops.all_reduce_functional(x, "auto", 256 << 10, 0).cpu(), total_x)
    gathered = ops.all_gather_functional(x, 256 << 10, 0, "auto")
    assert gathered.shape == (4 * n * n, 3)
    assert torch.equal(gathered.cpu(), torch.cat([before.cpu() - 100 * me + 100 * pe for pe in range(n)]))
    scattered = ops.reduce_scatter_functional(x, 256 << 10, 0, "auto")
    assert torch.equal(scattered.cpu(), total_x[4 * me:4 * (me + 1)])
    assert torch.equal(x, before)  # the input is unchanged
    # A heap tensor is used where it lies (no staging): the same results.
    t, h = heap((4 * n, 3))
    h.copy_(x)
    assert torch.equal(ops.all_reduce_functional(h, "auto", 256 << 10, 0).cpu(), total_x)
    assert torch.equal(h, before)
    # The GEMMs: AllGather+GEMM of rows, GEMM+ReduceScatter of a sum.
    a = (torch.arange(8 * 16, dtype=torch.float32, device=device).reshape(8, 16) % 7 + me) / 4
    b = (torch.arange(16 * 32, dtype=torch.float32, device=device).reshape(16, 32) % 5) / 4
    c = ops.all_gather_gemm_functional(a, b, 1, 512, 1024, 0, "auto", 0, "auto")
    rows = [((torch.arange(8 * 16, dtype=torch.float32).reshape(8, 16) % 7 + pe) / 4) for pe in range(n)]
    torch.testing.assert_close(c.cpu(), torch.cat(rows) @ b.cpu())
    a2 = (torch.arange(8 * n * 16, dtype=torch.float32, device=device).reshape(8 * n, 16) % 3 + me) / 4
    c2 = ops.gemm_reduce_scatter_functional(a2, b, 1, 512, 1024, 0, "auto")
    full = sum(((torch.arange(8 * n * 16, dtype=torch.float32).reshape(8 * n, 16) % 3 + pe) / 4) @ b.cpu()
               for pe in range(n))
    torch.testing.assert_close(c2.cpu(), full[8 * me:8 * (me + 1)])
    with pytest.raises(tdist.Error, match="multiple of the PE count") if n > 1 else _no_error():
        ops.reduce_scatter_functional(x[:1], 256 << 10, 0, "auto")
    tdist.barrier_all()
    tdist.free_tensor(t)


class _no_error:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_moe_dispatch_and_combine_as_torch_ops():
    me, n = tdist.my_pe(), tdist.n_pes()
    experts, top_k, tokens, hidden = 2 * n, 2, 6, 8
    capacity = n * tokens * top_k
    t_x, x = heap((tokens, hidden))
    x.copy_(torch.arange(tokens * hidden, dtype=torch.float32).reshape(tokens, hidden) + me)
    t_ids, ids = heap((tokens, top_k), torch.int32)
    ids.copy_(torch.tensor([[(t + me) % experts, (t + me + 1) % experts] for t in range(tokens)], dtype=torch.int32))
    t_w, weights = heap((tokens, top_k))
    weights.fill_(0.25)
    t_r, recv = heap((capacity, hidden))
    t_o, out = heap((tokens, hidden))
    counts = tk.moe_dispatch(x, ids, recv, experts=experts, top_k=top_k, capacity=capacity)
    assert counts.dtype == torch.int32 and counts.shape == (experts // n, n)
    local = experts // n
    mine = sum(((t + pe + k) % experts) // local == me for pe in range(n) for t in range(tokens) for k in range(top_k))
    assert int(counts.sum()) == mine  # the rows of every PE's tokens whose expert is on this PE
    tk.moe_combine(recv, counts, ids, weights, out, experts=experts, top_k=top_k, capacity=capacity)
    sync()
    assert torch.equal(out, 0.5 * x)  # experts that return their input: sum over k of 0.25 x
    out.zero_()
    again = torch.ops.tdist.moe_dispatch(x, ids, recv, experts, top_k, capacity, 0)  # the torch ops themselves
    torch.ops.tdist.moe_combine(recv, again, ids, weights, out, experts, top_k, capacity, 0)
    sync()
    assert torch.equal(again, counts) and torch.equal(out, 0.5 * x)

    def moe(x, ids, weights, recv, out):
        counts = tk.moe_dispatch(x, ids, recv, experts=experts, top_k=top_k, capacity=capacity)
        tk.moe_combine(recv * 2, counts, ids, weights, out, experts=experts, top_k=top_k, capacity=capacity)
        return out + 0

    torch._dynamo.reset()
    compiled = torch.compile(moe, backend="aot_eager", fullgraph=True)
    result = compiled(x, ids, weights, recv, out)
    sync()
    assert torch.equal(result, x) and torch.equal(out, x)  # the experts double: sum over k of 0.25 * 2x
    tdist.barrier_all()
    for h in (t_x, t_ids, t_w, t_r, t_o):
        tdist.free_tensor(h)


@pytest.mark.usefixtures("cuda_only")
def test_a_staging_buffer_too_small_for_a_capture_is_a_clear_error():
    s = torch.cuda.Stream()
    small = torch.ones(256, device="cuda")
    large = torch.ones(1 << 20, device="cuda")
    with torch.cuda.stream(s):
        torch.ops.tdist.all_reduce_functional(small, "auto", 256 << 10, 0)  # the warm-up: 256 floats
    s.synchronize()
    graph = torch.cuda.CUDAGraph()
    with pytest.raises(tdist.Error, match="make one call of this size before the capture"):
        with torch.cuda.graph(graph, stream=s):
            torch.ops.tdist.all_reduce_functional(large, "auto", 256 << 10, 0)
    del graph
    torch.cuda.synchronize()
    tdist.barrier_all()
