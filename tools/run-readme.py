#!/usr/bin/env python3
"""Runs the README's "A first hook" and "A first program in each language" exactly as written.

Each program file the README introduces as "`/tmp/first/<file>`:" followed by a code block is
written to that path, then every `sh` block of the two sections runs in order, in one bash per
block, from the repository root. The CLI's `fire` must deny, and each language's program must
print the hook's reason. Needs what the README says: a release build (`cargo build --release
--locked`), gcc, python3, node with npm, go. Not part of `make test` (it builds the Node addon
and a Go program); run it after changing those README sections:

    python3 tools/run-readme.py
"""

import os
import re
import shutil
import subprocess
import sys

REASON = "no rm -rf here"


def main():
    if not os.path.exists("README.md"):
        sys.exit("run-readme: run me from the repository root")
    text = open("README.md", encoding="utf-8").read()
    start = text.index("## A first hook")
    end = text.index("\n## ", text.index("## A first program in each language"))
    sections = text[start:end]
    shutil.rmtree("/tmp/first", ignore_errors=True)
    files = re.findall(r"`(/tmp/first/[^`]+)`[^\n]*:\n\n```\w+\n(.*?)```", sections, re.S)
    for path, body in files:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(body)
    failures = []
    blocks = re.findall(r"```sh\n(.*?)```", sections, re.S)
    for block in blocks:
        run = subprocess.run(["bash", "-c", block], capture_output=True, text=True)
        out = run.stdout + run.stderr
        first = block.strip().splitlines()[-1]
        # Every block ends by running something that meets the hook: its output names the
        # reason. The CLI's fire exits 1 for a deny; everything else succeeds.
        expected = 1 if "oh-hooks fire" in first else 0
        ok = run.returncode == expected and REASON in out
        print(("ok   " if ok else "FAIL ") + first)
        if not ok:
            failures.append(first)
            print("\n".join("     " + l for l in out.strip().splitlines()[-15:]))
    print(f"run-readme: {len(blocks) - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
