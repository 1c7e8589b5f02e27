#!/usr/bin/env python3
"""torch_gemm_peers.py - the peers' column of tdist-bench's overlap GEMMs and all-reduce, in PyTorch.

    python3 bench/torch_gemm_peers.py --pes 8 --case ag-gemm gemm-rs allreduce

Starts --pes processes (torch.multiprocessing spawn), one per GPU when there are enough GPUs, several
on one GPU otherwise (run it under MPS then). Process group NCCL when every rank has a GPU of its
own; else gloo (NCCL refuses two ranks on one device): the rows that need NCCL print `SKIP case=...
reason=...`, the symmetric-memory rows still run. NVLink multicast stays off: NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1 are set before torch is imported.

Rows (RESULT impl=torch case=... variant=... m= n= k= pes= size= ..., named as tdist-bench's):
  ag-gemm  C [M, N] = all_gather(A) x B, M / pes rows of A per rank, bf16; size = one A shard's bytes
    torch-fused    torch.ops.symm_mem.fused_all_gather_matmul(A_shard, [B], 0, group_name,
                   return_A=False) (A_shard an ordinary tensor: the op stages it in its workspace)
    nccl-sequence  dist.all_gather_into_tensor, then torch.mm (cuBLAS)
    gemm, comm     torch.mm of the gathered A alone; the all-gather alone
    ideal          max(gemm, comm) of each repeat; ratio=fused/ideal, ratio=sequence/ideal
  gemm-rs  C = reduce_scatter(A x B) over M, K split over the ranks (A [M, K/pes], B [K/pes, N]);
           size = the bytes of one rank's partial C [M, N]
    torch-fused    torch.ops.symm_mem.fused_matmul_reduce_scatter(A, B, "sum", 0, group_name)
    nccl-sequence  torch.mm into the partial C, then dist.reduce_scatter_tensor
    gemm, comm, ideal, ratio=...  as above (comm: the reduce-scatter of the partial C alone)
  allreduce  bf16 sum of S bytes per rank: case=cuda-allreduce-graph, 8K..2M x4, --graph-ops calls
           in one torch.cuda.graph replayed --iters times a repeat (10), as tdist-bench's case;
           case=allreduce, 32M..256M x2, eager calls
    nccl / torch-one-shot / torch-two-shot   dist.all_reduce (in place, an ordinary tensor) /
           torch.ops.symm_mem.one_shot_all_reduce(buffer, "sum", group_name) /
           torch.ops.symm_mem.two_shot_all_reduce_(buffer, "sum", group_name) (in place)
Each row is checked once before it is timed, exactly (the inputs keep every sum exact in bf16).
Rows of one shape alternate within each repeat; a sample is a repeat's GPU time per call between
CUDA events after a barrier, the slowest rank's; median, min, max over --repeats. Rank 0 prints
RESULT lines and a table; a row that fails prints `FAILED case=... reason=...` and the others go on.
A hang is bounded by --timeout: the parent ends the ranks and exits 124.
"""

import argparse
import gc
import itertools
import os
import statistics
import sys
import time

from torch_peer_common import FORCED_ENV, enable_symm_mem, format_bytes, free_port, int_in, size_in  # sets FORCED_ENV, before torch

parse_size = size_in(16, 1 << 34, 16)

CASES = ("ag-gemm", "gemm-rs", "allreduce")
# The shapes of the comparison: (M rows in total, N, K in total), every combination of the lists.
DEFAULT_SHAPES = {
    "ag-gemm": {"m": [4096, 8192], "n": [8192, 14336], "k": [8192]},
    "gemm-rs": {"m": [4096, 8192], "n": [8192], "k": [8192, 14336]},
}
GEMM_ITERS, EAGER_ITERS, GRAPH_REPLAYS = 5, 10, 10


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--case", nargs="+", default=["all"], choices=CASES + ("all",),
                   help="cases to run, in this order (all, the default: the three)")
    p.add_argument("--pes", type=int_in(2, 64), default=2, help="processes (2)")
    p.add_argument("--repeats", type=int_in(1, 1000), default=5, help="timed repeats (5)")
    p.add_argument("--iters", type=int_in(1, 10**6), default=0,
                   help=f"calls per repeat (GEMMs {GEMM_ITERS}, eager all-reduce {EAGER_ITERS}; "
                        f"graph replays {GRAPH_REPLAYS})")
    p.add_argument("--warmup", type=int_in(0, 10**6), default=-1,
                   help="untimed calls per row first (one repeat's worth; graphs: 1 replay)")
    for dim, what in (("m", "rows of C in total"), ("n", "columns of C"), ("k", "inner dimension")):
        ag, rs = (DEFAULT_SHAPES[case][dim] for case in ("ag-gemm", "gemm-rs"))
        p.add_argument(f"--{dim}", nargs="+", type=int_in(1, 1 << 20), default=None,
                       help=f"ag-gemm/gemm-rs: {what}; a list takes every combination "
                            f"(ag-gemm {ag}, gemm-rs {rs})")
    p.add_argument("--graph-ops", type=int_in(1, 1000), default=20,
                   help="cuda-allreduce-graph: calls captured per graph (20)")
    p.add_argument("--graph-min-size", type=parse_size, default=8 << 10, help="graphed all-reduce from (8K)")
    p.add_argument("--graph-max-size", type=parse_size, default=2 << 20, help="... to (2M), x4")
    p.add_argument("--eager-min-size", type=parse_size, default=32 << 20, help="eager all-reduce from (32M)")
    p.add_argument("--eager-max-size", type=parse_size, default=256 << 20, help="... to (256M), x2")
    p.add_argument("--backend", choices=("auto", "nccl", "gloo"), default="auto",
                   help="process group: auto = nccl when every rank has a GPU of its own, else gloo")
    p.add_argument("--timeout", type=int_in(0, 86400), default=1200,
                   help="seconds before the parent ends a run that has not finished (1200; 0: never)")
    p.add_argument("--no-table", action="store_true", help="RESULT lines only")
    args = p.parse_args(argv)
    args.case = list(CASES) if "all" in args.case else list(dict.fromkeys(args.case))
    args.shapes = {}
    for case, defaults in DEFAULT_SHAPES.items():
        lists = [getattr(args, d) or defaults[d] for d in ("m", "n", "k")]
        args.shapes[case] = list(itertools.product(*lists))
        for m, _, k in args.shapes[case] if case in args.case else ():
            if m % args.pes or (case == "gemm-rs" and k % args.pes):
                p.error(f"{case}: M={m}" + (f" and K={k}" if case == "gemm-rs" else "") +
                        f" must be divisible by --pes {args.pes}")
    if args.graph_min_size > args.graph_max_size or args.eager_min_size > args.eager_max_size:
        p.error("a --*-min-size must be at most its --*-max-size")
    return args


def sizes(low, high, factor):
    while low <= high:
        yield low
        low *= factor


def describe(error):
    text = f"{type(error).__name__}: {error}".replace("\n", " ")
    return text if len(text) <= 400 else text[:397] + "..."


# ---- output, as tdist-bench's report.cpp ---------------------------------------------------------

class Reporter:
    UNITS = {"us": "us", "ratio": "x"}

    def __init__(self, pes):
        self.pes = pes
        self.rows = []

    def add(self, case, variant, size, iters, unit, samples):
        med, low, high = statistics.median(samples), min(samples), max(samples)
        print(f"RESULT impl=torch case={case} {variant} pes={self.pes} size={size} iters={iters} "
              f"repeats={len(samples)} median_{unit}={med:.4f} min_{unit}={low:.4f} "
              f"max_{unit}={high:.4f}", flush=True)
        self.rows.append((case, variant, size, iters, unit, med, low, high))

    def failed(self, case, variant, size, reason, word="FAILED"):
        print(f"{word} case={case} {variant} impl=torch pes={self.pes} size={size} reason={reason}",
              flush=True)
        self.rows.append((case, f"{variant} {word}", size, 0, "", None, None, None))

    def skip(self, case, variant, size, reason):
        self.failed(case, variant, size, reason, "SKIP")

    def table(self):
        print(f"\n{'impl':<6} {'case':<20} {'variant':<54} {'pes':>4} {'size':>9} {'iters':>6} "
              f"{'median':>10} {'min':>10} {'max':>10} {'unit':>5}")
        for case, variant, size, iters, unit, med, low, high in self.rows:
            cells = " ".join(f"{v:>10.3f}" if v is not None else f"{'-':>10}" for v in (med, low, high))
            print(f"{'torch':<6} {case:<20} {variant:<54} {self.pes:>4} {format_bytes(size):>9} "
                  f"{iters:>6} {cells} {self.UNITS.get(unit, unit):>5}", flush=True)


# ---- one rank's side of the job ------------------------------------------------------------------

class Job:
    def __init__(self, rank, args, port, backend):
        from datetime import timedelta

        import torch
        import torch.distributed as dist
        import torch.distributed._symmetric_memory as symm_mem

        self.torch, self.dist, self.symm_mem = torch, dist, symm_mem
        self.rank, self.world, self.args = rank, args.pes, args
        self.nccl = backend == "nccl"
        self.no_nccl = "--backend gloo" if self.world <= torch.cuda.device_count() else \
            "ranks share a GPU (NCCL refuses two ranks on one device): the process group is gloo"
        # As tdist's TDIST_LOCAL_PE % devices: ranks share GPUs round robin.
        self.device = torch.device("cuda", rank % torch.cuda.device_count())
        torch.cuda.set_device(self.device)
        torch.backends.cuda.matmul.allow_tf32 = False  # the fp32 references stay exact
        dist.init_process_group(backend, init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                                world_size=self.world, timeout=timedelta(seconds=args.timeout or 3600))
        self.group_name = dist.group.WORLD.group_name
        self.reporter = Reporter(self.world) if rank == 0 else None
        error = enable_symm_mem(symm_mem, self.group_name)
        if error and rank == 0:  # e.g. registered by torch itself already
            print(f"# enable_symm_mem_for_group: {error}", flush=True)

    def barrier(self):
        """Every rank's GPU idle, then a host barrier."""
        self.torch.cuda.synchronize()
        if self.nccl:
            self.dist.barrier(device_ids=[self.device.index])
        else:
            self.dist.barrier()

    def gather(self, value):
        out = [None] * self.world
        self.dist.all_gather_object(out, value)
        return out

    def timed(self, call, iters):
        """us per call of `iters` calls, CUDA events on the current stream, from a barrier."""
        torch = self.torch
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        self.barrier()
        begin.record()
        for _ in range(iters):
            call()
        end.record()
        end.synchronize()
        return begin.elapsed_time(end) * 1e3 / iters


class Row:
    """One measured variant: call() runs it once; check() raises if its result is wrong; prepare()
    (graphs: the capture) runs after a passed check and may replace call."""

    def __init__(self, name, call, check, needs_nccl=False, prepare=None, ops=1):
        self.name, self.call, self.check, self.needs_nccl = name, call, check, needs_nccl
        self.prepare, self.ops = prepare, ops
        self.error, self.samples = None, []


def mismatch(got, expected):
    if tuple(got.shape) != tuple(expected.shape):
        return f"shape {tuple(got.shape)}, expected {tuple(expected.shape)}"
    wrong = (got != expected).flatten()
    count = int(wrong.sum())
    if count == 0:
        return None
    first = int(wrong.nonzero()[0])
    return (f"{count} of {got.numel()} elements wrong, the first at {first}: "
            f"{got.flatten()[first].item()}, expected {expected.flatten()[first].item()}")


def checked(job, call, expected, setup=None):
    """A check: setup(), a barrier, one call, its result against `expected` (raises if not)."""
    def check():
        if setup is not None:
            setup()
        job.barrier()
        result = call()
        job.torch.cuda.synchronize()
        error = mismatch(result, expected)
        if error:
            raise ValueError(error)
    return check


def agree(job, rows):
    """Every rank takes the errors of all: a row that failed anywhere is dropped everywhere."""
    for rank, errors in enumerate(job.gather([row.error for row in rows])):
        for row, error in zip(rows, errors):
            if error is not None and row.error is None:
                row.error = error if rank == job.rank else f"rank {rank}: {error}"


def attempt(function, *args):
    try:
        function(*args)
    except Exception as e:  # one row's failure must not stop the others
        return describe(e)
    return None


def run_rows(job, case, label, size, rows, iters, warmup):
    """Checks, prepares and warms up every row, then times the rows alternately, repeat by repeat.
    Rank 0 reports each; returns {name: the slowest rank's samples} of the rows that ran."""
    reporter = job.reporter
    live = [row for row in rows if job.nccl or not row.needs_nccl]
    for row in (row for row in rows if reporter and row not in live):
        reporter.skip(case, f"variant={row.name} {label}", size, job.no_nccl)

    def warm(row):
        job.barrier()
        for _ in range(warmup):
            row.call()

    for stage in (lambda row: row.check(), lambda row: row.prepare and row.prepare(), warm):
        for row in live:
            if row.error is None:
                row.error = attempt(stage, row)
        agree(job, live)
    ok = [row for row in live if row.error is None]
    for _ in range(job.args.repeats):
        for row in ok:
            if row.error is None:
                row.error = attempt(lambda r: r.samples.append(job.timed(r.call, iters) / r.ops), row)
    agree(job, ok)
    gathered = job.gather([row.samples for row in live])
    result = {}
    for i, row in enumerate(live):
        if row.error is not None:
            if reporter:
                reporter.failed(case, f"variant={row.name} {label}", size, row.error)
            continue
        slowest = [max(samples[i][r] for samples in gathered) for r in range(job.args.repeats)]
        result[row.name] = slowest
        if reporter:
            reporter.add(case, f"variant={row.name} {label}", size, iters * row.ops, "us", slowest)
    return result


def run_shape(job, case, label, size, build, iters, warmup):
    """build() makes the tensors and rows of one shape; a failure there (on any rank) fails the
    whole shape on every rank, so that no rank waits in a collective the others skip (None)."""
    rows = []
    error = attempt(lambda: rows.extend(build()))
    errors = [(r, e) for r, e in enumerate(job.gather(error)) if e is not None]
    if errors:
        if job.reporter:
            job.reporter.failed(case, f"variant=setup {label}", size, f"rank {errors[0][0]}: {errors[0][1]}")
        return None
    samples = run_rows(job, case, label, size, rows, iters, warmup)
    rows.clear()
    gc.collect()  # the rows' closures (graphs, symmetric buffers) hold references in cycles
    job.torch.cuda.empty_cache()
    job.barrier()
    return samples


def report_ideal(job, case, label, size, iters, samples):
    """ideal = max(gemm, comm) of each repeat, and the fused and sequence rows over it."""
    reporter = job.reporter
    if reporter is None:
        return
    names = [f"variant=ideal {label}", f"ratio=fused/ideal {label}", f"ratio=sequence/ideal {label}"]
    if "gemm" not in samples or "comm" not in samples:
        why = job.no_nccl if not job.nccl else "the gemm or comm row did not run"
        for name in names:
            reporter.skip(case, name, size, why)
        return
    ideal = [max(g, c) for g, c in zip(samples["gemm"], samples["comm"])]
    reporter.add(case, names[0], size, iters, "us", ideal)
    for name, row in zip(names[1:], ("torch-fused", "nccl-sequence")):
        if row in samples:
            reporter.add(case, name, size, iters, "ratio", [a / b for a, b in zip(samples[row], ideal)])
        else:
            reporter.skip(case, name, size, f"no {row} row")


# ---- the GEMM cases ------------------------------------------------------------------------------
# Inputs: A[r, c] = (3r + c) mod 5 - 2 and B[c, j] = (-1)^c ((c + 2j) mod 5 mod 2 + 1). Each term
# A[r, c] B[c, j] is the negative of the term at c + 5, so any 10 consecutive terms of a dot product
# sum to 0 and any run of them to at most 20 in magnitude: the full C, every rank's partial C (a
# run of K / pes terms) and the sum of up to 8 partials (at most 160) are integers bf16 holds
# exactly, whatever the order of the additions. The references are fp32 matmuls (exact here).

def a_matrix(torch, rows, cols, device):
    r = torch.arange(rows, device=device, dtype=torch.int32).view(-1, 1)
    c = torch.arange(cols, device=device, dtype=torch.int32).view(1, -1)
    return ((3 * r + c) % 5 - 2).float()


def b_matrix(torch, rows, cols, device):
    c = torch.arange(rows, device=device, dtype=torch.int32).view(-1, 1)
    j = torch.arange(cols, device=device, dtype=torch.int32).view(1, -1)
    return ((1 - 2 * (c % 2)) * ((c + 2 * j) % 5 % 2 + 1)).float()


def run_gemm_case(job, case, m, n, k, size, build):
    iters = job.args.iters or GEMM_ITERS
    warmup = job.args.warmup if job.args.warmup >= 0 else iters
    label = f"m={m} n={n} k={k}"
    samples = run_shape(job, case, label, size, build, iters, warmup)
    if samples is not None:
        report_ideal(job, case, label, size, iters, samples)


def run_ag_gemm(job, m, n, k):
    torch, dist = job.torch, job.dist
    rank, dev, bf16 = job.rank, job.device, job.torch.bfloat16
    rows_local = m // job.world
    extra = {}
    try:  # return_A (newer torch): the gathered A is not wanted back, as tdist's call passes none
        if "return_A" in str(torch.ops.symm_mem.fused_all_gather_matmul.default._schema):
            extra["return_A"] = False
    except (AttributeError, RuntimeError):  # no such op: the torch-fused row fails alone
        pass

    def build():
        a32, b32 = a_matrix(torch, m, k, dev), b_matrix(torch, k, n, dev)
        expected = torch.mm(a32, b32).to(bf16)
        a_full, b = a32.to(bf16), b32.to(bf16)
        del a32, b32
        shard = a_full[rank * rows_local:(rank + 1) * rows_local].contiguous()
        gathered = a_full.clone()
        c = torch.empty(m, n, dtype=bf16, device=dev)

        def fused():
            op = torch.ops.symm_mem.fused_all_gather_matmul
            return op(shard, [b], 0, job.group_name, **extra)[1][0]

        def gather():
            dist.all_gather_into_tensor(gathered, shard)
            return gathered

        def gemm():
            return torch.mm(gathered, b, out=c)

        def sequence():
            gather()
            return gemm()

        def clear():
            return gathered.zero_(), c.zero_()

        return [Row("torch-fused", fused, checked(job, fused, expected)),
                Row("gemm", gemm, checked(job, gemm, expected,
                                          setup=lambda: (gathered.copy_(a_full), c.zero_()))),
                Row("comm", gather, checked(job, gather, a_full, setup=clear), needs_nccl=True),
                Row("nccl-sequence", sequence, checked(job, sequence, expected, setup=clear),
                    needs_nccl=True)]

    run_gemm_case(job, "ag-gemm", m, n, k, rows_local * k * 2, build)


def run_gemm_rs(job, m, n, k):
    torch, dist = job.torch, job.dist
    rank, dev, bf16 = job.rank, job.device, job.torch.bfloat16
    k_local, m_block = k // job.world, m // job.world

    def build():
        a32, b32 = a_matrix(torch, m, k, dev), b_matrix(torch, k, n, dev)
        mine = slice(rank * k_local, (rank + 1) * k_local)
        expected = torch.mm(a32[rank * m_block:(rank + 1) * m_block], b32).to(bf16)
        partial_expected = torch.mm(a32[:, mine], b32[mine]).to(bf16)
        a, b = a32[:, mine].to(bf16).contiguous(), b32[mine].to(bf16).contiguous()
        del a32, b32
        partial = torch.empty(m, n, dtype=bf16, device=dev)
        out = torch.empty(m_block, n, dtype=bf16, device=dev)

        def fused():
            return torch.ops.symm_mem.fused_matmul_reduce_scatter(a, b, "sum", 0, job.group_name)

        def gemm():
            return torch.mm(a, b, out=partial)

        def scatter():
            dist.reduce_scatter_tensor(out, partial)
            return out

        def sequence():
            gemm()
            return scatter()

        def clear():
            return partial.zero_(), out.zero_()

        return [Row("torch-fused", fused, checked(job, fused, expected)),
                Row("gemm", gemm, checked(job, gemm, partial_expected, setup=clear)),
                Row("comm", scatter, checked(job, scatter, expected,
                                             setup=lambda: (partial.copy_(partial_expected), out.zero_())),
                    needs_nccl=True),
                Row("nccl-sequence", sequence, checked(job, sequence, expected, setup=clear),
                    needs_nccl=True)]

    run_gemm_case(job, "gemm-rs", m, n, k, m * n * 2, build)


# ---- all-reduce ----------------------------------------------------------------------------------

def run_allreduce(job):
    args = job.args
    for size in sizes(args.graph_min_size, args.graph_max_size, 4):
        allreduce_size(job, size, graphed=True)
    for size in sizes(args.eager_min_size, args.eager_max_size, 2):
        allreduce_size(job, size, graphed=False)


def allreduce_size(job, size, graphed):
    torch, dist, symm_mem, args = job.torch, job.dist, job.symm_mem, job.args
    dev, bf16, name = job.device, job.torch.bfloat16, job.group_name
    count = size // 2
    case = "cuda-allreduce-graph" if graphed else "allreduce"
    label = f"dtype=bf16 graph_ops={args.graph_ops}" if graphed else "dtype=bf16"
    iters = args.iters or (GRAPH_REPLAYS if graphed else EAGER_ITERS)
    warmup = args.warmup if args.warmup >= 0 else (1 if graphed else iters)

    def values(rank):
        # Multiples of 1/4 in -1.5..1.5: the sum of up to 64 ranks is exact in bf16.
        i = torch.arange(count, device=dev, dtype=torch.int64)
        return (((i * 5 + rank * 11) % 13 - 6).float() * 0.25).to(bf16)

    def build():
        symmetric = symm_mem.empty(count, dtype=bf16, device=dev)
        symm_mem.rendezvous(symmetric, name)
        plain = torch.empty(count, dtype=bf16, device=dev)
        mine = values(job.rank)
        expected = sum(values(r).float() for r in range(job.world)).to(bf16)

        def nccl():
            dist.all_reduce(plain)
            return plain

        ops = (("nccl", nccl, plain, True),
               ("torch-one-shot", lambda: torch.ops.symm_mem.one_shot_all_reduce(symmetric, "sum", name),
                symmetric, False),
               ("torch-two-shot", lambda: torch.ops.symm_mem.two_shot_all_reduce_(symmetric, "sum", name),
                symmetric, False))
        rows = []
        for variant, op, source, needs_nccl in ops:
            row = Row(variant, op, checked(job, op, expected, setup=lambda s=source: s.copy_(mine)),
                      needs_nccl=needs_nccl, ops=args.graph_ops if graphed else 1)
            if graphed:
                row.prepare = lambda r=row, o=op, s=source: capture(job, r, o, s, mine)
            rows.append(row)
        return rows

    run_shape(job, case, label, size, build, iters, warmup)


def capture(job, row, op, source, mine):
    """--graph-ops calls of op in one CUDA graph; the row's call becomes one replay."""
    torch = job.torch
    source.copy_(mine)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(job.args.graph_ops):
            op()
    torch.cuda.synchronize()
    row.call = graph.replay


# ---- the launch ----------------------------------------------------------------------------------

def worker(rank, args, port, backend):
    job = Job(rank, args, port, backend)
    try:
        for case in args.case:
            if case == "allreduce":
                run_allreduce(job)
            for m, n, k in args.shapes.get(case, ()):
                (run_ag_gemm if case == "ag-gemm" else run_gemm_rs)(job, m, n, k)
        job.barrier()
        if job.reporter and not args.no_table:
            job.reporter.table()
    finally:
        job.dist.destroy_process_group()


def main(argv):
    args = parse_args(argv)
    try:
        import torch
        import torch.multiprocessing as mp
    except ImportError as e:
        print(f"torch_gemm_peers: PyTorch cannot be imported: {e}", file=sys.stderr)
        return 77

    if not torch.cuda.is_available():
        print("torch_gemm_peers: no CUDA device", file=sys.stderr)
        return 77
    gpus = torch.cuda.device_count()
    backend = args.backend if args.backend != "auto" else ("nccl" if gpus >= args.pes else "gloo")
    if backend == "nccl" and gpus < args.pes:
        print(f"torch_gemm_peers: --backend nccl needs a GPU per rank ({gpus} GPUs, --pes {args.pes})",
              file=sys.stderr)
        return 2
    print(f"# torch_gemm_peers pes={args.pes} backend={backend} gpus={gpus} repeats={args.repeats} "
          f"torch={torch.__version__} cases={','.join(args.case)} "
          f"mps_pipe={os.environ.get('CUDA_MPS_PIPE_DIRECTORY', '-')} "
          + " ".join(f"{k}={v}" for k, v in FORCED_ENV.items()), flush=True)
    context = mp.start_processes(worker, args=(args, free_port(), backend), nprocs=args.pes,
                                 join=False, start_method="spawn")
    deadline = time.monotonic() + args.timeout if args.timeout else None
    try:
        while not context.join(timeout=2):
            if deadline is not None and time.monotonic() > deadline:
                print(f"torch_gemm_peers: not finished after --timeout {args.timeout} s; ending the ranks",
                      file=sys.stderr, flush=True)
                for process in context.processes:
                    if process.is_alive():
                        process.kill()
                for process in context.processes:
                    process.join(10)
                return 124
    except Exception as e:  # a rank raised or died: join has ended the others
        print(f"torch_gemm_peers: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
