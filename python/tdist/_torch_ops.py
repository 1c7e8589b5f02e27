"""The kernel library as torch custom ops (torch.ops.tdist.*), registered when tdist.kernels is
imported and torch can be imported: torch.compile traces them through their fake implementations
(they change their outputs in place and return nothing), and on cuda they run on torch's current
stream. tdist.kernels routes torch tensors through them; calling them directly works too.

On cuda, each stream a call runs on has a kernel-library context of its own, made collectively by
the first call on that stream (every PE makes its calls on the same streams in the same order). A
call captured into a CUDA graph needs its stream's context made before the capture: one call on
that stream outside the capture does it (a warm-up, as graphs need anyway).
"""

import torch
from torch.library import custom_op

from . import _C

_contexts = {}  # stream handle (cudaStream_t as an int; 0: none, the cpu) -> Context


def _stream_handle(tensor):
    if not tensor.is_cuda:
        return 0
    handle = torch.cuda.current_stream(tensor.device).cuda_stream
    # torch's default stream is the legacy default stream, cudaStreamLegacy (0x1) in a context's
    # options, where 0 would mean the PE's own stream.
    return handle if handle != 0 else 1


def context_for(tensor):
    """The context of the stream a call on tensor runs on (made collectively on first use)."""
    handle = _stream_handle(tensor)
    context = _contexts.get(handle)
    if context is None or context.closed:
        if handle != 0 and torch.cuda.is_current_stream_capturing():
            raise _C.Error(f"tdist.kernels: no context for stream 0x{handle:x} yet, and it is capturing a CUDA "
                           "graph: make one call on that stream before the capture (a warm-up)")
        context = _C.kernels.Context(16 << 20, 4096, handle)
        _contexts[handle] = context
    return context


def close_all():
    for context in _contexts.values():
        if not context.closed:
            context.close()
    _contexts.clear()


@custom_op("tdist::all_reduce", mutates_args=("output",))
def all_reduce(input: torch.Tensor, output: torch.Tensor, algorithm: str, chunk_bytes: int, programs: int) -> None:
    _C.kernels.all_reduce(context_for(output), input, output, algorithm, chunk_bytes, programs)


@all_reduce.register_fake
def _(input, output, algorithm, chunk_bytes, programs):
    return None


@custom_op("tdist::all_reduce_", mutates_args=("tensor",))
def all_reduce_(tensor: torch.Tensor, algorithm: str, chunk_bytes: int, programs: int) -> None:
    _C.kernels.all_reduce(context_for(tensor), tensor, tensor, algorithm, chunk_bytes, programs)


@all_reduce_.register_fake
def _(tensor, algorithm, chunk_bytes, programs):
    return None


@custom_op("tdist::all_gather", mutates_args=("output",))
def all_gather(input: torch.Tensor, output: torch.Tensor, chunk_bytes: int, programs: int, engine: str) -> None:
    _C.kernels.all_gather(context_for(output), input, output, chunk_bytes, programs, engine)


@all_gather.register_fake
def _(input, output, chunk_bytes, programs, engine):
    return None


@custom_op("tdist::reduce_scatter", mutates_args=("output",))
def reduce_scatter(input: torch.Tensor, output: torch.Tensor, chunk_bytes: int, programs: int, engine: str) -> None:
    _C.kernels.reduce_scatter(context_for(output), input, output, chunk_bytes, programs, engine)


@reduce_scatter.register_fake
def _(input, output, chunk_bytes, programs, engine):
    return None


@custom_op("tdist::all_gather_gemm", mutates_args=("c",))
def all_gather_gemm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, chunks_per_pe: int, tile_m: int,
                    tile_n: int, programs: int, strategy: str, producer_sms: int) -> None:
    _C.kernels.all_gather_gemm(context_for(c), a, b, c, chunks_per_pe, tile_m, tile_n, programs, strategy,
                               producer_sms)


@all_gather_gemm.register_fake
def _(a, b, c, chunks_per_pe, tile_m, tile_n, programs, strategy, producer_sms):
    return None


@custom_op("tdist::gemm_reduce_scatter", mutates_args=("c",))
def gemm_reduce_scatter(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, chunks_per_pe: int, tile_m: int,
                        tile_n: int, programs: int, strategy: str) -> None:
    _C.kernels.gemm_reduce_scatter(context_for(c), a, b, c, chunks_per_pe, tile_m, tile_n, programs, strategy)


@gemm_reduce_scatter.register_fake
def _(a, b, c, chunks_per_pe, tile_m, tile_n, programs, strategy):
    return None
