"""Python part of `make bench`: per-call time of a fire through the binding.

    python3 bench/python/bench.py ENVELOPE_FILE SAMPLES OUT_FILE

Rows (interleaved, order shuffled each round): fire(dict), fire_json(str) and
`await fire_async(dict)` on an engine with no hook for preToolUse; fire(dict) on an engine whose
one preToolUse hook is `callback: bench`, a Python function that answers at once with no
decision; and, when BENCH_PYFLOOR names bench/python/floor.c built as a shared library, the
floors of `await fire_async`: a future settled from a C thread through a pipe watched by
`loop.add_reader` (py.floor.reader, the mechanism fire_async uses), and through a ctypes
function called on that thread that calls `loop.call_soon_threadsafe` (py.floor.cst, the one it
used before). One sample = a batch of calls timed as a whole; ns per call is appended to OUT_FILE as
`<row> <ns>` lines.
"""
import asyncio
import ctypes
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bindings", "python"))
from oh_hooks import Hooks  # noqa: E402

BATCH = 1000
ASYNC_BATCH = 200


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
    cb_hooks = Hooks({"cwd": os.getcwd(), "trusted": True,
                      "config": {"hooks": {obj["event"]: [{"callback": "bench"}]}}})
    calls = []
    cb_hooks.register("bench", lambda env: calls.append(1))
    out = cb_hooks.fire(obj)
    if not out.allowed or len(out.hooks) != 1 or out.hooks[0].type != "callback" or calls != [1]:
        print(f"error: python bench: unexpected callback outcome {out.raw}", file=sys.stderr)
        return 1
    loop = asyncio.new_event_loop()
    if loop.run_until_complete(hooks.fire_async(obj)).raw != {"allowed": True, "hooks": []}:
        print("error: python bench: unexpected fire_async outcome", file=sys.stderr)
        return 1

    def fire_cb() -> float:
        t0 = time.perf_counter_ns()
        for _ in range(BATCH):
            cb_hooks.fire(obj)
        return (time.perf_counter_ns() - t0) / BATCH

    async def async_batch() -> None:
        for _ in range(ASYNC_BATCH):
            await hooks.fire_async(obj)

    def fire_async() -> float:
        t0 = time.perf_counter_ns()
        loop.run_until_complete(async_batch())
        return (time.perf_counter_ns() - t0) / ASYNC_BATCH

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

    rows = {"py.fire": fire_dict, "py.fire_json": fire_json, "py.fire.cb": fire_cb, "py.fire_async": fire_async}
    floor_lib = os.environ.get("BENCH_PYFLOOR")
    if floor_lib:
        rows.update(floors(ctypes.CDLL(floor_lib), loop))
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
    cb_hooks.close()
    loop.close()
    with open(sys.argv[3], "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return 0


def floors(lib: ctypes.CDLL, loop: asyncio.AbstractEventLoop) -> dict:
    """The two floor rows (see the module's documentation)."""
    r, w = os.pipe()
    os.set_blocking(r, False)
    waiting = []

    def settle() -> None:
        fut = waiting.pop()
        if not fut.done():
            fut.set_result(None)

    def readable() -> None:
        try:
            os.read(r, 16 * 256)
        except BlockingIOError:
            return
        settle()

    loop.add_reader(r, readable)
    # Kept alive for as long as the C thread may call it.
    floors.callback = ctypes.CFUNCTYPE(None)(lambda: loop.call_soon_threadsafe(settle))
    lib.pyfloor_kick.argtypes = [ctypes.c_char]
    if lib.pyfloor_start(w, floors.callback) != 0:
        raise OSError("cannot start the floor's C thread")

    def row(mode: bytes):
        async def batch() -> None:
            for _ in range(ASYNC_BATCH):
                fut = loop.create_future()
                waiting.append(fut)
                lib.pyfloor_kick(mode)
                await fut

        def sample() -> float:
            t0 = time.perf_counter_ns()
            loop.run_until_complete(batch())
            return (time.perf_counter_ns() - t0) / ASYNC_BATCH
        return sample

    return {"py.floor.reader": row(b"r"), "py.floor.cst": row(b"c")}


if __name__ == "__main__":
    sys.exit(main())
