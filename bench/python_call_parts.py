"""Where a tdist.kernels call from Python spends its host time: the same small all_reduce through
each layer, with tdist.Tensor and torch arguments, and the torch path's pieces timed alone.

    tdist-run [--backend cuda] -n 2 -- python3 bench/python_call_parts.py [--calls 1000] [--repeats 5]

Each layer: --calls calls enqueued, then the stream(s) synchronized, per-call µs (median of the
repeats, layers alternating within a repeat). With 4 KiB of f32 the host is slower than the GPU,
so these are host costs:
  full-torch / full-tdist      tdist.kernels.all_reduce(a, b), torch views / tdist.Tensors
  full-torch-attributes        full-torch with torch tensors read through their attributes, not
                               by tdist._torch_C (only where that module is built)
  K-<ctx>-<args>               the binding itself (tdist._C.kernels.all_reduce) on the context of
                               torch's current stream (tctx) or the default one (dctx)
Then the pieces of the torch path, 100,000 calls each (µs a call). Needs torch; PE 0 prints.
"""

import argparse
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("python_call_parts.py: needs torch (skipped)")
    sys.exit(77)

import tdist  # noqa: E402
import tdist.kernels as tk  # noqa: E402
from tdist import _torch_ops  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    tdist.init()
    x, y = tdist.zeros(1024, "float32"), tdist.zeros(1024, "float32")
    a, b = torch.from_dlpack(x), torch.from_dlpack(y)
    kernels = tk._K
    dctx, tctx = tk.default_context(), _torch_ops.context_for(a)

    def done():
        if a.is_cuda:
            torch.cuda.synchronize()
        dctx.synchronize()

    layers = {
        "full-torch": lambda: tk.all_reduce(a, b),
        "full-tdist": lambda: tk.all_reduce(x, y),
        "K-tctx-torch": lambda: kernels.all_reduce(tctx, a, b, "auto", 256 << 10, 0),
        "K-tctx-tdist": lambda: kernels.all_reduce(tctx, x, y, "auto", 256 << 10, 0),
        "K-dctx-torch": lambda: kernels.all_reduce(dctx, a, b, "auto", 256 << 10, 0),
        "K-dctx-tdist": lambda: kernels.all_reduce(dctx, x, y, "auto", 256 << 10, 0),
    }
    # Where tdist._torch_C is built: the same call with the tensors read through their attributes
    # (the reader is switched around that layer alone).
    attribute_layers = set()
    if tdist._torch_C is not None:
        layers["full-torch-attributes"] = layers["full-torch"]
        attribute_layers.add("full-torch-attributes")

    def reader_for(name):
        tdist._C._set_torch_access(None if name in attribute_layers else tdist._torch_C.access)

    for name, call in layers.items():  # warm-up
        if tdist._torch_C is not None:
            reader_for(name)
        for _ in range(options.calls // 5):
            call()
    done()
    samples = {name: [] for name in layers}
    for _ in range(options.repeats):
        for name, call in layers.items():
            if tdist._torch_C is not None:
                reader_for(name)
            tdist.barrier_all()
            start = time.perf_counter()
            for _ in range(options.calls):
                call()
            done()
            samples[name].append((time.perf_counter() - start) / options.calls * 1e6)
    if tdist._torch_C is not None:
        reader_for("full-torch")
    pieces = {
        "context_for": lambda: _torch_ops.context_for(a),
        "first_torch": lambda: tk._first_torch((a, b)),
        "is_compiling": tk._is_compiling,
        "get_device": a.get_device,
        "data_ptr": a.data_ptr,
        "shape+stride": lambda: (a.shape, a.stride()),
        "empty lambda": lambda: None,
    }
    piece_us = {}
    for name, piece in pieces.items():
        start = time.perf_counter()
        for _ in range(100000):
            piece()
        piece_us[name] = (time.perf_counter() - start) * 10
    if tdist.my_pe() == 0:
        for name, values in samples.items():
            print(f"layer {name} median_us={statistics.median(values):.2f} "
                  f"repeats={','.join(f'{v:.2f}' for v in values)}", flush=True)
        for name, us in piece_us.items():
            print(f"piece {name} us={us:.3f}", flush=True)
    tdist.barrier_all()
    tdist.free_tensor(x)
    tdist.free_tensor(y)
    tdist.finalize()


if __name__ == "__main__":
    main()
