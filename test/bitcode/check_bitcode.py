#!/usr/bin/env python3
"""libtdist_device.bc as a linker of it sees it, without a GPU: its state global visible and in
constant memory, every entry point defined with external linkage, the module flag Triton's modules
need (nvvm-reflect-ftz 1), and after llc and ptxas a cubin for sm_90a with nothing left
unresolved, whose signals use the release/acquire forms the device library promises.

Usage: check_bitcode.py BITCODE LLVM_DIS LLC PTXAS
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compiler"))
from cuda_tools import expect, ptx_function, report  # noqa: E402

ENTRY_POINTS = ["tdist_rank", "tdist_num_ranks", "tdist_symm_at", "tdist_putmem", "tdist_getmem",
                "tdist_putmem_nbi", "tdist_getmem_nbi", "tdist_putmem_warp", "tdist_putmem_block",
                "tdist_quiet", "tdist_fence", "tdist_program_putmem", "tdist_program_getmem",
                "tdist_program_putmem_nbi", "tdist_program_getmem_nbi", "tdist_program_quiet", "tdist_program_fence",
                "tdist_program_barrier_all", "tdist_program_sync_all"]
for word in ("i32", "i64", "u64"):
    ENTRY_POINTS += [f"tdist_notify_{word}", f"tdist_wait_{word}", f"tdist_signal_op_{word}",
                     f"tdist_signal_wait_until_{word}", f"tdist_putmem_signal_{word}"]
    ENTRY_POINTS += [f"tdist_program_{name}_{word}" for name in (
        "notify", "wait", "putmem_signal", "signal_op", "signal_wait_until", "atomic_fetch_add",
        "atomic_compare_swap", "atomic_swap", "atomic_fetch", "atomic_set", "atomic_add")]

# The template library's link names that the dialect's cuda path calls (a sample of each family).
ENTRY_POINTS += ["_mlir_ciface_aclshmem_my_pe", "_mlir_ciface_aclshmem_n_pes", "_mlir_ciface_aclshmem_ptr_float_m1_m1",
                 "_mlir_ciface_aclshmem_ptr_bfloat16_m0_m0", "_mlir_ciface_aclshmem_consume_token_float_ptr_2d_m2_m2",
                 "_mlir_ciface_aclshmem_consume_token_int32_ptr_1d_m0_m0", "_mlir_ciface_aclshmem_wait_int32_m1",
                 "_mlir_ciface_aclshmem_wait_double", "_mlir_ciface_aclshmemx_signal_op_m1",
                 "_mlir_ciface_aclshmem_int64_p_m1", "_mlir_ciface_aclshmem_float_g_m0", "_mlir_ciface_aclshmem_quiet",
                 "_mlir_ciface_aclshmem_putmem_signal_nbi", "_mlir_ciface_aclshmem_float_put_signal_nbi_m1_m1_m1",
                 "_mlir_ciface_aclshmem_half_get_m1_m1"]



def main():
    bitcode, llvm_dis, llc, ptxas = sys.argv[1:5]
    ir = subprocess.run([llvm_dis, bitcode, "-o", "-"], check=True, capture_output=True, text=True).stdout
    state = re.search(r"^@tdist_device_state = (.*)$", ir, flags=re.MULTILINE)
    expect(state is not None, "no @tdist_device_state global")
    if state:
        expect("addrspace(4)" in state.group(1), f"the state is not in constant memory: {state.group(1)[:80]}")
        expect(not re.match(r"(internal|private|linkonce|weak)", state.group(1)), "the state is not visible")
    for name in ENTRY_POINTS:
        definition = re.search(r"^define (\S+ )*?[^@\n]*@" + name + r"\(", ir, flags=re.MULTILINE)
        expect(definition is not None and "internal" not in definition.group(0), f"{name} is not defined visibly")
    expect(re.search(r'!\{i32 \d+, !"nvvm-reflect-ftz", i32 1\}', ir) is not None,
           "the module flag nvvm-reflect-ftz is not 1 (build with -fgpu-flush-denormals-to-zero)")

    with tempfile.TemporaryDirectory() as folder:
        ptx_path, cubin = f"{folder}/device.ptx", f"{folder}/device.cubin"
        subprocess.run([llc, "-march=nvptx64", "-mcpu=sm_90a", "-mattr=+ptx80", "-nvptx-short-ptr", bitcode, "-o", ptx_path],
                       check=True)
        ptx = open(ptx_path).read()
        expect(re.search(r"^\.visible \.const \.align 8 \.b8 tdist_device_state\[\d+\];", ptx, flags=re.MULTILINE),
               "the PTX has no .visible .const tdist_device_state")
        expect(".extern" not in ptx, "the PTX declares an external symbol: "
               + ", ".join(re.findall(r"\.extern[^\n]*", ptx))[:200])
        notify = ptx_function(ptx, "tdist_notify_u64")
        expect(re.search(r"st\.release\.(gpu|sys)", notify) and re.search(r"red\.release\.(gpu|sys)[^\n]*add", notify),
               "tdist_notify_u64 does not store with release (SET) and add with release (ADD)")
        wait = ptx_function(ptx, "tdist_signal_wait_until_u64")
        expect(re.search(r"ld\.acquire\.(gpu|sys)", wait), "tdist_signal_wait_until_u64 does not load with acquire")
        program_notify = ptx_function(ptx, "tdist_program_notify_u64")
        expect("bar.sync" in program_notify and re.search(r"st\.release\.(gpu|sys)", program_notify),
               "tdist_program_notify_u64 does not store with release after a CTA barrier")
        program_wait = ptx_function(ptx, "tdist_program_wait_u64")
        expect("bar.sync" in program_wait and re.search(r"ld\.acquire\.(gpu|sys)", program_wait),
               "tdist_program_wait_u64 does not load with acquire and end with a CTA barrier")
        point_put = ptx_function(ptx, "_mlir_ciface_aclshmem_int64_p_m1")
        expect(re.search(r"st\.release\.(gpu|sys)", point_put),
               "_mlir_ciface_aclshmem_int64_p_m1 (the dialect's 64-bit notify) does not store with release")
        run = subprocess.run([ptxas, "-arch=sm_90a", "-c", ptx_path, "-o", cubin], capture_output=True, text=True)
        expect(run.returncode == 0, f"ptxas failed: {run.stderr[:400]}")

    report(f"libtdist_device.bc: {len(ENTRY_POINTS)} entry points and the state global, linked to a sm_90a cubin")


if __name__ == "__main__":
    main()
