#!/usr/bin/env python3
"""triton_kernels.py - Triton kernels written with tdist.language beside what tdist runs from CUDA
C++ and what torch runs, in the same processes, on the cuda backend.

    tdist-run --backend cuda -n 2 -- python3 bench/triton_kernels.py [--case ag-gemm pingpong allreduce]
        [--m 4096,8192] [--k 8192] [--n 8192] [--repeats 5] [--calls 10]

ag-gemm: C [M, N] = all_gather(A) x B, bf16, M / n_pes rows of A per PE; side by side per M:
    triton       examples/triton/allgather_gemm.py's kernel (producers and tl.dot consumers in one
                 persistent grid of this PE's share of the SMs)
    decomposed   tdist.kernels.all_gather_gemm(strategy="decomposed") (C++: pushes, then cuBLASLt per chunk)
    fused        tdist.kernels.all_gather_gemm(strategy="fused") (C++: one persistent kernel)
    torch        torch.ops.symm_mem.fused_all_gather_matmul (process group gloo, rendezvous on the heap)
  each checked once against torch.mm of the gathered rows (exact: small integers over 8 and 4), then
  timed call by call between CUDA events after a barrier and a 100 us GPU lead-in (the call is
  enqueued while it runs: the launch's host cost is left out); a sample is the slowest PE's median over
  --calls calls of a repeat; the table gives the median over --repeats and each ratio to triton.
pingpong: a signal's round trip between two PEs in one Triton program (tdist.language.shmem's
  signal_op Set, signal_wait_until GE, a monotone sequence), timed inside the kernel by the GPU's
  global timer as tdist-bench's cuda-pingpong times its CUDA C++ kernel (path=kernel), which
  bench/triton_compare.sh runs in the same job sequence.
allreduce: examples/triton/ring_allreduce.py's ring (f32; 256 KiB, 1 MiB, 2 MiB per PE; blocks of
  8192 floats of each chunk, at most 32 programs, each of which waits for its peer's), timed as
  tdist-bench's cuda-ring-allreduce times the same ring in CUDA C++ (bench/triton_compare.sh runs
  both), beside tdist.kernels.all_reduce's two-shot (another algorithm, for scale).

PE 0 prints one table per case and RESULT lines (impl=... case=... median_us=...) for scripts.
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_peer_common  # noqa: E402,F401  (NVLink multicast off before torch is imported)

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import tdist.language as tdl  # noqa: E402
import tdist.language.shmem as shmem  # noqa: E402


@triton.jit
def global_timer():
    """The GPU's global timer (ns), as tdist-bench's CUDA C++ kernels read it."""
    return tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.uint64, is_pure=False, pack=1)


@triton.jit
def lead_in_kernel(ns):
    """Keeps the GPU busy for ns of the global timer, while the host enqueues what is timed after it."""
    begin = global_timer()
    while global_timer() - begin < ns:
        pass


LEAD_IN_NS = 100_000  # as tdist-bench's cuda-ring-allreduce: longer than a Triton launch from Python


@tdl.jit
def pingpong(slot, elapsed, partner, first, base, lead_in, iters):
    """lead_in + iters exchanges of a monotone sequence with partner; elapsed: the timed iters' ns."""
    begin = global_timer()
    for i in range(1, lead_in + iters + 1):
        if i == lead_in + 1:
            begin = global_timer()
        sequence = (base + i).to(tl.uint64)
        if first:
            shmem.signal_op(slot, sequence, "set", partner)
            shmem.signal_wait_until(slot, "ge", sequence)
        else:
            shmem.signal_wait_until(slot, "ge", sequence)
            shmem.signal_op(slot, sequence, "set", partner)
    tl.store(elapsed, global_timer() - begin)


def load_example(name):
    import importlib.util
    path = os.path.join(HERE, "..", "examples", "triton", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"tdist_example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sizes(text):
    return [int(s) for s in text.split(",")]


class Job:
    """The torch side of the job: a gloo group whose port PE 0 passes through the heap."""

    def __init__(self, torch, tdist, need_group):
        self.torch, self.tdist = torch, tdist
        self.me, self.n = tdist.my_pe(), tdist.n_pes()
        self.group = None
        if need_group:
            import torch.distributed as dist
            sys.path.insert(0, HERE)
            from python_graph_allreduce import rendezvous_port
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{rendezvous_port()}", rank=self.me,
                                    world_size=self.n)
            self.group = dist.group.WORLD.group_name

    def slowest(self, samples):
        """Per repeat, the largest of every PE's sample (through the heap)."""
        torch, tdist = self.torch, self.tdist
        cell = tdist.zeros(len(samples), "float64")
        torch.from_dlpack(cell).copy_(torch.tensor(samples, dtype=torch.float64))
        torch.cuda.synchronize()
        tdist.barrier_all()
        rows = [torch.from_dlpack(tdist.peer(cell, pe)).cpu() for pe in range(self.n)]
        tdist.barrier_all()
        tdist.free_tensor(cell)
        return torch.stack(rows).max(dim=0).values.tolist()

    def time_calls(self, call, calls, repeats):
        """Per repeat, the median over calls of one call's GPU time (µs) after a barrier and a GPU
        lead-in (the call is enqueued while the lead-in runs: a launch's host cost, a Triton launch
        from Python's above all, is left out, as it is for the CUDA C++ kernels); the slowest PE's."""
        torch = self.torch
        medians = []
        for _ in range(repeats):
            times = []
            for _ in range(calls):
                begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda.synchronize()
                self.tdist.barrier_all()
                lead_in_kernel[(1,)](LEAD_IN_NS, num_warps=1)
                begin.record()
                call()
                end.record()
                end.synchronize()
                times.append(begin.elapsed_time(end) * 1e3)
            medians.append(statistics.median(times))
        return self.slowest(medians)

    def check(self, calls, prepare, result_of, expected, what):
        """One call of each, after prepare(name) and a barrier: result_of(name, its return) must
        equal expected exactly."""
        torch = self.torch
        for name, call in calls.items():
            prepare(name)
            torch.cuda.synchronize()
            self.tdist.barrier_all()
            returned = call()
            torch.cuda.synchronize()
            if not torch.equal(result_of(name, returned), expected):
                raise SystemExit(f"triton_kernels.py: {name} {what}")

    def compare(self, case, shape, calls, reference, options, heap):
        """Times every call, PE 0 prints their RESULT lines (each median's ratio to reference's),
        then the heap tensors are freed."""
        results = {name: self.time_calls(call, options.calls, options.repeats) for name, call in calls.items()}
        if self.me == 0:
            base = statistics.median(results[reference])
            for name, samples in results.items():
                median = statistics.median(samples)
                print(f"RESULT impl={name} case={case} {shape} pes={self.n} median_us={median:.2f} "
                      f"min_us={min(samples):.2f} max_us={max(samples):.2f} "
                      f"ratio_to_{reference}={median / base:.3f}", flush=True)
        self.tdist.barrier_all()
        for t in heap:
            self.tdist.free_tensor(t)


def ag_gemm(job, options):
    torch, tdist = job.torch, job.tdist
    import tdist.kernels as tk
    example = load_example("allgather_gemm")
    me, n = job.me, job.n
    k, cols = options.k, options.n
    for total in options.m:
        m = total // n
        heap = [tdist.zeros((m, k), "bfloat16"), tdist.zeros((n * m, k), "bfloat16"),
                tdist.zeros(n * example.SLOT_WORDS, "uint64"), tdist.zeros((n * m, cols), "bfloat16"),
                tdist.zeros((k, cols), "bfloat16")]
        a, gathered, signals, c, b = (torch.from_dlpack(t) for t in heap)
        b.copy_((((torch.arange(k * cols, device="cuda").reshape(k, cols) % 7) - 3).to(torch.bfloat16) / 4))
        a.copy_(example.rows_of(torch, me, m, k).to(torch.bfloat16).cuda())
        a_plain = a.clone()
        expected = (torch.cat([example.rows_of(torch, pe, m, k) for pe in range(n)]).cuda().float()
                    @ b.float()).to(torch.bfloat16)
        tiles = triton.cdiv(n * m, 128) * triton.cdiv(cols, 128)
        programs, consumers = example.grid(torch, tiles, 2)
        epoch = [0]

        def triton_call():
            epoch[0] += 1
            example.allgather_gemm[(programs,)](a, b, c, gathered, signals, epoch[0], m, k, cols, consumers,
                                                PRODUCERS=2, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, COPY=4096)
            return c

        op = torch.ops.symm_mem.fused_all_gather_matmul
        extra = {"return_A": False} if "return_A" in str(op.default._schema) else {}

        def torch_call():
            return op(a_plain, [b], 0, job.group, **extra)[1][0]

        calls = {
            "triton": triton_call,
            # gather(A) into the heap tensor the Triton kernel uses: larger than the context's scratch
            "decomposed": lambda: tk.all_gather_gemm(a, b, c, gathered, strategy="decomposed"),
            "fused": lambda: tk.all_gather_gemm(a, b, c, gathered, strategy="fused"),
            "torch": torch_call,
        }
        job.check(calls, lambda name: c.zero_(), lambda name, result: result, expected,
                  f"computed a wrong C at M {total}")
        job.compare("ag-gemm", f"m={total} n={cols} k={k}", calls, "triton", options, heap)


def pingpong_case(job, options):
    torch, tdist = job.torch, job.tdist
    if job.n < 2:
        raise SystemExit("triton_kernels.py: pingpong needs 2 PEs")
    t_slot, t_elapsed = tdist.zeros(8, "uint64"), tdist.zeros(1, "uint64")
    slot, elapsed = torch.from_dlpack(t_slot), torch.from_dlpack(t_elapsed)
    partner, first = job.me ^ 1, job.me % 2 == 0
    paired = partner < job.n
    iters, base, samples = options.iters, 0, []
    tdist.barrier_all()
    for repeat in range(options.repeats + 1):  # the first is a warm-up (and the compile)
        tdist.barrier_all()
        if paired:
            pingpong[(1,)](slot, elapsed, partner, int(first), base, 1, iters, num_warps=1)
            torch.cuda.synchronize()
            if repeat > 0:
                samples.append(int(elapsed.item()) / 1e3 / iters)
        base += 1 + iters
    tdist.barrier_all()
    if job.me == 0:
        print(f"RESULT impl=triton case=cuda-pingpong path=kernel pes={job.n} iters={iters} "
              f"repeats={options.repeats} median_us={statistics.median(samples):.4f} min_us={min(samples):.4f} "
              f"max_us={max(samples):.4f}", flush=True)
    tdist.free_tensor(t_slot)
    tdist.free_tensor(t_elapsed)


def allreduce_case(job, options):
    torch, tdist = job.torch, job.tdist
    import tdist.kernels as tk
    example = load_example("ring_allreduce")
    n, tile = job.n, 8192
    steps = 2 * max(n - 1, 1)
    for size in (256 << 10, 1 << 20, 2 << 20):
        chunk = size // 4 // n
        programs = chunk // tile
        if chunk % tile or programs > 32:
            continue
        heap = [tdist.zeros(n * chunk, "float32"), tdist.zeros(steps * chunk, "float32"),
                tdist.zeros(steps * programs * example.SLOT_WORDS, "uint64"), tdist.zeros(n * chunk, "float32")]
        data, staging, signals, other = (torch.from_dlpack(t) for t in heap)
        epoch = [0]

        def ring():
            epoch[0] += 1
            example.ring_allreduce[(programs,)](data, staging, signals, epoch[0], CHUNK=chunk, TILE=tile)

        calls = {"triton-ring": ring, "cxx-two-shot": lambda: tk.all_reduce(other, algorithm="two_shot")}
        target = {"triton-ring": data, "cxx-two-shot": other}
        expected = sum(example.inputs(torch, pe, n * chunk) for pe in range(n)).cuda()
        job.check(calls, lambda name: target[name].copy_(example.inputs(torch, job.me, n * chunk)),
                  lambda name, _: target[name], expected, f"summed wrongly at {size} bytes")
        job.compare("allreduce", f"size={size}", calls, "triton-ring", options, heap)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", nargs="+", default=["ag-gemm", "pingpong", "allreduce"],
                        choices=["ag-gemm", "pingpong", "allreduce"])
    parser.add_argument("--m", type=sizes, default=[4096, 8192], help="rows of C (all PEs), comma-separated")
    parser.add_argument("--k", type=int, default=8192)
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--calls", type=int, default=10, help="timed calls a repeat")
    parser.add_argument("--iters", type=int, default=1000, help="pingpong exchanges a kernel")
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    import torch
    import tdist

    tdist.init()
    if tdist.backend() != "cuda":
        raise SystemExit("triton_kernels.py: run it with tdist-run --backend cuda")
    job = Job(torch, tdist, "ag-gemm" in options.case)
    if "ag-gemm" in options.case:
        import torch.distributed._symmetric_memory as symm_mem
        from torch_peer_common import enable_symm_mem
        enable_symm_mem(symm_mem, job.group)
        ag_gemm(job, options)
    if "pingpong" in options.case:
        pingpong_case(job, options)
    if "allreduce" in options.case:
        allreduce_case(job, options)
    if job.group is not None:
        import torch.distributed as dist
        dist.destroy_process_group()
    tdist.finalize()


if __name__ == "__main__":
    main()
