#!/usr/bin/env python3
"""Runs the Python examples of a Markdown page as printed: each ```python block is a program,
written to a file and run by every PE of a job under tdist-run. The first that fails ends the
test with its output. A ```python torch block needs torch: it runs where torch can be imported
and is reported as not run elsewhere.

With SOURCE_DIR and BUILD_DIR, the page's ```sh blocks run too, as printed, by bash in
SOURCE_DIR: they name the build tree as build/, so they run where BUILD_DIR is SOURCE_DIR/build
(scripts/build.sh's) and are reported as not run elsewhere.

Usage: python_examples.py PAGE.md TDIST_RUN PES [SOURCE_DIR BUILD_DIR]
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    page, tdist_run, pes = sys.argv[1], sys.argv[2], sys.argv[3]
    blocks = re.findall(r"^```python( torch)?\n(.*?)^```", open(page, encoding="utf-8").read(),
                        flags=re.MULTILINE | re.DOTALL)
    if not blocks:
        sys.exit(f"python_examples.py: {page} has no ```python block")
    has_torch = subprocess.run([sys.executable, "-c", "import torch"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL).returncode == 0
    not_run = 0
    with tempfile.TemporaryDirectory() as folder:
        for index, (needs, block) in enumerate(blocks, start=1):
            if needs and not has_torch:
                print(f"example {index} of {os.path.basename(page)}: not run (it needs torch)")
                not_run += 1
                continue
            program = os.path.join(folder, f"example_{index}.py")
            with open(program, "w", encoding="utf-8") as out:
                out.write(block)
            run = subprocess.run([tdist_run, "-n", pes, "--", sys.executable, program],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
            print(f"example {index} of {os.path.basename(page)} on {pes} PEs: status {run.returncode}")
            if run.returncode != 0:
                print(block)
                print(run.stdout)
                sys.exit(1)
    print(f"{len(blocks) - not_run} examples ran" + (f", {not_run} not run (no torch)" if not_run else ""))
    if len(sys.argv) > 5:
        run_shell_blocks(page, sys.argv[4], sys.argv[5])


def run_shell_blocks(page, source, build):
    from sh_blocks import run_blocks
    if os.path.realpath(build) != os.path.realpath(os.path.join(source, "build")):
        print(f"sh blocks not run: the build tree is not {source}/build")
        return
    run_blocks(page, build, cwd=source)


if __name__ == "__main__":
    main()
