"""tdist.language and tdist.language.shmem compiled by stock Triton (PyPI's, pinned as the GPU
machine's) for sm_90a without a GPU: every function links to the device library with nothing left
unresolved, the signals use the release/acquire forms and program barriers the library promises,
consume_token keeps loads vectorised and after the wait, and bad arguments are compile errors that
say what the distributed dialect's verifier says. Skipped (status 77) where triton or the device
library is missing."""

import os
import re
import tempfile

import pytest

# Compiled here, not taken from a cache that an earlier build of tdist filled.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tdist-triton-cache-")

triton = pytest.importorskip("triton")

import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

os.environ.setdefault("TDIST_LANGUAGE_PLATFORM", "cuda")  # compiling for a GPU this machine may lack
import tdist.language as tdl  # noqa: E402
import tdist.language.shmem as shmem  # noqa: E402
from conftest import example  # noqa: E402

try:
    tdl.device_library()
except FileNotFoundError as missing:
    pytest.skip(str(missing), allow_module_level=True)

TARGET = GPUTarget("cuda", 90, 32)


def compile_kernel(fn, signature, constexprs=None):
    """fn compiled as tdl.jit launches it, with 16-byte aligned pointers (Triton's specialisation)."""
    constexprs = constexprs or {}
    attrs = {(i,): [["tt.divisibility", 16]] for i, kind in enumerate(signature.values()) if kind.startswith("*")}
    source = ASTSource(fn=fn, signature={**signature, **{k: "constexpr" for k in constexprs}},
                       constexprs=constexprs, attrs=attrs)
    return triton.compile(source, target=TARGET, options={"extern_libs": {tdl.LIBRARY: tdl.device_library()}})


def entry(ptx):
    return ptx[ptx.index(".entry"):]


def unresolved(ptx):
    return re.findall(r"\.extern \.func[^\n]*", ptx)


@tdl.jit
def every_dl_call(data, signals, out, N: tl.constexpr):
    me = tdl.rank()
    peer = (me + 1) % tdl.num_ranks()
    offsets = tl.arange(0, N)
    tl.store(tdl.symm_at(data, peer) + offsets, tl.load(data + offsets))
    tdl.notify(signals, peer, signal=1, sig_op="set")
    tdl.notify(signals + 8, peer, signal=2, sig_op="add", comm_scope="intra_node")
    token = tdl.wait(signals, 2, "sys", "acquire", 1)
    tl.store(out + offsets, tl.load(tdl.consume_token(data, token) + offsets))


@tdl.jit
def every_shmem_call(data, source, signals, counters, out, N: tl.constexpr):
    me = shmem.my_pe()
    peer = (me + 1) % shmem.n_pes()
    shmem.putmem_block(data, source, N * 4, peer)
    shmem.getmem_block(data, source, N * 4, peer)
    shmem.putmem_nbi_block(data, source, N * 4, peer)
    shmem.getmem_nbi_block(data, source, N * 4, peer)
    shmem.quiet()
    shmem.fence()
    shmem.putmem_signal_block(data, source, N * 4, signals, 1, "set", peer)
    shmem.signal_op(signals + 8, 1, "add", peer)
    seen = shmem.signal_wait_until(signals, "ge", 1)
    old = shmem.atomic_fetch_add(counters, 1, peer)
    old += shmem.atomic_compare_swap(counters + 1, 0, 1, peer)
    old += shmem.atomic_swap(counters + 2, 5, peer)
    old += shmem.atomic_fetch(counters + 3, peer)
    shmem.atomic_set(counters + 4, 7, peer)
    shmem.atomic_add(counters + 5, 7, peer)
    shmem.barrier_all()
    shmem.sync_all()
    tl.store(out, seen + old)


def test_every_dl_function_links_to_a_cubin():
    kernel = compile_kernel(every_dl_call, {"data": "*fp32", "signals": "*u64", "out": "*fp32"}, {"N": 1024})
    ptx = kernel.asm["ptx"]
    assert unresolved(ptx) == [] and len(kernel.asm["cubin"]) > 0
    body = entry(ptx)
    # notify: a barrier of the program's threads, then one release store (SET) or reduction (ADD).
    assert "bar.sync" in body
    assert re.search(r"st\.release\.(gpu|sys)", body) and re.search(r"red\.release\.(gpu|sys)[^\n]*add", body)
    # wait: acquire loads.
    assert re.search(r"ld\.acquire\.(gpu|sys)", body)


def test_every_shmem_function_links_to_a_cubin():
    kernel = compile_kernel(every_shmem_call, {"data": "*fp32", "source": "*fp32", "signals": "*u64",
                                               "counters": "*i64", "out": "*i64"}, {"N": 256})
    assert unresolved(kernel.asm["ptx"]) == [] and len(kernel.asm["cubin"]) > 0
    body = entry(kernel.asm["ptx"])
    assert re.search(r"atom\.[a-z_.]*(acq_rel|release|acquire)[a-z_.]*\.(gpu|sys)", body) or "atom." in body


@tdl.jit
def consumed_load(data, signals, out, N: tl.constexpr, CONSUME: tl.constexpr):
    offsets = tl.arange(0, N)
    token = tdl.wait(signals, 1, "sys", "acquire")
    if CONSUME:
        data = tdl.consume_token(data, token)
    tl.store(out + offsets, tl.load(data + offsets))


def test_consume_token_keeps_loads_vectorised_and_after_the_wait():
    signature = {"data": "*fp32", "signals": "*u64", "out": "*fp32"}
    plain = entry(compile_kernel(consumed_load, signature, {"N": 1024, "CONSUME": False}).asm["ptx"])
    consumed = entry(compile_kernel(consumed_load, signature, {"N": 1024, "CONSUME": True}).asm["ptx"])
    vector_loads = r"ld\.global[^\n]*\.v4\.b32"
    assert len(re.findall(vector_loads, consumed)) == len(re.findall(vector_loads, plain)) > 0
    # Every load of the data comes after the wait's closing barrier.
    last_barrier = consumed.rindex("bar.sync")
    assert all(m.start() > last_barrier for m in re.finditer(vector_loads, consumed))


@tdl.jit
def symm_at_of_a_tensor(data, N: tl.constexpr):
    tl.store(tdl.symm_at(data + tl.arange(0, N), 1), 1.0)


@tdl.jit
def notify_int32(signals):
    tdl.notify(signals, 0)


@tdl.jit
def notify_bad_op(signals):
    tdl.notify(signals, 0, 1, "xor")


@tdl.jit
def wait_zero(signals):
    tdl.wait(signals, 0, "sys", "acquire")


@tdl.jit
def wait_bad_scope(signals):
    tdl.wait(signals, 1, "world", "acquire")


@tdl.jit
def wait_release(signals):
    tdl.wait(signals, 1, "sys", "release")


@tdl.jit
def wait_float(signals):
    tdl.wait(signals, 1, "sys", "acquire")


@tdl.jit
def rank_axis_one(out):
    tl.store(out, tdl.rank(1))


@tdl.jit
def consume_a_float(data, signals):
    token = tdl.wait(signals, 1, "sys", "acquire")
    tl.store(data, tdl.consume_token(tl.load(data), token))


@tdl.jit
def signal_bad_cmp(signals, out):
    tl.store(out, shmem.signal_wait_until(signals, "almost", 1))


@pytest.mark.parametrize("kernel,signature,constexprs,message", [
    (symm_at_of_a_tensor, {"data": "*fp32"}, {"N": 16}, "symm_at: expected a pointer, got a tensor of pointers"),
    (notify_int32, {"signals": "*i32"}, {}, "notify: signal type int32 is not allowed on this target"),
    (notify_bad_op, {"signals": "*u64"}, {}, "notify: sig_op must be 'set' or 'add', got 'xor'"),
    (wait_zero, {"signals": "*u64"}, {}, "wait: the number of barriers must be positive and at most 65536, got 0"),
    (wait_bad_scope, {"signals": "*u64"}, {}, "wait: scope must be one of gpu, cta, sys, got 'world'"),
    (wait_release, {"signals": "*u64"}, {}, "wait: semantic must be 'acquire' or 'relaxed', got 'release'"),
    (wait_float, {"signals": "*fp32"}, {}, "wait: signal type fp32 is not allowed"),
    (rank_axis_one, {"out": "*i32"}, {}, "rank: axis 1 does not exist"),
    (consume_a_float, {"data": "*fp32", "signals": "*u64"}, {}, "consume_token: expected a pointer"),
    (signal_bad_cmp, {"signals": "*u64", "out": "*u64"}, {}, "signal_wait_until: cmp: expected one of eq, ne"),
])
def test_bad_arguments_are_compile_errors_that_say_why(kernel, signature, constexprs, message):
    with pytest.raises(triton.CompilationError) as raised:
        compile_kernel(kernel, signature, constexprs)
    assert message in str(raised.value), str(raised.value)[-600:]


def test_kernels_of_tdl_jit_carry_the_language_in_their_cache_key():
    key = every_dl_call.cache_key
    assert "-tdist-" in key and key.endswith(tdl._runtime._LANGUAGE_HASH)


def test_attaching_what_is_not_a_module_is_an_error():
    import tdist
    with pytest.raises(tdist.Error):  # no driver here: NotSupported; a bad handle on a GPU: InvalidParam
        tdist._C.cuda_module_attach(0)


def test_the_ring_allreduce_example_compiles():
    ring = example("ring_allreduce").ring_allreduce
    kernel = compile_kernel(ring, {"data": "*fp32", "staging": "*fp32", "signals": "*u64", "epoch": "i32"},
                            {"CHUNK": 65536, "TILE": 16384})
    ptx = kernel.asm["ptx"]
    assert unresolved(ptx) == [] and len(kernel.asm["cubin"]) > 0
    assert re.search(r"st\.release\.(gpu|sys)", ptx) and re.search(r"ld\.acquire\.(gpu|sys)", ptx)


def test_the_allgather_gemm_example_compiles_to_tensor_core_tiles():
    gemm = example("allgather_gemm").allgather_gemm
    signature = {"a": "*fp16", "b": "*fp16", "c": "*fp16", "gathered": "*fp16", "signals": "*u64", "epoch": "i32",
                 "M_LOCAL": "i32", "K": "i32", "N": "i32", "CONSUMERS": "i32"}
    kernel = compile_kernel(gemm, signature, {"PRODUCERS": 2, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64,
                                              "COPY": 4096})
    ptx = kernel.asm["ptx"]
    assert unresolved(ptx) == [] and len(kernel.asm["cubin"]) > 0
    assert re.search(r"wgmma|mma\.sync", ptx)


def test_the_kernel_of_docs_triton_compiles_as_printed(tmp_path):
    import importlib.util
    page = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "TRITON.md"), encoding="utf-8").read()
    blocks = re.findall(r"^```python\n(.*?)^```", page, flags=re.MULTILINE | re.DOTALL)
    assert blocks, "docs/TRITON.md has no python block"
    program = tmp_path / "docs_triton.py"  # imported, not run: its launch runs as a program, on a GPU
    program.write_text(blocks[0])
    spec = importlib.util.spec_from_file_location("docs_triton", program)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = compile_kernel(module.pass_right, {"data": "*fp32", "signals": "*u64", "out": "*fp32"}, {"N": 1024})
    assert unresolved(kernel.asm["ptx"]) == [] and len(kernel.asm["cubin"]) > 0


def test_the_benchmarks_kernels_compile_with_the_global_timer():
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "triton_kernels.py")
    spec = importlib.util.spec_from_file_location("triton_kernels_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    signature = {"slot": "*u64", "elapsed": "*u64", "partner": "i32", "first": "i32", "base": "i32",
                 "lead_in": "i32", "iters": "i32"}
    ptx = compile_kernel(bench.pingpong, signature).asm["ptx"]
    assert unresolved(ptx) == [] and "%globaltimer" in ptx
    lead_in = compile_kernel(bench.lead_in_kernel, {"ns": "i64"}).asm["ptx"]
    assert lead_in.count("%globaltimer") >= 2  # the start and the loop's reads
