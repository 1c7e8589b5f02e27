"""The heap from cupy on the cuda backend: cupy.from_dlpack views a heap tensor without a copy, a
peer's copy too, and the kernels take cupy arrays. Run by every PE under tdist-run; skipped
(status 77) where cupy cannot be imported or the backend is not cuda."""

import pytest

cupy = pytest.importorskip("cupy")

import tdist  # noqa: E402
import tdist.kernels as tk  # noqa: E402



@pytest.fixture(scope="module", autouse=True)
def job():
    # The backend is known only after init: a skip mark's condition would run before it.
    tdist.init()
    if tdist.backend() != "cuda":
        tdist.finalize()
        pytest.skip("cupy arrays live in GPU memory")
    yield
    tdist.finalize()


def test_cupy_views_the_heap_and_the_peers_copies():
    me, n = tdist.my_pe(), tdist.n_pes()
    t = tdist.zeros((4, 64), "float32")
    a = cupy.from_dlpack(t)
    assert a.data.ptr == t.data_ptr and a.shape == (4, 64) and a.dtype == cupy.float32
    a[:] = me + 1
    cupy.cuda.runtime.deviceSynchronize()
    tdist.barrier_all()
    for pe in range(n):
        copy = cupy.from_dlpack(tdist.peer(t, pe))
        assert bool((copy == pe + 1).all()), pe
    tdist.barrier_all()
    tdist.free_tensor(t)


def test_kernels_take_cupy_arrays():
    me, n = tdist.my_pe(), tdist.n_pes()
    t, u = tdist.zeros(4096, "float32"), tdist.zeros(n * 4096, "float32")
    x, g = cupy.from_dlpack(t), cupy.from_dlpack(u)
    x[:] = cupy.arange(4096, dtype=cupy.float32) + me
    cupy.cuda.runtime.deviceSynchronize()  # calls without context= run on the default context's stream
    tk.all_gather(x, g)
    tk.all_reduce(x)
    tk.default_context().synchronize()
    expected = sum(cupy.arange(4096, dtype=cupy.float32) + pe for pe in range(n))
    assert bool((x == expected).all())
    assert bool((g.reshape(n, 4096) == cupy.arange(4096, dtype=cupy.float32)[None, :] +
                 cupy.arange(n, dtype=cupy.float32)[:, None]).all())
    tdist.barrier_all()
    tdist.free_tensor(t)
    tdist.free_tensor(u)
