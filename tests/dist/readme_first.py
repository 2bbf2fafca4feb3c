"""Extracts the "First program" of a package README into a directory, so that the dist suite runs
exactly what the README says (the doc and the test cannot drift):

    python3 readme_first.py README DIR PROGRAM_FILE

writes DIR/setup.sh (the section's first `sh` block: the project), DIR/PROGRAM_FILE (its first
block in another language: the program) and DIR/run.sh (its next `sh` block: build and run).
README may also be `-`: the text on stdin (the wheel's README comes from its metadata).
"""

import re
import sys


def main() -> int:
    src, out, program = sys.argv[1:4]
    text = sys.stdin.read() if src == "-" else open(src, encoding="utf-8").read()
    m = re.search(r"^## First program\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        print(f"{src}: no '## First program' section", file=sys.stderr)
        return 1
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", m.group(1), re.S | re.M)
    shells = [body for lang, body in blocks if lang == "sh"]
    code = [body for lang, body in blocks if lang not in ("sh", "")]
    if len(shells) < 2 or not code:
        print(f"{src}: 'First program' needs a sh block, a program block and a sh block; found {[l for l, _ in blocks]}", file=sys.stderr)
        return 1
    for name, body in (("setup.sh", shells[0]), (program, code[0]), ("run.sh", shells[1])):
        with open(f"{out}/{name}", "w", encoding="utf-8") as f:
            f.write(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
