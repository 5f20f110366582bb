"""The parse floor: `libcst.parse_module` on every `.py` file under a directory, in worker processes.

    python benchmarks/parse_loop.py --jobs 2 DIR

Files are found the way ownlint finds them in a plain directory (every
`.py`, skipping hidden directories, `site-packages` and `__pycache__`), read
as bytes and decoded as UTF-8 (a file that is not UTF-8 is counted, not
parsed, as ownlint does), then parsed and thrown away. Nothing else: no
metadata, no visit. Prints one JSON object: files, parsed, syntax errors,
undecodable files.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
from pathlib import Path

import libcst as cst

SKIPPED = {"site-packages", "__pycache__"}


def python_files(root: Path) -> list[Path]:
    found = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED and not d.startswith("."))
        found.extend(Path(directory, f) for f in sorted(files) if f.endswith(".py"))
    return found


def parse_one(path: Path) -> str:
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return "undecodable"
    try:
        cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError):
        return "syntax_error"
    return "parsed"


def main() -> int:
    parser = argparse.ArgumentParser(description="libcst parse floor")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("root", type=Path)
    args = parser.parse_args()
    files = python_files(args.root)
    counts = {"files": len(files), "parsed": 0, "syntax_error": 0, "undecodable": 0}
    with multiprocessing.Pool(args.jobs) as pool:
        for outcome in pool.imap_unordered(parse_one, files, chunksize=4):
            counts[outcome] += 1
    json.dump(counts, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
