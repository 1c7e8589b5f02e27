"""AllGather + GEMM as one Triton kernel with tdist.language: seed 000's producer/consumer pattern
("Kernel Design Patterns"). The first programs produce: each pushes this PE's rows of A to one
peer's gathered A and notifies that peer, row block by row block. The others consume: each
computes tiles of C = gather(A) x B with tl.dot, waiting only for the row block its tile needs,
in the seed's threadblock swizzle (each PE starts on its own rows, which need no transfer to
arrive). Every PE runs it:

    tdist-run --backend cuda -n 2 -- python3 examples/triton/allgather_gemm.py [--m 1024] [--k 1024] [--n 1024]

a: this PE's rows [M_local, K] (fp16), b: [K, N], c: [n_pes * M_local, N]; gathered: [n_pes *
M_local, K] and signals (n_pes slots, 64 bytes apart, uint64), both on the symmetric heap, the
signals zero before the first call; the call's epoch is 1, then 2, ...; a barrier between calls.
The producers have the lowest program ids, so that they are scheduled before consumers can fill
the GPU waiting for them, and the grid is persistent: at most this PE's share of the GPU's SMs
(grid()), the consumers looping over the tiles. A consumer waits for another PE's producers, so
every PE's programs must be resident at once where several PEs share a GPU: a program per tile
(thousands) would let one PE's waiting consumers take every SM while another PE's producers
wait for one. Checked against torch's matmul of the gathered rows.
"""

import argparse
import os
import sys

import triton
import triton.language as tl

import tdist.language as tdl

SLOT_WORDS = 8  # uint64 words between two signals: 64 bytes
SLOT = tl.constexpr(SLOT_WORDS)  # the same, for the kernel


def grid(torch, tiles, producers):
    """(programs, consumers) of a call with `tiles` output tiles: the producers, then a consumer per
    tile up to this PE's share of the SMs (the PEs of this node spread over its GPUs as tdist-run
    spreads them)."""
    sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    local_pes = int(os.environ.get("TDIST_LOCAL_PES", "1"))
    sharing = -(-local_pes // max(torch.cuda.device_count(), 1))  # PEs on this GPU
    consumers = max(1, min(tiles, sms // sharing - producers))
    return producers + consumers, consumers


@tdl.jit
def allgather_gemm(a, b, c, gathered, signals, epoch, M_LOCAL, K, N, CONSUMERS, PRODUCERS: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, COPY: tl.constexpr):
    pid = tl.program_id(0)
    rank = tdl.rank()
    n = tdl.num_ranks()
    if pid < PRODUCERS:
        # Producer pid: this PE's rows to peers pid, pid + PRODUCERS, ... (rows rank * M_LOCAL ..).
        for peer in range(pid, n, PRODUCERS):
            target = tdl.symm_at(gathered, peer) + rank * M_LOCAL * K
            for start in range(0, M_LOCAL * K, COPY):
                offsets = start + tl.arange(0, COPY)
                mask = offsets < M_LOCAL * K
                tl.store(target + offsets, tl.load(a + offsets, mask=mask), mask=mask)
            tdl.notify(signals + rank * SLOT, peer, signal=epoch, sig_op="set")
    else:
        tiles_n = tl.cdiv(N, BLOCK_N)
        tiles_m = tl.cdiv(n * M_LOCAL, BLOCK_M)
        tiles_per_pe = tl.cdiv(M_LOCAL, BLOCK_M)
        for tile in range(pid - PRODUCERS, tiles_m * tiles_n, CONSUMERS):
            pid_m = tile // tiles_n
            pid_n = tile % tiles_n
            pid_m = (pid_m + rank * tiles_per_pe) % tiles_m  # the seed's swizzle: own rows first
            rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
            cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
            source = (pid_m * BLOCK_M) // M_LOCAL  # the PE whose rows this tile reads (BLOCK_M divides M_LOCAL)
            token = tdl.wait(signals + source * SLOT, 1, "sys", "acquire", epoch)
            rows_of_a = tdl.consume_token(gathered, token)
            accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k in range(0, K, BLOCK_K):
                ks = k + tl.arange(0, BLOCK_K)
                tile_a = tl.load(rows_of_a + rows[:, None] * K + ks[None, :], mask=ks[None, :] < K, other=0.0)
                tile_b = tl.load(b + ks[:, None] * N + cols[None, :],
                                 mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
                accumulator = tl.dot(tile_a, tile_b, accumulator)
            tl.store(c + rows[:, None] * N + cols[None, :], accumulator.to(c.dtype.element_ty),
                     mask=cols[None, :] < N)


def rows_of(torch, pe, m, k):
    """PE pe's rows of A: small integers over 8, exact in fp16 and in every sum of products here."""
    index = torch.arange(m * k, dtype=torch.int64).reshape(m, k)
    return (((index * 5 + pe * 3) % 9) - 4).to(torch.float16) / 8


def main():
    parser = argparse.ArgumentParser(description="AllGather + GEMM as one Triton kernel with tdist.language")
    parser.add_argument("--m", type=int, default=1024, help="rows of A per PE (a multiple of --block-m)")
    parser.add_argument("--k", type=int, default=1024)
    parser.add_argument("--n", type=int, default=1024)
    parser.add_argument("--block-m", type=int, default=128)
    parser.add_argument("--block-n", type=int, default=128)
    parser.add_argument("--block-k", type=int, default=64)
    parser.add_argument("--producers", type=int, default=2)
    parser.add_argument("--calls", type=int, default=3)
    options = parser.parse_args()
    import torch
    import tdist

    tdist.init()
    me, n = tdist.my_pe(), tdist.n_pes()
    m, k, cols = options.m, options.k, options.n
    heap = [tdist.zeros((m, k), "float16"), tdist.zeros((n * m, k), "float16"), tdist.zeros(n * SLOT_WORDS, "uint64")]
    a, gathered, signals = (torch.from_dlpack(t) for t in heap)
    b = ((torch.arange(k * cols, device="cuda").reshape(k, cols) % 7) - 3).to(torch.float16) / 4
    c = torch.empty((n * m, cols), dtype=torch.float16, device="cuda")
    expected = (torch.cat([rows_of(torch, pe, m, k) for pe in range(n)]).cuda().float() @ b.float()).half()
    tiles = triton.cdiv(n * m, options.block_m) * triton.cdiv(cols, options.block_n)
    programs, consumers = grid(torch, tiles, options.producers)
    ok = True
    for epoch in range(1, options.calls + 1):
        a.copy_(rows_of(torch, me, m, k))
        c.zero_()
        torch.cuda.synchronize()
        tdist.barrier_all()
        allgather_gemm[(programs,)](a, b, c, gathered, signals, epoch, m, k, cols, consumers,
                                    PRODUCERS=options.producers, BLOCK_M=options.block_m, BLOCK_N=options.block_n,
                                    BLOCK_K=options.block_k, COPY=4096)
        torch.cuda.synchronize()
        ok = ok and torch.equal(c, expected)
    print(f"allgather_gemm: PE {me} of {n}, [{n * m} x {k}] x [{k} x {cols}], {options.calls} calls: "
          f"{'correct' if ok else 'WRONG'}", flush=True)
    tdist.barrier_all()
    for t in heap:
        tdist.free_tensor(t)
    tdist.finalize()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
