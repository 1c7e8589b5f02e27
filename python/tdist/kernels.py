"""The kernel library from Python (docs/KERNELS.md, docs/PYTHON.md): all_reduce, all_gather,
reduce_scatter, all_gather_gemm, gemm_reduce_scatter, moe_dispatch and moe_combine on tensors of
the symmetric heap, with the C++ configs as keyword arguments.

A tensor argument is anything that exports DLPack and lives on the heap: a tdist.Tensor, or a
numpy, torch or cupy view of one. Every call is collective, with the same shapes, dtypes and
configs on every PE, and runs on a Context: the one given as ``context=``, else the default one,
made by the first call (collectively) and closed by tdist.finalize(). Torch tensors without
``context=`` run on torch's current stream, each stream with a context of its own (as the torch
custom ops torch.ops.tdist.* do, tdist/_torch_ops.py), and torch.compile traces them: while it
does, they call the ops' functional forms (the result is made on the heap and copied into the
output).
"""

from . import _C
from ._dtypes import invalid

_K = _C.kernels
Context = _K.Context
DispatchLayout = _K.DispatchLayout
min_signals = _K.min_signals

_default = None

try:  # the torch custom ops, where torch can be imported
    import torch as _torch
    from . import _torch_ops
except ImportError:
    _torch = None
    _torch_ops = None


_TorchTensor = _torch.Tensor if _torch is not None else ()


def _first_torch(tensors):
    """The first torch tensor of tensors, else None."""
    for t in tensors:  # a loop, not next(...): this runs on every call
        if isinstance(t, _TorchTensor):
            return t
    return None


def default_context():
    """The context calls use without context=: made by the first call on every PE (collective)."""
    global _default
    if _default is None or _default.closed:
        _default = Context()
    return _default


def _close_default():
    global _default
    if _default is not None and not _default.closed:
        _default.close()
    _default = None
    if _torch_ops is not None:
        _torch_ops.close_all()


def _context(context):
    if context is None:
        return default_context()
    if not isinstance(context, Context):
        raise invalid(f"tdist.kernels: context= takes a tdist.kernels.Context, not {type(context).__name__}")
    return context


# Bound once: a call of it is on every torch call's path (torch.compile knows the function itself).
_is_compiling = _torch.compiler.is_compiling if _torch is not None else (lambda: False)


def _run(name, context, tensors, *config):
    """One call: torch tensors without context= through torch's op of that name (on torch's
    current stream; its functional form while torch.compile traces: the output's last operand
    gets the result), everything else through the C++ call on a context."""
    torch_tensor = _first_torch(tensors) if context is None else None
    if torch_tensor is not None:
        if _is_compiling():
            *inputs, output = tensors
            result = getattr(_torch.ops.tdist, name + "_functional")(*inputs, *config)
            if result.numel() != output.numel():
                raise invalid(f"tdist.kernels.{name}: the output holds {output.numel()} elements, the result "
                              f"{result.numel()} ({tuple(result.shape)})")
            output.copy_(result.reshape(output.shape))
        else:
            # What torch.ops.tdist.<name> does, without the dispatcher's ~15 us a call.
            getattr(_K, name)(_torch_ops.context_for(torch_tensor), *tensors, *config)
    else:
        getattr(_K, name)(_context(context), *tensors, *config)


def all_reduce(input, output=None, *, algorithm="auto", chunk_bytes=0, programs=0, context=None):
    """output = the sum over PEs of input (output may be input, the default). Returns output."""
    output = input if output is None else output
    _run("all_reduce", context, (input, output), algorithm, chunk_bytes, programs)
    return output


def all_gather(input, output, *, chunk_bytes=0, programs=0, engine="auto", context=None):
    """output (n_pes * numel(input) elements) = the inputs of PE 0, 1, ... concatenated."""
    _run("all_gather", context, (input, output), chunk_bytes, programs, engine)
    return output


def reduce_scatter(input, output, *, chunk_bytes=0, programs=0, engine="auto", context=None):
    """output (numel(input) / n_pes elements) on PE p = the sum over PEs of block p of input."""
    _run("reduce_scatter", context, (input, output), chunk_bytes, programs, engine)
    return output


def all_gather_gemm(a, b, c, gathered=None, *, chunks_per_pe=0, tile_m=0, tile_n=0, programs=0,
                    strategy="auto", producer_sms=0, tile_order="auto", context=None):
    """c [n_pes * m_local, N] = gather(a) x b; a: this PE's rows [m_local, K], b: [K, N]. gathered,
    when given, receives gather(a) instead of the context's scratch (which bounds n_pes * m_local * K
    otherwise); with torch tensors it runs on torch's current stream too, though not through the
    torch op, which has no such output. tile_order: the cuda fused GEMM's, "auto" or n (along N) or
    m (along M) and a swizzle of 1, 2, 4 or 8 ("n1", "m4")."""
    config = (chunks_per_pe, tile_m, tile_n, programs, strategy, producer_sms, tile_order)
    if gathered is None:
        _run("all_gather_gemm", context, (a, b, c), *config)
        return c
    torch_tensor = _first_torch((a, b, c, gathered)) if context is None else None
    if torch_tensor is not None and _is_compiling():
        raise invalid("tdist.kernels.all_gather_gemm: gathered= cannot be traced by torch.compile "
                      "(the torch op has no such output)")
    run_on = _torch_ops.context_for(torch_tensor) if torch_tensor is not None else _context(context)
    _K.all_gather_gemm(run_on, a, b, c, *config, gathered)
    return c


def gemm_reduce_scatter(a, b, c, *, chunks_per_pe=0, tile_m=0, tile_n=0, programs=0, strategy="auto",
                        context=None):
    """c [M / n_pes, N] on PE p = rows of block p of the sum over PEs of a [M, k_local] x b [k_local, N]."""
    _run("gemm_reduce_scatter", context, (a, b, c), chunks_per_pe, tile_m, tile_n, programs, strategy)
    return c


def moe_dispatch(x, topk_ids, recv, *, experts, top_k=1, capacity=0, programs=0, context=None):
    """Sends each token's row to the PEs of its top_k experts; returns the DispatchLayout of recv
    (torch tensors: the counts, a [local experts, n_pes] int32 tensor, which moe_combine takes too)."""
    config = (experts, top_k, capacity, programs)
    torch_tensor = _first_torch((x, topk_ids, recv)) if context is None else None
    if torch_tensor is not None:
        if _is_compiling():
            received, counts = _torch.ops.tdist.moe_dispatch_functional(x, topk_ids, *config)
            recv.copy_(received)
            return counts
        layout = _K.moe_dispatch(_torch_ops.context_for(torch_tensor), x, topk_ids, recv, *config)
        return _torch_ops.counts_of(layout, experts)
    return _K.moe_dispatch(_context(context), x, topk_ids, recv, *config)


def moe_combine(expert_out, layout, topk_ids, topk_weights, out, *, experts, top_k=1, capacity=0, programs=0,
                context=None):
    """out[t] = the sum over k of topk_weights[t, k] times the expert output of (t, k). layout: what
    moe_dispatch returned (a DispatchLayout, or its counts as a tensor)."""
    config = (experts, top_k, capacity, programs)
    torch_tensor = _first_torch((expert_out, topk_ids, topk_weights, out)) if context is None else None
    if torch_tensor is not None:
        counts = layout if isinstance(layout, _torch.Tensor) else _torch.tensor(layout.counts, dtype=_torch.int32)
        if _is_compiling():
            out.copy_(_torch.ops.tdist.moe_combine_functional(expert_out, counts, topk_ids, topk_weights, *config))
        else:
            _K.moe_combine(_torch_ops.context_for(torch_tensor), expert_out, _torch_ops.layout_of(counts), topk_ids,
                           topk_weights, out, *config)
        return out
    if _torch is not None and isinstance(layout, _torch.Tensor):
        layout = DispatchLayout(layout.reshape(-1).tolist())
    _K.moe_combine(_context(context), expert_out, layout, topk_ids, topk_weights, out, *config)
    return out
