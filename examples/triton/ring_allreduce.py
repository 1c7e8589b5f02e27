"""Ring AllReduce (sum) as a Triton kernel with tdist.language: seed 000's ring, with the
corrections examples/ir/ring_allreduce.mlir documents (each step reduces the chunk it received;
each (step, program) pair has its own signal, set to the call's epoch; program p owns slice p of
every chunk; each of the 2 (n - 1) steps has its own staging chunk). Every PE runs it:

    tdist-run --backend cuda -n 2 -- python3 examples/triton/ring_allreduce.py [--programs 4] [--chunk 65536]

data: n * chunk floats on the symmetric heap (in and out); staging: 2 (n - 1) chunks; signals:
2 (n - 1) * programs slots, 64 bytes apart (uint64), zero before the first call. A call's epoch
is 1, then 2, 3, ...; the caller separates two calls with a barrier (the staging is reused).
Checked against the sum of every PE's input, computed by torch on each PE.
"""

import argparse
import sys

import triton
import triton.language as tl

import tdist.language as tdl

SLOT_WORDS = 8  # uint64 words between two signals: 64 bytes
SLOT = tl.constexpr(SLOT_WORDS)  # the same, for the kernel


@tdl.jit
def ring_allreduce(data, staging, signals, epoch, CHUNK: tl.constexpr, TILE: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    rank = tdl.rank()
    n = tdl.num_ranks()
    nxt = (rank + 1) % n
    offsets = pid * TILE + tl.arange(0, TILE)
    remote_staging = tdl.symm_at(staging, nxt)
    # Reduce-scatter: step s sends chunk (rank - s), receives chunk (rank - s - 1) and adds it.
    for s in range(0, n - 1):
        send = (rank - s + n) % n
        recv = (rank - s - 1 + n) % n
        tl.store(remote_staging + s * CHUNK + offsets, tl.load(data + send * CHUNK + offsets))
        signal = signals + (s * programs + pid) * SLOT
        tdl.notify(signal, nxt, signal=epoch, sig_op="set")
        token = tdl.wait(signal, 1, "sys", "acquire", epoch)
        incoming = tl.load(tdl.consume_token(staging, token) + s * CHUNK + offsets)
        mine = tl.load(data + recv * CHUNK + offsets)
        tl.store(data + recv * CHUNK + offsets, mine + incoming)
    # All-gather: this PE holds the sum of chunk (rank + 1); step s sends chunk (rank + 1 - s) and
    # receives chunk (rank - s).
    for s in range(0, n - 1):
        step = n - 1 + s
        send = (rank + 1 - s + n) % n
        recv = (rank - s + n) % n
        tl.store(remote_staging + step * CHUNK + offsets, tl.load(data + send * CHUNK + offsets))
        signal = signals + (step * programs + pid) * SLOT
        tdl.notify(signal, nxt, signal=epoch, sig_op="set")
        token = tdl.wait(signal, 1, "sys", "acquire", epoch)
        tl.store(data + recv * CHUNK + offsets, tl.load(tdl.consume_token(staging, token) + step * CHUNK + offsets))


def inputs(torch, pe, count):
    """PE pe's input: multiples of 1/4 in -2..2, so that every sum is exact."""
    index = torch.arange(count, dtype=torch.int64)
    return ((index * 7 + pe * 13) % 17 - 8).to(torch.float32) * 0.25


def main():
    parser = argparse.ArgumentParser(description="Ring AllReduce as a Triton kernel with tdist.language")
    parser.add_argument("--programs", type=int, default=4)
    parser.add_argument("--chunk", type=int, default=65536, help="floats per PE's chunk (a multiple of programs)")
    parser.add_argument("--calls", type=int, default=3)
    options = parser.parse_args()
    import torch
    import tdist

    tdist.init()
    me, n = tdist.my_pe(), tdist.n_pes()
    steps = 2 * max(n - 1, 1)
    heap = [tdist.zeros(n * options.chunk, "float32"), tdist.zeros(steps * options.chunk, "float32"),
            tdist.zeros(steps * options.programs * SLOT_WORDS, "uint64")]
    data, staging, signals = (torch.from_dlpack(t) for t in heap)
    expected = sum(inputs(torch, pe, n * options.chunk) for pe in range(n)).cuda()
    ok = True
    for epoch in range(1, options.calls + 1):
        data.copy_(inputs(torch, me, n * options.chunk))
        torch.cuda.synchronize()
        tdist.barrier_all()  # every PE's data is in place, and the previous call is over everywhere
        ring_allreduce[(options.programs,)](data, staging, signals, epoch, CHUNK=options.chunk,
                                            TILE=options.chunk // options.programs)
        torch.cuda.synchronize()
        ok = ok and torch.equal(data, expected)
    print(f"ring_allreduce: PE {me} of {n}, {options.calls} calls of {n * options.chunk} floats: "
          f"{'correct' if ok else 'WRONG'}", flush=True)
    tdist.barrier_all()
    for t in heap:
        tdist.free_tensor(t)
    tdist.finalize()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
