#!/usr/bin/env python3
"""Every relative link of the project's Markdown pages names a file or folder that exists.

Usage: links.py ROOT. Checks README.md and docs/**/*.md; external links (with a scheme) and pure
anchors are left alone, a link's own anchor (#...) is dropped before the check. Prints every
broken link as PAGE:LINE: TARGET and exits 1 if there is one.
"""
import pathlib
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def pages(root):
    yield root / "README.md"
    yield from sorted((root / "docs").rglob("*.md"))


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    broken, checked = [], 0
    for page in pages(root):
        fenced = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if fenced:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue
                checked += 1
                path = target.split("#", 1)[0]
                if not (page.parent / path).exists():
                    broken.append(f"{page.relative_to(root)}:{number}: {target}")
    for line in broken:
        print(line)
    print(f"{checked} relative links checked, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
