#!/usr/bin/env python3
"""Runs the ```sh blocks of a page that use tdist-cuda-pipeline, as printed, in a fresh folder where
build/ is the build tree and examples/ the project's examples, with the CUDA toolkit's bin/ (which
CMake found) first on PATH, as the pages ask. Exits 77 (skipped) without the device library's
bitcode or a toolkit with ptxas.

Usage: cuda_pipeline_commands.py PAGE.md SOURCE_DIR BUILD_DIR DEVICE_BITCODE CUDA_TOOLKIT
"""
import os
import sys
import tempfile

from sh_blocks import run_blocks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compiler"))
from cuda_tools import require_device_library_and_ptxas  # noqa: E402


def main():
    page, source, build, library, toolkit = sys.argv[1:6]
    require_device_library_and_ptxas(library, toolkit)
    os.environ["PATH"] = os.path.join(toolkit, "bin") + os.pathsep + os.environ.get("PATH", "")
    with tempfile.TemporaryDirectory() as folder:
        os.symlink(os.path.realpath(build), os.path.join(folder, "build"))
        os.symlink(os.path.join(os.path.realpath(source), "examples"), os.path.join(folder, "examples"))
        ran = run_blocks(page, build, cwd=folder, containing="tdist-cuda-pipeline")
    if ran == 0:
        sys.exit(f"cuda_pipeline_commands.py: {page} has no ```sh block with tdist-cuda-pipeline")
    print(f"{ran} sh blocks ran")


if __name__ == "__main__":
    main()
