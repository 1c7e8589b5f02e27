#!/usr/bin/env python3
"""python_graph_allreduce.py - tdist.kernels.all_reduce from Python in a CUDA graph, beside
torch.distributed._symmetric_memory's one-shot and two-shot all-reduce, in the same processes.

    tdist-run --backend cuda -n 2 -- python3 bench/python_graph_allreduce.py [--min-size 8K]
        [--max-size 2M] [--graph-ops 10] [--replays 10] [--repeats 5]

Every PE runs both: tdist's call on a heap tensor (torch.from_dlpack of tdist.empty), in place,
the auto algorithm; torch's ops on a symm_mem buffer (process group gloo, its port passed through
the heap); bf16, --graph-ops calls captured in one torch.cuda.graph, replayed --replays times a
repeat between two CUDA events. The three take turns inside each repeat. Per repeat the slowest
PE's time per call counts; PE 0 prints, per size, the median over the repeats of each and, per
repeat, the ratio tdist / the faster of torch's two (its median, min and max):

    size  tdist_us  one_shot_us  two_shot_us  ratio_median  ratio_min  ratio_max

Several PEs on one GPU need MPS, which tdist-run starts for the job.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_peer_common import enable_symm_mem, format_bytes, size_in  # noqa: E402  (sets FORCED_ENV first)

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed._symmetric_memory as symm_mem  # noqa: E402

import tdist  # noqa: E402
import tdist.kernels as tk  # noqa: E402


def values(count, pe, device):
    """Multiples of 1/4 in -2..2: every sum over a few PEs is exact in bf16."""
    index = torch.arange(count, device=device, dtype=torch.int64)
    return (((index * 7 + pe * 13) % 17 - 8).to(torch.float32) * 0.25).to(torch.bfloat16)


def rendezvous_port():
    """A free port chosen by PE 0, passed to every PE through the symmetric heap."""
    cell = tdist.zeros(1, "int64")
    if tdist.my_pe() == 0:
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            torch.from_dlpack(cell).fill_(s.getsockname()[1])
        torch.cuda.synchronize()
    tdist.barrier_all()
    port = int(torch.from_dlpack(tdist.peer(cell, 0)).item())
    tdist.barrier_all()
    tdist.free_tensor(cell)
    return port


def capture(op, stream, graph_ops):
    with torch.cuda.stream(stream):
        op()  # the warm-up: tdist makes the stream's context here
    stream.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(graph_ops):
            op()
    torch.cuda.synchronize()
    return graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-size", type=size_in(1 << 10, 1 << 30, 2), default=8 << 10)
    parser.add_argument("--max-size", type=size_in(1 << 10, 1 << 30, 2), default=2 << 20)
    parser.add_argument("--graph-ops", type=int, default=10)
    parser.add_argument("--replays", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()

    tdist.init()
    if tdist.backend() != "cuda":
        raise SystemExit("python_graph_allreduce.py: run it with tdist-run --backend cuda")
    me, n = tdist.my_pe(), tdist.n_pes()
    device = torch.device("cuda", torch.cuda.current_device())
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{rendezvous_port()}", rank=me, world_size=n)
    group = dist.group.WORLD.group_name
    error = enable_symm_mem(symm_mem, group)
    if error and me == 0:
        print(f"# enable_symm_mem_for_group: {error}", flush=True)
    if me == 0:
        print(f"# {n} PEs, bf16, {options.graph_ops} calls a graph, {options.replays} replays a repeat, "
              f"{options.repeats} repeats; slowest PE per repeat", flush=True)
        print(f"{'size':>8} {'tdist_us':>9} {'one_shot_us':>11} {'two_shot_us':>11} {'ratio_median':>12} "
              f"{'ratio_min':>9} {'ratio_max':>9}", flush=True)
    stream = torch.cuda.Stream()
    size = options.min_size
    while size <= options.max_size:
        count = size // 2
        heap = tdist.empty(count, "bfloat16")
        x = torch.from_dlpack(heap)
        buffer = symm_mem.empty(count, dtype=torch.bfloat16, device=device)
        symm_mem.rendezvous(buffer, group)
        expected = sum(values(count, pe, device).float() for pe in range(n)).to(torch.bfloat16)
        ops = {
            "tdist": lambda: tk.all_reduce(x),
            "one_shot": lambda: torch.ops.symm_mem.one_shot_all_reduce(buffer, "sum", group),
            "two_shot": lambda: torch.ops.symm_mem.two_shot_all_reduce_(buffer, "sum", group),
        }
        # One checked call of each before the timing.
        for name, target in (("tdist", x), ("one_shot", buffer), ("two_shot", buffer)):
            target.copy_(values(count, me, device))
            torch.cuda.synchronize()
            dist.barrier()
            with torch.cuda.stream(stream):
                out = ops[name]()
            stream.synchronize()
            result = x if name == "tdist" else (out if name == "one_shot" else buffer)
            if not torch.equal(result, expected):
                raise SystemExit(f"python_graph_allreduce.py: {name} summed wrongly at {size} bytes")
            dist.barrier()
        graphs = {name: capture(op, stream, options.graph_ops) for name, op in ops.items()}
        for graph in graphs.values():
            graph.replay()  # a warm-up replay
        torch.cuda.synchronize()
        samples = {name: [] for name in ops}
        for _ in range(options.repeats):
            for name, graph in graphs.items():
                begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                dist.barrier()
                begin.record(stream)
                with torch.cuda.stream(stream):
                    for _ in range(options.replays):
                        graph.replay()
                end.record(stream)
                end.synchronize()
                samples[name].append(begin.elapsed_time(end) * 1e3 / (options.replays * options.graph_ops))
        slowest = {}
        for name, mine in samples.items():
            gathered = [torch.zeros(options.repeats, dtype=torch.float64) for _ in range(n)]
            dist.all_gather(gathered, torch.tensor(mine, dtype=torch.float64))
            slowest[name] = torch.stack(gathered).max(dim=0).values.tolist()
        if me == 0:
            ratios = [t / min(a, b) for t, a, b in zip(slowest["tdist"], slowest["one_shot"], slowest["two_shot"])]
            print(f"{format_bytes(size):>8} {statistics.median(slowest['tdist']):9.2f} "
                  f"{statistics.median(slowest['one_shot']):11.2f} {statistics.median(slowest['two_shot']):11.2f} "
                  f"{statistics.median(ratios):12.3f} {min(ratios):9.3f} {max(ratios):9.3f}", flush=True)
        graphs.clear()
        torch.cuda.synchronize()
        dist.barrier()
        del buffer
        tdist.free_tensor(heap)
        size *= 4
    dist.destroy_process_group()
    tdist.finalize()


if __name__ == "__main__":
    main()
