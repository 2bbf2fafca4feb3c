"""Python part of `make bench`: per-call time of a no-match fire through the binding.

    python3 bench/python/bench.py ENVELOPE_FILE SAMPLES OUT_FILE

Rows (interleaved, order shuffled each round): fire(dict) and fire_json(str). One sample =
1000 calls timed as a whole; ns per call is appended to OUT_FILE as `<row> <ns>` lines. The
engine: inline config with no hook for preToolUse.
"""
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
from oh_hooks import Hooks  # noqa: E402

BATCH = 1000


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: bench.py ENVELOPE_FILE SAMPLES OUT_FILE", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read().strip()
    obj = json.loads(text)
    samples = int(sys.argv[2])
    hooks = Hooks({"cwd": os.getcwd(), "trusted": True,
                   "config": {"hooks": {"postToolUse": [{"command": "true"}]}}})
    out = hooks.fire(obj)
    if not out.allowed or out.hooks or out.error:
        print(f"error: python bench: unexpected outcome {out.raw}", file=sys.stderr)
        return 1
    if hooks.fire_json(text) != '{"allowed":true,"hooks":[]}':
        print(f"error: python bench: unexpected outcome {hooks.fire_json(text)}", file=sys.stderr)
        return 1

    def fire_dict() -> float:
        t0 = time.perf_counter_ns()
        for _ in range(BATCH):
            hooks.fire(obj)
        return (time.perf_counter_ns() - t0) / BATCH

    def fire_json() -> float:
        t0 = time.perf_counter_ns()
        for _ in range(BATCH):
            hooks.fire_json(text)
        return (time.perf_counter_ns() - t0) / BATCH

    rows = {"py.fire": fire_dict, "py.fire_json": fire_json}
    names = list(rows)
    for _ in range(2):
        for n in names:
            rows[n]()
    lines = []
    for _ in range(samples):
        random.shuffle(names)
        for n in names:
            lines.append(f"{n} {rows[n]():.1f}")
    hooks.close()
    with open(sys.argv[3], "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
