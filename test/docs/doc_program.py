#!/usr/bin/env python3
"""Turns the C++ examples of a Markdown page into one program, as printed.

Usage: doc_program.py PAGE.md OUT.cpp

The page's ```cpp blocks, in order: their #include lines go to the top; the rest of the first
block opens main(), and every later block runs in a scope of its own (so that two examples may
name their tensors alike) after the first's declarations; the runtime is finalized after the
last. The examples themselves are not changed.
"""
import re
import sys


def blocks(text):
    return re.findall(r"^```cpp\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def main():
    page, out = sys.argv[1], sys.argv[2]
    found = blocks(open(page, encoding="utf-8").read())
    if not found:
        sys.exit(f"doc_program.py: {page} has no ```cpp block")
    includes, bodies = [], []
    for block in found:
        lines = block.splitlines()
        includes += [line for line in lines if line.startswith("#include")]
        bodies.append("\n".join(line for line in lines if not line.startswith("#include")))
    program = [f"// Generated from {page.split('/')[-1]} by doc_program.py: its examples, as printed.",
               "#include <cstdint>", "#include <vector>", '#include "tdist/runtime.h"',
               '#include "tdist/shmem.h"']
    program += includes
    program += ["", "int main() {", "  {", bodies[0]]
    for index, body in enumerate(bodies[1:], start=2):
        program += [f"  {{  // example {index}", body, "  }"]
    program += ["  }", "  tdist::finalize();", "  return 0;", "}", ""]
    open(out, "w", encoding="utf-8").write("\n".join(program))


if __name__ == "__main__":
    main()
