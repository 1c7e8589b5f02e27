"""tdist.kernels.all_reduce from Python, timed as tdist-bench's allreduce case times the C++ call
(the same sizes, iterations and repeats, f32, the auto algorithm), so that the two give the
Python call's cost over the C++ one. Run under tdist-run; bench/python_overhead.sh runs both.

    tdist-run -n 2 -- python3 bench/python_allreduce.py [--sizes 4096,16384] [--iters 1000] [--repeats 5]

Prints one line per size on PE 0: python all_reduce <bytes> median_us=<median of the repeats>
("python views all_reduce" with --views: numpy views of the tensors, converted through DLPack;
"python torch all_reduce" with --torch: torch views, through the torch ops; add --side-stream to
run them on a torch stream of their own instead of torch's default, the legacy default stream).
On cuda, every repeat ends with the context's synchronize (as the C++ case does; with --torch,
torch's).
"""

import argparse
import statistics
import time

import tdist
import tdist.kernels as tk


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="4096,16384", help="bytes per PE, comma-separated")
    parser.add_argument("--iters", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--views", action="store_true",
                        help="pass numpy views of the heap tensors (DLPack) instead of the tdist.Tensors (cpu)")
    parser.add_argument("--torch", action="store_true",
                        help="pass torch views of the heap tensors: the calls go through the torch ops "
                             "(torch's current stream on cuda)")
    parser.add_argument("--side-stream", action="store_true",
                        help="with --torch on cuda: a torch stream of its own as the current stream")
    options = parser.parse_args()
    tdist.init()
    ctx = tk.default_context()
    if options.side_stream and options.torch and tdist.backend() == "cuda":
        import torch
        torch.cuda.set_stream(torch.cuda.Stream())
    for size in [int(s) for s in options.sizes.split(",")]:
        x, y = tdist.zeros(size // 4, "float32"), tdist.zeros(size // 4, "float32")
        a, b = x, y
        done = ctx.synchronize
        if options.views:
            import numpy as np
            a, b = np.from_dlpack(x), np.from_dlpack(y)
        elif options.torch:
            import torch
            a, b = torch.from_dlpack(x), torch.from_dlpack(y)
            done = torch.cuda.synchronize if a.is_cuda else (lambda: None)
        for _ in range(options.iters // 10):  # warm-up
            tk.all_reduce(a, b)
        done()
        medians = []
        for _ in range(options.repeats):
            tdist.barrier_all()
            start = time.perf_counter()
            for _ in range(options.iters):
                tk.all_reduce(a, b)
            done()
            medians.append((time.perf_counter() - start) / options.iters * 1e6)
        if tdist.my_pe() == 0:
            kind = " views" if options.views else " torch" if options.torch else ""
            kind += " sidestream" if options.side_stream and options.torch and tdist.backend() == "cuda" else ""
            print(f"python{kind} all_reduce {size} median_us={statistics.median(medians):.3f} "
                  f"min_us={min(medians):.3f}", flush=True)
        tdist.barrier_all()
        tdist.free_tensor(x)
        tdist.free_tensor(y)
    tdist.finalize()


if __name__ == "__main__":
    main()
