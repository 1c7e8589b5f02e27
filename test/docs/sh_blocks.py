#!/usr/bin/env python3
"""Runs the ```sh blocks of a Markdown page as printed, each by bash in a fresh folder where
build/ is the build tree, bench/ the project's benchmark scripts, examples/ its examples and test/
its test tools (so that files the commands make stay out of the checkout). The first
that fails ends the test with its output; one that exits 77 (a tool that cannot run here, as
test/network/netns_job.py without root) ends it skipped.

Usage: sh_blocks.py PAGE.md BUILD_DIR [TEXT]   (with TEXT: only the blocks that contain it; with
!TEXT: only those that do not)
"""
import os
import re
import subprocess
import sys
import tempfile

SKIPPED = 77  # ctest's skip code, as the project's tests use it
SOURCE = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run_blocks(page, build, cwd=None, containing=""):
    """Runs the page's ```sh blocks (those that contain `containing`), in cwd, or else each in a
    fresh folder whose build/ is build; exits with the output of the first that fails. Returns
    how many ran."""
    blocks = re.findall(r"^```sh\n(.*?)^```", open(page, encoding="utf-8").read(), flags=re.MULTILINE | re.DOTALL)
    if containing.startswith("!"):
        blocks = [block for block in blocks if containing[1:] not in block]
    else:
        blocks = [block for block in blocks if containing in block]
    for index, block in enumerate(blocks, start=1):
        with tempfile.TemporaryDirectory() as folder:
            if cwd is None:
                os.symlink(os.path.realpath(build), os.path.join(folder, "build"))
                for shared in ("bench", "examples", "test"):
                    os.symlink(os.path.join(SOURCE, shared), os.path.join(folder, shared))
            run = subprocess.run(["bash", "-e", "-c", block], cwd=cwd or folder, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, timeout=240)
        print(f"sh block {index} of {os.path.basename(page)}: status {run.returncode}")
        if run.returncode == SKIPPED:
            print(run.stdout)
            sys.exit(SKIPPED)
        if run.returncode != 0:
            print(block)
            print(run.stdout)
            sys.exit(1)
    return len(blocks)


def main():
    page, build = sys.argv[1], sys.argv[2]
    ran = run_blocks(page, build, containing=sys.argv[3] if len(sys.argv) > 3 else "")
    if ran == 0:
        sys.exit(f"sh_blocks.py: {page} has no ```sh block")
    print(f"{ran} sh blocks ran")


if __name__ == "__main__":
    main()
