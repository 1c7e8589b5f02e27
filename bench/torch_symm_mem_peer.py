#!/usr/bin/env python3
"""torch_symm_mem_peer.py - the peer column of tdist-bench's cuda cases, through PyTorch symmetric memory.

    python3 bench/torch_symm_mem_peer.py --case cuda-pingpong cuda-barrier cuda-put-bw

Starts --pes processes (torch.multiprocessing spawn) on the GPUs of this host, several on one GPU
when there are fewer GPUs (run it under MPS: without MPS the processes' kernels time-slice and every
row is ~ms). Process group gloo: NCCL refuses two ranks on one GPU. Every buffer comes from
torch.distributed._symmetric_memory (empty + rendezvous); a peer's copy from get_buffer.

Rows, named as tdist-bench's (docs/BENCHMARKS.md, "cuda backend on one H200", says what each
compares with):
  cuda-pingpong path=kernel   one persistent Triton kernel per rank (one warp): st.release.sys of
                              the sequence number into the peer's int64 slot of the symmetric
                              buffer, ld.acquire.sys spin on its own slot (with a deadline, the
                              clock read every poll); globaltimer around `iters` round trips
                              after one untimed lead-in exchange. torch's own signal pad has no
                              device call for user kernels outside Triton; this is its buffer
  cuda-pingpong path=stream   SymmetricMemory.put_signal(peer) + wait_signal(peer) on the stream
                              (torch's signal pad: one kernel per call, CAS 0->1 on the peer's pad,
                              CAS 1->0 on one's own); host time from the first enqueue to the
                              stream's end, per round trip. torch has no stream memory operations
                              for waits, so this is kernels where tdist uses cuStreamWaitValue
  cuda-barrier path=stream op=barrier   SymmetricMemory.barrier(): one kernel per barrier; host
                              time per barrier, enqueue included. (torch has no device-side
                              barrier a user kernel can call: the kernel rows are tdist's only)
  cuda-put-bw path=memcpy     dst.copy_(src) between two private device tensors (cudaMemcpyAsync)
  cuda-put-bw path=sm         a Triton copy kernel (16-byte loads and stores) into the peer buffer
  cuda-put-bw path=ce         peer_buffer.copy_(src): torch's contiguous same-dtype copy, which is
                              cudaMemcpyAsync, i.e. the copy engine
  cuda-put-bw ratio=...       per repeat, a put's GB/s over memcpy's of the same repeat
  cuda-allreduce-graph variant=one-shot|two-shot   torch.ops.symm_mem.one_shot_all_reduce (out of
                              place) / two_shot_all_reduce_ (in place) of a symmetric bf16 buffer,
                              --graph-ops calls captured in one torch.cuda.graph, replayed --iters
                              times a repeat (10) between two events; GPU time per call, 8K..2M
                              unless --min-size/--max-size. As tdist-bench's case of that name
Bandwidth: bytes moved (size x iterations) over CUDA-event time; latency: µs per round trip or
barrier; median, min, max over --repeats. Rank 0 prints RESULT lines (impl=torch) and the table.
"""

import argparse
import functools
import os
import statistics
import sys
import time

from torch_peer_common import enable_symm_mem, format_bytes, free_port, int_in, size_in  # sets FORCED_ENV, before torch

parse_size = size_in(1, 1 << 40)

CASES = ("cuda-pingpong", "cuda-barrier", "cuda-put-bw", "cuda-allreduce-graph")
ALL_CASES = ("cuda-pingpong", "cuda-barrier", "cuda-put-bw")  # what "all" runs
MAX_GPU_PUT_ITERS = 20000  # as tdist-bench: small sizes are launch-bound, more copies add nothing
WAIT_TIMEOUT_NS = 30 * 10**9  # a Triton wait gives up after this; the row then fails


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--case", nargs="+", required=True, choices=CASES + ("all",),
                   help="cases to run, in this order (all = the first three)")
    p.add_argument("--pes", type=int_in(2, 64), default=2, help="processes (2)")
    p.add_argument("--repeats", type=int_in(1, 1000), default=5, help="timed repeats (5)")
    p.add_argument("--iters", type=int_in(1, 10**8), default=0,
                   help="iterations per repeat (latency 10000; put: --gpu-bytes/size, 2..20000)")
    p.add_argument("--warmup", type=int_in(0, 10**8), default=-1,
                   help="untimed iterations first (one repeat's worth)")
    p.add_argument("--min-size", type=parse_size, default=None,
                   help="smallest size (put 4K; cuda-allreduce-graph 8K)")
    p.add_argument("--max-size", type=parse_size, default=None,
                   help="largest size (put 1G; cuda-allreduce-graph 2M)")
    p.add_argument("--graph-ops", type=int_in(1, 1000), default=20,
                   help="cuda-allreduce-graph: calls captured per graph (20)")
    p.add_argument("--size-factor", type=int_in(2, 1024), default=4, help="next size / size (4)")
    p.add_argument("--gpu-bytes", type=parse_size, default=4 << 30,
                   help="bytes per put repeat when --iters is not given (4G)")
    p.add_argument("--no-table", action="store_true", help="RESULT lines only")
    args = p.parse_args(argv)
    args.graph_min_size = args.min_size if args.min_size is not None else 8 << 10
    args.graph_max_size = args.max_size if args.max_size is not None else 2 << 20
    args.min_size = args.min_size if args.min_size is not None else 4 << 10
    args.max_size = args.max_size if args.max_size is not None else 1 << 30
    if args.min_size > args.max_size or args.graph_min_size > args.graph_max_size:
        p.error("--min-size must be at most --max-size")
    cases = []
    for c in args.case:
        for name in ALL_CASES if c == "all" else (c,):
            if name not in cases:
                cases.append(name)
    args.case = cases
    return args


def latency_iters(args):
    return args.iters if args.iters > 0 else 10000


def warmup_iters(args, iters):
    return args.warmup if args.warmup >= 0 else iters


def put_iters(args, size):
    if args.iters > 0:
        return args.iters
    return max(2, min(args.gpu_bytes // size, MAX_GPU_PUT_ITERS))


def put_sizes(args):
    size = args.min_size
    while size <= args.max_size:
        yield size
        size *= args.size_factor


# ---- output, as tdist-bench's report.cpp -----------------------------------------------------

class Reporter:
    UNITS = {"us": "us", "gbps": "GB/s", "ratio": "x"}

    def __init__(self, pes):
        self.pes = pes
        self.rows = []

    def add(self, case, variant, size, iters, unit, samples):
        if samples:
            row = (case, variant, size, iters, len(samples), unit,
                   statistics.median(samples), min(samples), max(samples))
            print(f"RESULT impl=torch case={case} {variant} pes={self.pes} size={size} iters={iters} "
                  f"repeats={len(samples)} median_{unit}={row[6]:.4f} min_{unit}={row[7]:.4f} "
                  f"max_{unit}={row[8]:.4f}", flush=True)
        else:
            row = (case, variant, size, iters, 0, unit, None, None, None)
        self.rows.append(row)

    def failed(self, case, variant, size, error):
        print(f"# {case} {variant} size={size}: failed: {error}", flush=True)
        self.rows.append((case, variant + " FAILED", size, 0, 0, "", None, None, None))

    def table(self):
        print(f"\n{'impl':<10} {'case':<13} {'variant':<26} {'pes':>4} {'size':>9} {'iters':>8} "
              f"{'median':>10} {'min':>10} {'max':>10} {'unit':>6}")
        for case, variant, size, iters, _, unit, med, lo, hi in self.rows:
            cells = [f"{v:>10.3f}" if v is not None else f"{'-':>10}" for v in (med, lo, hi)]
            print(f"{'torch':<10} {case:<13} {variant:<26} {self.pes:>4} {format_bytes(size):>9} "
                  f"{iters:>8} {' '.join(cells)} {self.UNITS.get(unit, unit):>6}", flush=True)


# ---- the worker ------------------------------------------------------------------------------

def worker(rank, args, port):
    import torch
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem

    world = args.pes
    # As tdist's TDIST_LOCAL_PE % devices: ranks share GPUs round robin.
    device = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(device)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    group = dist.group.WORLD
    error = enable_symm_mem(symm_mem, group.group_name)
    if error and rank == 0:
        print(f"# enable_symm_mem_for_group: {error}", flush=True)
    reporter = Reporter(world) if rank == 0 else None
    partner = rank ^ 1
    paired = partner < world
    first = rank % 2 == 0

    def symmetric(nbytes):
        buffer = symm_mem.empty(nbytes, dtype=torch.uint8, device=device)
        buffer.zero_()
        torch.cuda.synchronize()
        handle = symm_mem.rendezvous(buffer, group.group_name)
        dist.barrier()  # every rank's buffer is zero before anyone writes into it
        return buffer, handle

    def row(case, variant, size, body):
        """Runs body() on every rank; rank 0 reports (unit, iters, samples) or the failure."""
        try:
            result = body()
            error = None
        except Exception as e:  # a failed row must not stop the others
            result, error = None, f"{type(e).__name__}: {e}"
        dist.barrier()
        if rank == 0:
            if error is not None:
                reporter.failed(case, variant, size, error)
            elif result is not None:
                unit, iters, samples = result
                reporter.add(case, variant, size, iters, unit, samples)

    for case in args.case:
        if case == "cuda-pingpong":
            run_pingpong(args, rank, partner, paired, first, symmetric, row, torch, dist)
        elif case == "cuda-barrier":
            run_barrier(args, rank, symmetric, row, torch, dist)
        elif case == "cuda-put-bw":
            run_put(args, rank, world, symmetric, row, reporter, torch, dist)
        elif case == "cuda-allreduce-graph":
            run_allreduce_graph(args, rank, world, group, row, torch, dist, symm_mem)
    dist.barrier()
    if rank == 0 and not args.no_table:
        reporter.table()
    dist.destroy_process_group()


# ---- cuda-pingpong ---------------------------------------------------------------------------

@functools.cache
def triton_pingpong_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def global_timer():
        return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                                         is_pure=False, pack=1)

    @triton.jit
    def store_release(ptr, value):
        tl.inline_asm_elementwise("st.release.sys.global.u64 [$1], $2; mov.u32 $0, 0;", "=r,l,l",
                                  [ptr, value], dtype=tl.int32, is_pure=False, pack=1)

    @triton.jit
    def load_acquire(ptr):
        return tl.inline_asm_elementwise("ld.acquire.sys.global.u64 $0, [$1];", "=l,l", [ptr],
                                         dtype=tl.int64, is_pure=False, pack=1)

    @triton.jit
    def wait_ge(ptr, value, deadline):
        # Spin on an acquire load until the slot reaches value or the deadline passes; 1 if it did.
        seen = load_acquire(ptr)
        while (seen < value) & (global_timer() < deadline):
            seen = load_acquire(ptr)
        return (seen >= value).to(tl.int32)

    @triton.jit
    def relay(own, peer, base, count, deadline, FIRST: tl.constexpr):
        # Exchanges base+1 .. base+count; returns how many waits passed their deadline.
        missed = 0
        for i in range(1, count + 1):
            sequence = (base + i).to(tl.int64)
            if FIRST:
                store_release(peer, sequence)
                missed += 1 - wait_ge(own, sequence, deadline)
            else:
                missed += 1 - wait_ge(own, sequence, deadline)
                store_release(peer, sequence)
        return missed

    @triton.jit
    def pingpong(own, peer, out, base, lead_in, iters, timeout_ns, FIRST: tl.constexpr):
        # The lead-in exchange waits for the partner's kernel to start and stays out of the time.
        deadline = global_timer() + timeout_ns
        missed = relay(own, peer, base, lead_in, deadline, FIRST)
        begin = global_timer()
        missed += relay(own, peer, base + lead_in, iters, deadline, FIRST)
        tl.store(out, global_timer() - begin)
        tl.store(out + 1, missed.to(tl.int64))

    return pingpong


def run_pingpong(args, rank, partner, paired, first, symmetric, row, torch, dist):
    iters = latency_iters(args)
    warmup = warmup_iters(args, iters)
    buffer, handle = symmetric(4096)
    own = buffer[:8].view(torch.int64)
    peer = handle.get_buffer(partner, (1,), torch.int64) if paired else None
    out = torch.zeros(2, dtype=torch.int64, device=buffer.device)
    state = {"sequence": 0}

    def kernel_round_trips(lead_in, count):
        kernel = triton_pingpong_kernel()
        kernel[(1,)](own, peer, out, state["sequence"], lead_in, count, WAIT_TIMEOUT_NS,
                     FIRST=first, num_warps=1)
        state["sequence"] += lead_in + count
        torch.cuda.synchronize()
        elapsed_ns, missed = out.tolist()
        if missed:
            raise RuntimeError("a wait passed its deadline (is the partner running? MPS?)")
        return elapsed_ns / 1e3 / count if count else 0.0

    def kernel_body():
        samples = []
        if paired:
            if warmup:
                kernel_round_trips(warmup, 0)
            for _ in range(args.repeats):
                dist.barrier()
                samples.append(kernel_round_trips(1, iters))
        else:
            for _ in range(args.repeats):
                dist.barrier()
        return "us", iters, samples

    row("cuda-pingpong", "path=kernel", 8, kernel_body)

    timeout_ms = WAIT_TIMEOUT_NS // 10**6

    def signals(count):
        for _ in range(count):
            if first:
                handle.put_signal(partner, 0, timeout_ms)
                handle.wait_signal(partner, 0, timeout_ms)
            else:
                handle.wait_signal(partner, 0, timeout_ms)
                handle.put_signal(partner, 0, timeout_ms)

    def stream_body():
        samples = []
        if paired and warmup:
            signals(warmup)
            torch.cuda.synchronize()
        for _ in range(args.repeats):
            dist.barrier()
            if not paired:
                continue
            signals(1)
            torch.cuda.synchronize()
            begin = time.perf_counter()
            signals(iters)
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - begin) * 1e6 / iters)
        return "us", iters, samples

    row("cuda-pingpong", "path=stream", 8, stream_body)


# ---- cuda-barrier ----------------------------------------------------------------------------

def run_barrier(args, rank, symmetric, row, torch, dist):
    iters = latency_iters(args)
    warmup = warmup_iters(args, iters)
    _, handle = symmetric(4096)
    timeout_ms = WAIT_TIMEOUT_NS // 10**6

    def barriers(count):
        for _ in range(count):
            handle.barrier(0, timeout_ms)

    def body():
        barriers(warmup)
        torch.cuda.synchronize()
        samples = []
        for _ in range(args.repeats):
            dist.barrier()
            barriers(1)
            torch.cuda.synchronize()
            begin = time.perf_counter()
            barriers(iters)
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - begin) * 1e6 / iters)
        return "us", iters, samples

    row("cuda-barrier", "path=stream op=barrier", 0, body)


# ---- cuda-put-bw -----------------------------------------------------------------------------

@functools.cache
def triton_copy_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def copy(dst, src, n, BLOCK: tl.constexpr):
        # int32 elements, 4 per thread in a row: 16-byte accesses, as tdist's putmem_block.
        offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(dst + offsets, tl.load(src + offsets, mask=mask), mask=mask)

    return copy


COPY_BLOCK = 4096  # int32 per program: 16 KiB, 8 warps x 32 lanes x 16 elements


def run_put(args, rank, world, symmetric, row, reporter, torch, dist):
    import triton

    dest, handle = symmetric(args.max_size)
    if rank != 0:
        for size in put_sizes(args):
            for variant in ("path=memcpy", "path=sm", "path=ce", "ratio=sm/memcpy", "ratio=ce/memcpy"):
                row("cuda-put-bw", variant, size, lambda: None)
        return
    device = dest.device
    # Bytes 1..251 by position, as tdist-bench's pattern; 0 is the poison.
    source = (torch.arange(args.max_size, device=device, dtype=torch.int64) % 251 + 1).to(torch.uint8)
    reference = torch.empty(args.max_size, dtype=torch.uint8, device=device)
    peer = handle.get_buffer(1, (args.max_size,), torch.uint8)
    copy_kernel = triton_copy_kernel()
    stream = torch.cuda.current_stream()

    def enqueue(path, size):
        if path == "memcpy":
            reference[:size].copy_(source[:size])
        elif path == "ce":
            peer[:size].copy_(source[:size])
        else:
            n = size // 4
            copy_kernel[(triton.cdiv(n, COPY_BLOCK),)](peer[:size].view(torch.int32),
                                                      source[:size].view(torch.int32), n,
                                                      BLOCK=COPY_BLOCK, num_warps=8)

    def check(path, size):
        target = reference if path == "memcpy" else peer
        target[:size].zero_()
        enqueue(path, size)
        torch.cuda.synchronize()
        wrong = int((target[:size] != source[:size]).sum())
        if wrong:
            raise RuntimeError(f"{wrong} of {size} bytes wrong after one copy")

    def timed(path, size, iters):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record(stream)
        for _ in range(iters):
            enqueue(path, size)
        end.record(stream)
        end.synchronize()
        return size * iters / (begin.elapsed_time(end) * 1e-3) / 1e9

    paths = ("memcpy", "sm", "ce")
    for size in put_sizes(args):
        iters = put_iters(args, size)
        gbps = {}

        def measure():
            if size % 16:
                raise ValueError("the Triton copy needs sizes that are multiples of 16 bytes")
            for path in paths:
                check(path, size)
                for _ in range(warmup_iters(args, iters)):
                    enqueue(path, size)
            torch.cuda.synchronize()
            for path in paths:
                gbps[path] = []
            # The three alternate repeat by repeat, so that each ratio compares the same minute.
            for _ in range(args.repeats):
                for path in paths:
                    gbps[path].append(timed(path, size, iters))

        try:
            measure()
            error = None
        except Exception as e:
            error = f"{type(e).__name__}: {e}"
        for path in paths:
            row("cuda-put-bw", f"path={path}", size,
                (lambda p=path: _raise(error) if error else ("gbps", iters, gbps[p])))
        for path in ("sm", "ce"):
            row("cuda-put-bw", f"ratio={path}/memcpy", size,
                (lambda p=path: _raise(error) if error else
                 ("ratio", iters, [a / b for a, b in zip(gbps[p], gbps["memcpy"])])))


# ---- cuda-allreduce-graph --------------------------------------------------------------------

GRAPH_REPLAYS = 10


def run_allreduce_graph(args, rank, world, group, row, torch, dist, symm_mem):
    device = torch.device("cuda", torch.cuda.current_device())
    replays = args.iters if args.iters > 0 else GRAPH_REPLAYS
    size = args.graph_min_size
    while size <= args.graph_max_size:
        count = size // 2  # bf16
        buffer = symm_mem.empty(count, dtype=torch.bfloat16, device=device)
        symm_mem.rendezvous(buffer, group.group_name)
        # Multiples of 1/4 in -2..2 as tdist-bench's: every sum is exact in bf16.
        index = torch.arange(count, device=device, dtype=torch.int64)

        def values(pe):
            return (((index * 7 + pe * 13) % 17 - 8).to(torch.float32) * 0.25).to(torch.bfloat16)

        expected = sum(values(pe).float() for pe in range(world)).to(torch.bfloat16)
        ops = {
            "one-shot": lambda: torch.ops.symm_mem.one_shot_all_reduce(buffer, "sum", group.group_name),
            "two-shot": lambda: torch.ops.symm_mem.two_shot_all_reduce_(buffer, "sum", group.group_name),
        }
        graphs, samples = {}, {}

        def measure():
            for name, op in ops.items():
                buffer.copy_(values(rank))
                torch.cuda.synchronize()
                dist.barrier()
                out = op()
                torch.cuda.synchronize()
                if not torch.equal(out, expected):
                    raise RuntimeError(f"{name}: wrong sum after one call")
                dist.barrier()
                buffer.copy_(values(rank))
                torch.cuda.synchronize()
                dist.barrier()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    for _ in range(args.graph_ops):
                        op()
                torch.cuda.synchronize()
                dist.barrier()
                graph.replay()  # warm-up
                torch.cuda.synchronize()
                graphs[name], samples[name] = graph, []
            stream = torch.cuda.current_stream()
            for _ in range(args.repeats):
                for name in ops:
                    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    dist.barrier()
                    begin.record(stream)
                    for _ in range(replays):
                        graphs[name].replay()
                    end.record(stream)
                    end.synchronize()
                    samples[name].append(begin.elapsed_time(end) * 1e3 / (replays * args.graph_ops))

        try:
            measure()
            error = None
        except Exception as e:
            error = f"{type(e).__name__}: {e}"
        # Rank 0 reports the slowest rank's sample per repeat, as tdist-bench does.
        for name in ops:
            mine = torch.tensor(samples.get(name, []) or [0.0] * args.repeats, dtype=torch.float64)
            gathered = [torch.zeros_like(mine) for _ in range(world)]
            dist.all_gather(gathered, mine)
            slowest = torch.stack(gathered).max(dim=0).values.tolist()
            row("cuda-allreduce-graph", f"variant={name} dtype=bf16 graph_ops={args.graph_ops}", size,
                (lambda s=slowest: _raise(error) if error else ("us", replays * args.graph_ops, s)))
        graphs.clear()
        del buffer
        torch.cuda.synchronize()
        dist.barrier()
        size *= args.size_factor


def _raise(message):
    raise RuntimeError(message)


# ---- the launch ------------------------------------------------------------------------------

def main(argv):
    args = parse_args(argv)
    import torch
    import torch.multiprocessing as mp

    if not torch.cuda.is_available():
        print("torch_symm_mem_peer: no CUDA device", file=sys.stderr)
        return 77
    print(f"# torch_symm_mem_peer pes={args.pes} repeats={args.repeats} torch={torch.__version__} "
          f"gpus={torch.cuda.device_count()} mps_pipe={os.environ.get('CUDA_MPS_PIPE_DIRECTORY', '-')}",
          flush=True)
    mp.spawn(worker, args=(args, free_port()), nprocs=args.pes, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
