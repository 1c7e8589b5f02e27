"""tdist.language and tdist.language.shmem from Triton kernels on the GPU, run by every PE under
tdist-run on the cuda backend (the device suite's cases): rings of notify/wait, ADD from every
PE, the six predicates, barriers, put-with-signal ordering under many rounds, the examples of
examples/triton against torch, and a module whose state does not match the runtime refused at
attach. Skipped (status 77) without torch, triton or a GPU backend."""

import os

import pytest

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")

import triton.language as tl  # noqa: E402

import tdist  # noqa: E402
import tdist.language as tdl  # noqa: E402
import tdist.language.shmem as shmem  # noqa: E402
from conftest import example  # noqa: E402

SLOT = tl.constexpr(8)


@pytest.fixture(scope="module", autouse=True)
def job():
    # The backend is known only after init: a skip mark's condition would run before it.
    tdist.init()
    if tdist.backend() != "cuda":
        tdist.finalize()
        pytest.skip("Triton kernels run on the cuda backend")
    yield
    tdist.finalize()


def heap(shape, dtype):
    t = tdist.zeros(shape, dtype)
    return t, torch.from_dlpack(t)


def settle():
    torch.cuda.synchronize()
    tdist.barrier_all()


@tdl.jit
def ring_round(signals, seen, rounds):
    # A token around the ring: PE 0 starts round r, every other PE passes it on once it has it.
    # A PE's signal is written once a round, and round r + 1 reaches it only after it passed r.
    me = tdl.rank()
    nxt = (me + 1) % tdl.num_ranks()
    for r in range(1, rounds + 1):
        if me == 0:
            tdl.notify(signals, nxt, signal=r, sig_op="set")
        token = tdl.wait(signals, 1, "sys", "acquire", r)
        if me != 0:
            tdl.notify(signals, nxt, signal=r, sig_op="set")
        tl.store(tdl.consume_token(seen, token), r.to(tl.int64))


# A program of one warp takes the warp's barrier and polls in every lane (tdist_device.cu); the
# default of four warps, the CTA's barrier and its first thread.
WARPS = pytest.mark.parametrize("warps", [1, 4])


@WARPS
def test_a_ring_of_notify_and_wait(warps):
    t, signals = heap(8, "uint64")
    u, seen = heap(1, "int64")
    settle()
    ring_round[(1,)](signals, seen, 200, num_warps=warps)
    settle()
    assert int(seen.item()) == 200 and int(signals[0].item()) == 200
    tdist.free_tensor(t)
    tdist.free_tensor(u)


@tdl.jit
def add_from_everyone(counter, done):
    n = tdl.num_ranks()
    for pe in range(0, n):
        tdl.notify(counter, pe, signal=1, sig_op="add")
    token = tdl.wait(counter, 1, "sys", "acquire", (n * tl.num_programs(0)).to(tl.uint64))
    tl.store(tdl.consume_token(done, token) + tl.program_id(0), 1)


@WARPS
def test_add_from_every_program_of_every_pe(warps):
    programs = 8
    t, counter = heap(8, "uint64")
    u, done = heap(programs, "int32")
    settle()
    add_from_everyone[(programs,)](counter, done, num_warps=warps)
    settle()
    assert int(counter[0].item()) == tdist.n_pes() * programs and bool((done == 1).all())
    tdist.free_tensor(t)
    tdist.free_tensor(u)


@tdl.jit
def gather_rounds(slots, cells, seen, rounds):
    # Each round every PE puts its word into its cell of every PE and notifies its slot there; then
    # waits on all n slots at once (one wait of n words) and sums the cells it released.
    me = tdl.rank()
    n = tdl.num_ranks()
    for r in range(1, rounds + 1):
        for pe in range(0, n):
            tl.store(tdl.symm_at(cells, pe) + me, (r * 100 + me).to(tl.int64))
            tdl.notify(slots + me * SLOT, pe, signal=r, sig_op="set")
        token = tdl.wait(slots, n, "sys", "acquire", r.to(tl.uint64))
        got = tl.load(tdl.consume_token(cells, token) + tl.arange(0, 64), mask=tl.arange(0, 64) < n, other=0)
        tl.store(seen + r, tl.sum(got))
        shmem.barrier_all()  # every PE has read round r's cells before round r + 1 writes them


@WARPS
def test_a_wait_on_every_pes_slot_releases_every_pes_data(warps):
    rounds, n = 100, tdist.n_pes()
    t, slots = heap(n * 8, "uint64")
    u, cells = heap(64, "int64")
    v, seen = heap(rounds + 1, "int64")
    settle()
    gather_rounds[(1,)](slots, cells, seen, rounds, num_warps=warps)
    settle()
    assert seen[1:].tolist() == [r * 100 * n + n * (n - 1) // 2 for r in range(1, rounds + 1)]
    for h in (t, u, v):
        tdist.free_tensor(h)


@tdl.jit
def wait_until(signal, out, CMP: tl.constexpr, VALUE: tl.constexpr):
    tl.store(out, shmem.signal_wait_until(signal, CMP, VALUE))


@WARPS
@pytest.mark.parametrize("cmp,value", [("eq", 5), ("ne", 4), ("gt", 4), ("ge", 5), ("lt", 6), ("le", 5)])
def test_the_six_predicates(cmp, value, warps):
    t, signal = heap(8, "int64")
    u, out = heap(1, "int64")
    signal[0] = 5
    settle()
    wait_until[(1,)](signal, out, CMP=cmp, VALUE=value, num_warps=warps)
    torch.cuda.synchronize()
    assert int(out.item()) == 5
    settle()
    tdist.free_tensor(t)
    tdist.free_tensor(u)


@tdl.jit
def barrier_rounds(cells, observed, rounds):
    me = shmem.my_pe()
    n = shmem.n_pes()
    for r in range(1, rounds + 1):
        # Every PE writes round r into its cell of every PE, then all meet: every cell holds r.
        for pe in range(0, n):
            tl.store(tdl.symm_at(cells, pe) + me, r.to(tl.int64))
        shmem.barrier_all()
        tl.store(observed + r, tl.sum(tl.load(cells + tl.arange(0, 64), mask=tl.arange(0, 64) < n, other=0)))
        shmem.barrier_all()  # every PE has read before the next round writes


def test_barriers_order_every_pe_stores():
    rounds, n = 100, tdist.n_pes()
    t, cells = heap(64, "int64")
    u, observed = heap(rounds + 1, "int64")
    settle()
    barrier_rounds[(1,)](cells, observed, rounds)
    settle()
    assert observed[1:].tolist() == [r * n for r in range(1, rounds + 1)]
    tdist.free_tensor(t)
    tdist.free_tensor(u)


@tdl.jit
def put_with_signal(data, box, signal, mismatches, rounds, N: tl.constexpr):
    me = shmem.my_pe()
    nxt = (me + 1) % shmem.n_pes()
    offsets = tl.arange(0, N)
    for r in range(1, rounds + 1):
        tl.store(data + offsets, offsets + r * N)
        shmem.putmem_signal_block(box, data, N * 4, signal, r, "set", nxt)
        seen = shmem.signal_wait_until(signal, "eq", r)
        got = tl.load(box + offsets)
        tl.store(mismatches + r, tl.sum((got != offsets + seen.to(tl.int32) * N).to(tl.int32)))
        shmem.barrier_all()  # the box is read before the next round overwrites it


@WARPS
def test_put_with_signal_delivers_the_data_first(warps):
    rounds = 200
    t, data = heap(1024, "int32")
    u, box = heap(1024, "int32")
    v, signal = heap(8, "int64")
    w, mismatches = heap(rounds + 1, "int32")
    settle()
    put_with_signal[(1,)](data, box, signal, mismatches, rounds, N=1024, num_warps=warps)
    settle()
    assert int(signal[0].item()) == rounds and int(mismatches.sum().item()) == 0
    for h in (t, u, v, w):
        tdist.free_tensor(h)


def test_the_ring_allreduce_example_against_torch():
    ring = example("ring_allreduce")
    me, n, chunk, programs = tdist.my_pe(), tdist.n_pes(), 16384, 4
    steps = 2 * max(n - 1, 1)
    heaps = [heap(n * chunk, "float32"), heap(steps * chunk, "float32"), heap(steps * programs * 8, "uint64")]
    data, staging, signals = (h[1] for h in heaps)
    expected = sum(ring.inputs(torch, pe, n * chunk) for pe in range(n)).cuda()
    for epoch in (1, 2, 3):
        data.copy_(ring.inputs(torch, me, n * chunk))
        settle()
        ring.ring_allreduce[(programs,)](data, staging, signals, epoch, CHUNK=chunk, TILE=chunk // programs)
        torch.cuda.synchronize()
        assert torch.equal(data, expected), epoch
    settle()
    for h in heaps:
        tdist.free_tensor(h[0])


def test_the_allgather_gemm_example_against_torch():
    ag = example("allgather_gemm")
    me, n, m, k, cols = tdist.my_pe(), tdist.n_pes(), 256, 512, 256
    heaps = [heap((m, k), "float16"), heap((n * m, k), "float16"), heap(n * 8, "uint64")]
    a, gathered, signals = (h[1] for h in heaps)
    b = ((torch.arange(k * cols, device="cuda").reshape(k, cols) % 7) - 3).to(torch.float16) / 4
    c = torch.empty((n * m, cols), dtype=torch.float16, device="cuda")
    expected = (torch.cat([ag.rows_of(torch, pe, m, k) for pe in range(n)]).cuda().float() @ b.float()).half()
    tiles = triton.cdiv(n * m, 128) * triton.cdiv(cols, 128)
    # The example's persistent grid, and one of 3 consumers (each loops over several tiles).
    for epoch, (programs, consumers) in enumerate((ag.grid(torch, tiles, 2), (5, 3)), start=1):
        a.copy_(ag.rows_of(torch, me, m, k))
        c.zero_()
        settle()
        ag.allgather_gemm[(programs,)](a, b, c, gathered, signals, epoch, m, k, cols, consumers, PRODUCERS=2,
                                       BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, COPY=4096)
        torch.cuda.synchronize()
        assert torch.equal(c, expected), (epoch, programs)
    settle()
    for h in heaps:
        tdist.free_tensor(h[0])


def test_a_module_whose_state_does_not_match_is_refused(tmp_path):
    # A device library whose state global is 8 bytes: loading a kernel that links it is refused
    # at attach, naming both sizes.
    import re
    library = tmp_path / "libtdist_device.ll"
    library.write_text(re.sub(r'^(@tdist_device_state = .*constant )%"struct.tdist::device::DeviceState"',
                              r"\1[8 x i8]", open(tdl.device_library()).read(), count=1, flags=re.MULTILINE))

    @triton.jit
    def kernel(out):
        tl.store(out, tdl.rank())

    out = torch.zeros(1, dtype=torch.int32, device="cuda")
    from tdist.language import _runtime
    _runtime.install_hook()
    with pytest.raises(tdist.Error, match="different builds"):
        kernel[(1,)](out, extern_libs={tdl.LIBRARY: str(library)})
