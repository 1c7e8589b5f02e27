#!/usr/bin/env python3
"""portable_ir.py IN.ll OUT.ll - the device library's LLVM IR (text, from LLVM 22) without the
constructs that LLVM 22 introduced and older LLVMs cannot parse, so that the LLVM inside a Triton
release (3.6: an LLVM 21 snapshot) links it: the one-argument lifetime intrinsics (markers only,
dropped with their declarations), the nocreateundeforpoison attribute (an optimisation hint) and
the target memory locations of a memory attribute (", target_mem0: none" in
"memory(readwrite, target_mem0: none, target_mem1: none)": dropped, the function may then touch
them, which only loses an optimisation).
Fails, naming the construct, if IN still holds one after the rewrite."""
import re
import sys

LIFETIME_CALL = re.compile(r"^\s*(?:tail |musttail |notail )?call void @llvm\.lifetime\.(?:start|end)\.p\d+\(.*\n",
                           flags=re.MULTILINE)
LIFETIME_DECLARATION = re.compile(r"^declare void @llvm\.lifetime\.(?:start|end)\.p\d+\(.*\n", flags=re.MULTILINE)
TARGET_MEMORY = re.compile(r", target_mem\d+: (?:none|read|write|readwrite)\b")
DROPPED = [(LIFETIME_CALL, ""), (LIFETIME_DECLARATION, ""), (re.compile(r" nocreateundeforpoison\b"), ""),
           (TARGET_MEMORY, "")]


def main():
    source, target = sys.argv[1:3]
    ir = open(source, encoding="utf-8").read()
    for pattern, replacement in DROPPED:
        ir = pattern.sub(replacement, ir)
    for left in ("llvm.lifetime.", "nocreateundeforpoison", "target_mem"):
        if left in ir:
            sys.exit(f"portable_ir.py: {source} still holds {left} after the rewrite")
    with open(target, "w", encoding="utf-8") as out:
        out.write(ir)


if __name__ == "__main__":
    main()
