#!/usr/bin/env python3
"""tdist-cuda-pipeline on every IR example, without a GPU: each compiles to PTX and to a cubin for
sm_90a, and the PTX has what the cuda backend relies on: the kernel, of one thread per block, reads
its block's coordinates where the example asks for its program, the device library's state is there
to be filled by the runtime, nothing is left unresolved, and the library functions the kernel calls
order their signals: a notify (aclshmemx_signal_op, a put's signal, or a point put for 64-bit
signals) stores with release, a wait loads with acquire. Exits 77 (skipped) where the device library's bitcode or ptxas
is missing.

Usage: cuda_pipeline_examples.py TDIST_OPT EXAMPLES_DIR DEVICE_BITCODE CUDA_TOOLKIT
"""
import glob
import os
import re
import subprocess
import sys

from cuda_tools import expect, ptx_function, report, require_device_library_and_ptxas


def unescape(text):
    """An MLIR string attribute's text as the bytes it holds (\\XX escapes)."""
    return re.sub(rb"\\([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), text.encode("latin-1"))


def binary_object(mlir, key):
    """The `key = "..."` string of the gpu.binary's object, unescaped."""
    match = re.search(key + r' = "((?:[^"\\]|\\.)*)"', mlir, flags=re.DOTALL)
    return unescape(match.group(1)) if match else None


def compile_example(tdist_opt, path, options):
    run = subprocess.run([tdist_opt, path, "--tdist-cuda-pipeline=" + options], capture_output=True, text=True,
                         encoding="latin-1")
    if run.returncode != 0:
        failures.append(f"{os.path.basename(path)}: tdist-cuda-pipeline=\"{options}\" failed:\n{run.stderr[:2000]}")
        return None
    return run.stdout


def check_example(tdist_opt, path, library, toolkit):
    name = os.path.basename(path)
    source = open(path, encoding="utf-8").read()
    kernel = re.search(r"func\.func @(\w+)\(", source).group(1)
    options = f"device-library={library} toolkit={toolkit}"
    isa = compile_example(tdist_opt, path, "format=isa " + options)
    cubin = compile_example(tdist_opt, path, options)
    if isa is None or cubin is None:
        return
    ptx = binary_object(isa, "assembly")
    expect(ptx is not None, f"{name}: no PTX in the gpu.binary")
    if ptx is None:
        return
    ptx = ptx.decode("latin-1")
    entry = ptx_function(ptx, kernel)
    expect(entry.startswith(".visible .entry"), f"{name}: no kernel .entry {kernel}")
    expect(re.search(r"^\.maxntid 1, 1, 1$", entry, flags=re.MULTILINE), f"{name}: {kernel} is not one thread per block")
    if "tdist_program_id" in source:
        expect("%ctaid.x" in entry, f"{name}: {kernel} does not read its block's index for tdist_program_id")
    if "tdist_num_programs" in source:
        expect("%nctaid.x" in entry, f"{name}: {kernel} does not read the grid's size for tdist_num_programs")
    expect(re.search(r"^\.visible \.const \.align 8 \.b8 tdist_device_state\[\d+\];", ptx, flags=re.MULTILINE),
           f"{name}: the PTX has no visible tdist_device_state for the runtime to fill")
    expect(".extern" not in ptx, f"{name}: unresolved: " + ", ".join(re.findall(r"\.extern[^\n]*", ptx))[:300])

    called = set(re.findall(r"call(?:\.uni)? (?:\(retval0\), )?(_mlir_ciface_\w+)", entry))
    # The signal of a put-with-signal (ag_gemm's extern_call) is a notify as well.
    notifies = [f for f in called if re.search(r"signal_op|put_signal|_u?int64_p(_m[01])?$", f)]
    waits = [f for f in called if "_wait_" in f]
    expect("distributed.notify" not in source or notifies, f"{name}: {kernel} calls no notify of the library")
    expect("distributed.wait" not in source or waits, f"{name}: {kernel} calls no wait of the library")
    for function in notifies:
        body = ptx_function(ptx, function)
        expect(re.search(r"st\.release\.sys\.global", body), f"{name}: {function} has no st.release.sys")
    for function in waits:
        body = ptx_function(ptx, function)
        expect(re.search(r"ld\.acquire\.sys\.global", body), f"{name}: {function} has no ld.acquire.sys")

    elf = binary_object(cubin, "bin")
    expect(elf is not None and elf.startswith(b"\x7fELF"), f"{name}: the default format is not a cubin (ELF)")
    print(f"{name}: {kernel}, {len(ptx)} bytes of PTX, {len(elf or b'')} bytes of cubin; "
          f"notify {sorted(notifies)}, wait {sorted(waits)}")


def main():
    tdist_opt, examples, library, toolkit = sys.argv[1:5]
    require_device_library_and_ptxas(library, toolkit)
    paths = sorted(glob.glob(os.path.join(examples, "*.mlir")))
    expect(paths, f"no examples in {examples}")
    for path in paths:
        check_example(tdist_opt, path, library, toolkit)
    report(f"{len(paths)} examples compiled to sm_90a cubins")


if __name__ == "__main__":
    main()
