"""The kernel library as torch custom ops (torch.ops.tdist.*), registered when tdist.kernels is
imported and torch can be imported: torch.compile traces them through their fake implementations
(they change their outputs in place and return nothing), and on cuda they run on torch's current
stream. tdist.kernels calls the same C++ calls on the same contexts for torch tensors, without
the dispatcher (whose Python custom ops cost ~15 us a call), and the functional forms below while
torch.compile traces.

On cuda, each stream a call runs on has a kernel-library context of its own, made collectively by
the first call on that stream (every PE makes its calls on the same streams in the same order). A
call captured into a CUDA graph needs its stream's context made before the capture: one call on
that stream outside the capture does it (a warm-up, as graphs need anyway).

The functional forms (torch.ops.tdist.*_functional) change nothing they are given and return a new
tensor, as torch.compile's functionalization needs: an operand that is not on the symmetric heap
(an intermediate of the compiled graph, say) is copied into a staging buffer of the heap, the
result is made on the heap and returned as a copy. tdist.kernels calls them in place of the
in-place ops while torch.compile traces, so that a model calling tdist.kernels.all_reduce(x)
compiles. The staging buffers (per stream, one per operand) grow collectively on first use of a
larger size, so they too must be made before a CUDA graph captures a call (the same warm-up).
"""

import torch
from torch.library import custom_op

from . import _C, _torch_C
from ._dtypes import invalid

_contexts = {}  # stream handle (cudaStream_t as an int; 0: none, the cpu) -> Context


_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _stream_handle_by_attributes(tensor):
    device = tensor.get_device()  # -1 on the cpu; one call, not is_cuda and device.index (a torch.device)
    if device < 0:
        return 0
    # The raw cudaStream_t, as inductor's generated code reads it: no torch.cuda.Stream object a call.
    handle = _raw_stream(device)
    # torch's default stream is the legacy default stream, cudaStreamLegacy (0x1) in a context's
    # options, where 0 would mean the PE's own stream.
    return handle if handle != 0 else 1


# The same, read in C++ where tdist._torch_C is built (one call, no Python frame).
_stream_handle = _torch_C.stream_of if _torch_C is not None else _stream_handle_by_attributes


def context_for(tensor):
    """The context of the stream a call on tensor runs on (made collectively on first use)."""
    handle = _stream_handle(tensor)
    context = _contexts.get(handle)
    if context is None or context.closed:
        if handle != 0 and torch.cuda.is_current_stream_capturing():
            raise invalid(f"tdist.kernels: no context for stream 0x{handle:x} yet, and it is capturing a CUDA "
                           "graph: make one call on that stream before the capture (a warm-up)")
        context = _C.kernels.Context(16 << 20, 4096, handle)
        _contexts[handle] = context
    return context


def close_all():
    for context in _contexts.values():
        if not context.closed:
            context.close()
    _contexts.clear()
    for heap, _ in _staging.values():
        _C.free_tensor(heap)
    _staging.clear()


# ---- the ops, in place -----------------------------------------------------------------------

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
                    tile_n: int, programs: int, strategy: str, producer_sms: int, tile_order: str) -> None:
    _C.kernels.all_gather_gemm(context_for(c), a, b, c, chunks_per_pe, tile_m, tile_n, programs, strategy,
                               producer_sms, tile_order)


@all_gather_gemm.register_fake
def _(a, b, c, chunks_per_pe, tile_m, tile_n, programs, strategy, producer_sms, tile_order):
    return None


@custom_op("tdist::gemm_reduce_scatter", mutates_args=("c",))
def gemm_reduce_scatter(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, chunks_per_pe: int, tile_m: int,
                        tile_n: int, programs: int, strategy: str) -> None:
    _C.kernels.gemm_reduce_scatter(context_for(c), a, b, c, chunks_per_pe, tile_m, tile_n, programs, strategy)


@gemm_reduce_scatter.register_fake
def _(a, b, c, chunks_per_pe, tile_m, tile_n, programs, strategy):
    return None


def layout_of(counts):
    """The DispatchLayout of a dispatch's counts tensor."""
    return _C.kernels.DispatchLayout(counts.reshape(-1).tolist())


def _counts_shape(experts):
    n = _C.n_pes()
    return (max(experts // n, 0), n)


def counts_of(layout, experts):
    """A dispatch's layout as its counts: a [local experts, n_pes] int32 tensor on the host."""
    return torch.tensor(layout.counts, dtype=torch.int32).reshape(_counts_shape(experts))


@custom_op("tdist::moe_dispatch", mutates_args=("recv",))
def moe_dispatch(x: torch.Tensor, topk_ids: torch.Tensor, recv: torch.Tensor, experts: int, top_k: int,
                 capacity: int, programs: int) -> torch.Tensor:
    """Returns the dispatch's counts ([local experts, n_pes] int32, on the host): the layout."""
    layout = _C.kernels.moe_dispatch(context_for(recv), x, topk_ids, recv, experts, top_k, capacity, programs)
    return counts_of(layout, experts)


@moe_dispatch.register_fake
def _(x, topk_ids, recv, experts, top_k, capacity, programs):
    return torch.empty(_counts_shape(experts), dtype=torch.int32)


@custom_op("tdist::moe_combine", mutates_args=("out",))
def moe_combine(expert_out: torch.Tensor, counts: torch.Tensor, topk_ids: torch.Tensor, topk_weights: torch.Tensor,
                out: torch.Tensor, experts: int, top_k: int, capacity: int, programs: int) -> None:
    _C.kernels.moe_combine(context_for(out), expert_out, layout_of(counts), topk_ids, topk_weights, out, experts,
                           top_k, capacity, programs)


@moe_combine.register_fake
def _(expert_out, counts, topk_ids, topk_weights, out, experts, top_k, capacity, programs):
    return None


# ---- the functional forms ---------------------------------------------------------------------

_staging = {}  # (stream handle, operand) -> (tdist.Tensor of uint8, its torch view)


def _staging_buffer(handle, operand, nbytes, device):
    """At least nbytes of the heap for this stream's operand (collective when it grows)."""
    key = (handle, operand)
    entry = _staging.get(key)
    if entry is None or entry[1].numel() < nbytes:
        if handle != 0 and torch.cuda.is_current_stream_capturing():
            raise invalid(f"tdist.kernels: the staging buffer of stream 0x{handle:x} holds "
                           f"{0 if entry is None else entry[1].numel()} bytes, this call needs {nbytes}, and the "
                           "stream is capturing a CUDA graph: make one call of this size before the capture")
        if entry is not None:
            if device.type == "cuda":
                torch.cuda.current_stream(device).synchronize()  # calls in flight may still use it
            _C.free_tensor(entry[0])
            del _staging[key]
        size = 1 << max(16, (nbytes - 1).bit_length())
        heap = _C.create_tensor([size], _C.DType.uint8, False)
        entry = _staging[key] = (heap, torch.from_dlpack(heap))
    return entry[1]


def _on_heap(t):
    return t.is_contiguous() and _C.on_heap(t.data_ptr(), t.numel() * t.element_size())


def _operand(t, handle, operand):
    """t itself where it lies on the heap, else a copy of it in the stream's staging buffer."""
    if _on_heap(t):
        return t
    nbytes = t.numel() * t.element_size()
    staged = _staging_buffer(handle, operand, nbytes, t.device)[:nbytes].view(t.dtype).view(t.shape)
    staged.copy_(t)
    return staged


def _result(handle, shape, like):
    """The heap tensor a functional form's kernel writes (the stream's last staging buffer)."""
    nbytes = like.element_size()
    for extent in shape:
        nbytes *= extent
    return _staging_buffer(handle, "result", nbytes, like.device)[:nbytes].view(like.dtype).view(shape)


def _gathered_shape(t):
    return (_C.n_pes() * t.shape[0], *t.shape[1:]) if t.dim() else (_C.n_pes(),)


def _scattered_shape(t, name):
    n = _C.n_pes()
    if t.dim() == 0 or t.shape[0] % n:
        raise invalid(f"tdist.kernels.{name}: the first extent of the input ({tuple(t.shape)}) must be a "
                       f"multiple of the PE count ({n}) in the functional form")
    return (t.shape[0] // n, *t.shape[1:])


def _functional(call, inputs, shape, *config):
    """Runs call(context, *operands, result, *config) on the stream of inputs[0]: each input where
    it lies on the heap, else staged; the result made on the heap. Returns the result (a view of
    the stream's staging buffer: the caller copies it out)."""
    like = inputs[0]
    handle = _stream_handle(like)
    context = context_for(like)
    result = _result(handle, shape, like)
    call(context, *(_operand(t, handle, i) for i, t in enumerate(inputs)), result, *config)
    return result


@custom_op("tdist::all_reduce_functional", mutates_args=())
def all_reduce_functional(input: torch.Tensor, algorithm: str, chunk_bytes: int, programs: int) -> torch.Tensor:
    return _functional(_C.kernels.all_reduce, [input], input.shape, algorithm, chunk_bytes, programs).clone()


@all_reduce_functional.register_fake
def _(input, algorithm, chunk_bytes, programs):
    return torch.empty_like(input, memory_format=torch.contiguous_format)


@custom_op("tdist::all_gather_functional", mutates_args=())
def all_gather_functional(input: torch.Tensor, chunk_bytes: int, programs: int, engine: str) -> torch.Tensor:
    return _functional(_C.kernels.all_gather, [input], _gathered_shape(input), chunk_bytes, programs,
                       engine).clone()


@all_gather_functional.register_fake
def _(input, chunk_bytes, programs, engine):
    return input.new_empty(_gathered_shape(input))


@custom_op("tdist::reduce_scatter_functional", mutates_args=())
def reduce_scatter_functional(input: torch.Tensor, chunk_bytes: int, programs: int, engine: str) -> torch.Tensor:
    return _functional(_C.kernels.reduce_scatter, [input], _scattered_shape(input, "reduce_scatter"), chunk_bytes,
                       programs, engine).clone()


@reduce_scatter_functional.register_fake
def _(input, chunk_bytes, programs, engine):
    return input.new_empty(_scattered_shape(input, "reduce_scatter"))


def _gathered_gemm_shape(a, b):
    return (_C.n_pes() * a.shape[0], b.shape[-1])


def _scattered_gemm_shape(a, b):
    return (_scattered_shape(a, "gemm_reduce_scatter")[0], b.shape[-1])


@custom_op("tdist::all_gather_gemm_functional", mutates_args=())
def all_gather_gemm_functional(a: torch.Tensor, b: torch.Tensor, chunks_per_pe: int, tile_m: int, tile_n: int,
                               programs: int, strategy: str, producer_sms: int, tile_order: str) -> torch.Tensor:
    return _functional(_C.kernels.all_gather_gemm, [a, b], _gathered_gemm_shape(a, b), chunks_per_pe, tile_m, tile_n,
                       programs, strategy, producer_sms, tile_order).clone()


@all_gather_gemm_functional.register_fake
def _(a, b, chunks_per_pe, tile_m, tile_n, programs, strategy, producer_sms, tile_order):
    return a.new_empty(_gathered_gemm_shape(a, b))


@custom_op("tdist::gemm_reduce_scatter_functional", mutates_args=())
def gemm_reduce_scatter_functional(a: torch.Tensor, b: torch.Tensor, chunks_per_pe: int, tile_m: int, tile_n: int,
                                   programs: int, strategy: str) -> torch.Tensor:
    return _functional(_C.kernels.gemm_reduce_scatter, [a, b], _scattered_gemm_shape(a, b), chunks_per_pe, tile_m,
                       tile_n, programs, strategy).clone()


@gemm_reduce_scatter_functional.register_fake
def _(a, b, chunks_per_pe, tile_m, tile_n, programs, strategy):
    return a.new_empty(_scattered_gemm_shape(a, b))


@custom_op("tdist::moe_dispatch_functional", mutates_args=())
def moe_dispatch_functional(x: torch.Tensor, topk_ids: torch.Tensor, experts: int, top_k: int, capacity: int,
                            programs: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Returns (recv [capacity, H], counts): recv a new tensor."""
    handle = _stream_handle(x)
    context = context_for(x)
    recv = _result(handle, (capacity, x.shape[-1]), x)
    layout = _C.kernels.moe_dispatch(context, _operand(x, handle, 0), _operand(topk_ids, handle, 1), recv, experts,
                                     top_k, capacity, programs)
    return recv.clone(), counts_of(layout, experts)


@moe_dispatch_functional.register_fake
def _(x, topk_ids, experts, top_k, capacity, programs):
    return x.new_empty((capacity, x.shape[-1])), torch.empty(_counts_shape(experts), dtype=torch.int32)


@custom_op("tdist::moe_combine_functional", mutates_args=())
def moe_combine_functional(expert_out: torch.Tensor, counts: torch.Tensor, topk_ids: torch.Tensor,
                           topk_weights: torch.Tensor, experts: int, top_k: int, capacity: int,
                           programs: int) -> torch.Tensor:
    """Returns out [T, H], a new tensor (T: the rows of topk_ids)."""
    handle = _stream_handle(expert_out)
    context = context_for(expert_out)
    out = _result(handle, (topk_ids.shape[0], expert_out.shape[-1]), expert_out)
    _C.kernels.moe_combine(context, _operand(expert_out, handle, 0), layout_of(counts), _operand(topk_ids, handle, 1),
                           _operand(topk_weights, handle, 2), out, experts, top_k, capacity, programs)
    return out.clone()


@moe_combine_functional.register_fake
def _(expert_out, counts, topk_ids, topk_weights, experts, top_k, capacity, programs):
    return expert_out.new_empty((topk_ids.shape[0], expert_out.shape[-1]))
