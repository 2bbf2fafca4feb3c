#!/usr/bin/env python3
"""Runs the test executables `cargo test ... --no-run` built, several at once.

usage: tools/test-pool.py [--jobs N] [--env NAME=VALUE]... -- CARGO_TEST_ARGS...

Builds with `cargo test --no-run --message-format=json CARGO_TEST_ARGS` (the build output goes to
stderr, as cargo prints it), then runs every test executable cargo reported, from the repository
root as `cargo test` does, N at a time (default 3), the slowest first. Each executable's output is
printed whole once it has finished, in cargo's order (unit tests, then the integration tests by
name), under cargo's own `Running <src> (<path>)` line, so the `test result:` lines read as
cargo's do. Exit status 1 when the build or any executable failed (a crash or a hang past
--timeout seconds included: its log says so).

Why: cargo runs test executables one after another, and most of their time is spent waiting
for hooks, timeouts and child processes (the rust suite's 15 executables ran 150 s, 70 of them
in `it`); each executable is its own process with its own temporary directories, so they can run
side by side (docs/TESTING.md, "How the suites share the machine").
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

# The slowest first, so a long one does not start last and run alone (seconds measured in
# make test; the rest take a few seconds or less).
SLOW_FIRST = ["it", "hardening_process", "hardening_host", "lifecycle", "persistent", "bounds", "hardening_memory"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the executables")
    ap.add_argument("cargo_args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.cargo_args[1:] if a.cargo_args[:1] == ["--"] else a.cargo_args
    if a.jobs < 1:
        sys.exit("test-pool.py: --jobs must be at least 1")
    env = dict(os.environ)
    for kv in a.env:
        name, sep, value = kv.partition("=")
        if not sep or not name:
            sys.exit(f"test-pool.py: --env wants NAME=VALUE, not {kv!r}")
        env[name] = value
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    build = subprocess.run(
        ["cargo", "test", "--no-run", "--message-format=json-render-diagnostics", *args],
        cwd=root, stdout=subprocess.PIPE, text=True)
    tests = []
    for line in build.stdout.splitlines():
        try:
            m = json.loads(line)
        except ValueError:
            continue
        if m.get("reason") == "compiler-artifact" and m.get("executable") and m.get("profile", {}).get("test"):
            t = m["target"]
            src = os.path.relpath(t["src_path"], root)
            label = f"unittests {src}" if t["kind"] != ["test"] else src
            tests.append((t["kind"] != ["test"], t["name"], label, m["executable"]))
    if build.returncode != 0:
        print(f"error: cargo test --no-run {' '.join(args)} failed (exit status {build.returncode})")
        return 1
    if not tests:
        print(f"error: cargo test --no-run {' '.join(args)} reported no test executable")
        return 1
    # cargo's order: the library's unit tests, then the integration tests by name.
    tests.sort(key=lambda t: (not t[0], t[1]))
    order = sorted(range(len(tests)), key=lambda i: (SLOW_FIRST.index(tests[i][1]) if tests[i][1] in SLOW_FIRST else len(SLOW_FIRST)))

    results = [None] * len(tests)
    done = threading.Condition()
    pending = list(order)

    def worker():
        while True:
            with done:
                if not pending:
                    return
                i = pending.pop(0)
            exe = tests[i][3]
            t0 = time.monotonic()
            try:
                p = subprocess.run([exe], cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=a.timeout)
                out, status = p.stdout.decode("utf-8", "replace"), p.returncode
            except subprocess.TimeoutExpired as e:
                out = (e.stdout or b"").decode("utf-8", "replace")
                out += f"\nerror: {exe} did not finish within {a.timeout} s: killed\n"
                status = 124
            with done:
                results[i] = (out, status, time.monotonic() - t0)
                done.notify_all()

    threads = [threading.Thread(target=worker) for _ in range(min(a.jobs, len(tests)))]
    for t in threads:
        t.start()
    failed = False
    for i, (_, _, label, exe) in enumerate(tests):
        with done:
            while results[i] is None:
                done.wait()
        out, status, secs = results[i]
        print(f"     Running {label} ({os.path.relpath(exe, root)}) [{secs:.1f} s]", flush=True)
        sys.stdout.write(out)
        if status != 0:
            failed = True
            if "test result:" not in out:
                # A crash or a kill leaves no result line: count it as a failure where the
                # suites' counters look (tests/rust.sh reads `test result:` lines).
                print(f"test result: FAILED. 0 passed; 1 failed; (the executable exited with status {status})")
        sys.stdout.flush()
    for t in threads:
        t.join()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
