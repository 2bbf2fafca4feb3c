"""Host callbacks through the Python binding: register(), the prompt evaluator, on_decision(),
fire_async() with cancellation."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import Any, Dict, List

from _support import PROJECT_DIR, inline

from oh_hooks import Hooks, OhHooksError


def cb(name: str, **extra: Any) -> Dict[str, Any]:
    return {"callback": name, **extra}


def wait_for(pred, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


class SyncCallbackTests(unittest.TestCase):
    def test_sync_callback_gets_the_envelope_and_decides(self) -> None:
        seen: List[Dict[str, Any]] = []
        threads: List[int] = []

        def can_use_tool(env: Dict[str, Any]):
            seen.append(env)
            threads.append(threading.get_ident())
            if env.get("toolName") == "Bash":
                return {"decision": "deny", "reason": "no shell"}
            return None

        with Hooks(inline({"preToolUse": [cb("canUseTool")]})) as h:
            h.register("canUseTool", can_use_tool)
            out = h.fire({"event": "preToolUse", "toolName": "Bash", "extra": {"a": [1, 2]}})
            self.assertFalse(out.allowed)
            self.assertEqual(out.reason, "no shell")
            self.assertEqual(out.hooks[0].type, "callback")
            self.assertEqual(out.hooks[0].result, "deny")
            ok = h.fire({"event": "preToolUse", "toolName": "Read"})
            self.assertTrue(ok.allowed)
            self.assertEqual(ok.hooks[0].result, "none")
        self.assertEqual(seen, [
            {"event": "preToolUse", "toolName": "Bash", "extra": {"a": [1, 2]}},
            {"event": "preToolUse", "toolName": "Read"},
        ])
        # A blocking event's callback runs on the thread that fired.
        self.assertEqual(threads, [threading.get_ident()] * 2)

    def test_answer_is_read_like_a_jsonio_response(self) -> None:
        with Hooks(inline({"preToolUse": [cb("ctx"), cb("perm")]})) as h:
            h.register("ctx", lambda env: {"hookSpecificOutput": {"additionalContext": "from ctx"}})
            h.register("perm", lambda env: {"hookSpecificOutput": {
                "decision": "allow" if env["toolName"] == "Read" else "ask", "additionalContext": "from perm"}})
            a = h.fire({"event": "preToolUse", "toolName": "Read"})
            self.assertEqual((a.allowed, a.permission_decision), (True, "allow"))
            self.assertEqual(a.additional_context, "from ctx\n\nfrom perm")
            b = h.fire({"event": "preToolUse", "toolName": "Edit"})
            self.assertEqual(b.permission_decision, "ask")

    def test_exception_is_a_failed_hook_with_its_text(self) -> None:
        def boom(env):
            raise ValueError("bad input from the model")

        with Hooks(inline({"preToolUse": [cb("boom")], "postToolUse": [cb("boom")]})) as h:
            h.register("boom", boom)
            out = h.fire({"event": "preToolUse"})
            self.assertFalse(out.allowed)
            self.assertEqual(out.hooks[0].result, "deny")
            self.assertEqual(out.reason, "callback 'boom' failed: it raised ValueError: bad input from the model")
            # Not a dict, or not JSON: fails closed too.
            for value, what in (("deny", "str"), (42, "int"), ([1], "list")):
                h.register("boom", lambda env, v=value: v)
                o = h.fire({"event": "preToolUse"})
                self.assertFalse(o.allowed, value)
                self.assertIn(f"it returned {what}", o.reason)
            h.register("boom", lambda env: {"reason": float("nan")})
            self.assertIn("cannot be encoded as JSON", h.fire({"event": "preToolUse"}).reason)
            h.register("boom", lambda env: {"reason": object()})
            self.assertIn("cannot be encoded as JSON", h.fire({"event": "preToolUse"}).reason)
            # Even BaseException subclasses never escape into C.
            h.register("boom", lambda env: (_ for _ in ()).throw(KeyboardInterrupt()))
            self.assertIn("KeyboardInterrupt", h.fire({"event": "preToolUse"}).reason)

    def test_missing_registration_replace_and_remove(self) -> None:
        with Hooks(inline({"preToolUse": [cb("c")]})) as h:
            self.assertIn("no callback registered for c", h.fire({"event": "preToolUse"}).reason)
            h.register("c", lambda env: {"decision": "deny", "reason": "first"})
            self.assertEqual(h.fire({"event": "preToolUse"}).reason, "first")
            h.register("c", lambda env: {"decision": "deny", "reason": "second"})
            self.assertEqual(h.fire({"event": "preToolUse"}).reason, "second")
            h.register("c", None)
            self.assertIn("no callback registered for c", h.fire({"event": "preToolUse"}).reason)
            with self.assertRaises(TypeError):
                h.register("", lambda env: None)
            with self.assertRaises(TypeError):
                h.register("c", "not callable")  # type: ignore[arg-type]
            with self.assertRaises(ValueError):
                h.register("a\0b", lambda env: None)

    def test_raw_response_is_passed_through(self) -> None:
        from oh_hooks import RawResponse
        with Hooks(inline({"preToolUse": [cb("raw")]}, strict=True)) as h:
            h.register("raw", lambda env: RawResponse('{"decision":"deny","reason":"relayed"}'))
            self.assertEqual(h.fire({"event": "preToolUse"}).reason, "relayed")
            h.register("raw", lambda env: RawResponse(b'{"decision": '))
            out = h.fire({"event": "preToolUse"})
            self.assertEqual((out.allowed, out.reason), (False, "malformed hook response"))
            h.register("raw", lambda env: RawResponse("a\0b"))
            self.assertIn("NUL", h.fire({"event": "preToolUse"}).reason)
            with self.assertRaises(TypeError):
                RawResponse(42)  # type: ignore[arg-type]

    def test_registrations_are_released(self) -> None:
        from oh_hooks import _callbacks
        before = len(_callbacks.registrations)
        h = Hooks(inline({"preToolUse": [cb("c")]}))
        for i in range(5):
            h.register("c", lambda env, i=i: {"reason": str(i)})
        h.on_decision(lambda r: None)
        self.assertEqual(len(_callbacks.registrations), before + 1)  # replaced ones are released
        h.close()
        self.assertEqual(len(_callbacks.registrations), before)

    def test_prompt_evaluator(self) -> None:
        with Hooks(inline({"preToolUse": [{"prompt": "Is this command safe?"}]})) as h:
            self.assertEqual(h.fire({"event": "preToolUse"}).reason, "prompt hook has no evaluator")
            asked = []

            def model(req):
                asked.append(req)
                if "rm -rf" in req["envelope"].get("toolArgs", ""):
                    return {"decision": "deny", "reason": f"model: unsafe ({req['prompt']})"}
                return {"decision": "allow"}

            h.register("prompt", model)
            bad = h.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /"})
            self.assertFalse(bad.allowed)
            self.assertEqual(bad.reason, "model: unsafe (Is this command safe?)")
            self.assertEqual(bad.hooks[0].type, "prompt")
            self.assertTrue(h.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls"}).allowed)
            self.assertEqual(asked[0], {"prompt": "Is this command safe?",
                                        "envelope": {"event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /"}})

    def test_reentrant_fire_from_a_callback(self) -> None:
        with Hooks(inline({"preToolUse": [cb("outer")], "userPromptSubmit": [cb("inner")]})) as h:
            h.register("inner", lambda env: {"decision": "deny", "reason": "inner"} if env["prompt"] == "bad" else None)

            def outer(env):
                o = h.fire({"event": "userPromptSubmit", "prompt": env["toolArgs"]})
                return None if o.allowed else {"decision": "deny", "reason": f"outer saw: {o.reason}"}

            h.register("outer", outer)
            self.assertEqual(h.fire({"event": "preToolUse", "toolArgs": "bad"}).reason, "outer saw: inner")
            self.assertTrue(h.fire({"event": "preToolUse", "toolArgs": "ok"}).allowed)

    def test_many_threads_fire_with_callbacks(self) -> None:
        with Hooks(inline({"preToolUse": [cb("c")]})) as h:
            h.register("c", lambda env: {"decision": "deny", "reason": str(env["n"])} if env["n"] % 2 else None)
            errors: List[str] = []

            def worker(base: int) -> None:
                for n in range(base, base + 50):
                    o = h.fire({"event": "preToolUse", "n": n})
                    if o.allowed != (n % 2 == 0) or (not o.allowed and o.reason != str(n)):
                        errors.append(f"{n}: {o}")

            ts = [threading.Thread(target=worker, args=(i * 1000,)) for i in range(4)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            self.assertEqual(errors, [])


class ObserverTests(unittest.TestCase):
    def test_one_record_per_fire_background_hooks_included(self) -> None:
        records: List[Dict[str, Any]] = []
        lock = threading.Lock()

        def observe(r):
            with lock:
                records.append(r)

        cfg = inline({"preToolUse": [cb("c")], "postToolUse": [{"command": "sleep 0.2; exit 3"}, cb("bg")]})
        with Hooks(cfg) as h:
            h.register("c", lambda env: {"decision": "deny", "reason": "no"})
            h.register("bg", lambda env: {"hookSpecificOutput": {"additionalContext": "bg ran"}})
            h.on_decision(observe)
            out = h.fire({"event": "preToolUse", "toolName": "Bash"})
            # A synchronous fire's record arrives before fire() returns.
            self.assertEqual(len(records), 1)
            self.assertEqual(records[0]["outcome"], out.raw)
            self.assertEqual(records[0]["envelope"], {"event": "preToolUse", "toolName": "Bash"})
            bg = h.fire({"event": "postToolUse", "toolName": "Read"})
            self.assertEqual(bg.hooks, [])
            self.assertTrue(wait_for(lambda: len(records) == 2))
            post = records[1]["outcome"]
            self.assertEqual([(t["type"], t["result"]) for t in post["hooks"]], [("command", "deny"), ("callback", "none")])
            self.assertEqual(post["hooks"][0]["exitCode"], 3)

            # An observer that raises is logged, not fatal.
            h.on_decision(lambda r: 1 / 0)
            with self.assertLogs("oh_hooks", level="ERROR") as logs:
                h.fire({"event": "preToolUse"})
            self.assertIn("ZeroDivisionError", "\n".join(logs.output))
            h.on_decision(None)
            h.fire({"event": "preToolUse"})
            self.assertEqual(len(records), 2)
            with self.assertRaises(TypeError):
                h.on_decision("x")  # type: ignore[arg-type]


class AsyncTests(unittest.TestCase):
    def run_async(self, coro):
        return asyncio.run(asyncio.wait_for(coro, 60))

    def test_fire_async_with_sync_and_async_callbacks(self) -> None:
        async def main():
            with Hooks(inline({"preToolUse": [cb("sync"), cb("co", timeout=5000)]})) as h:
                loop_thread = threading.get_ident()
                ran_on: List[int] = []

                ticks = 0
                ticked = asyncio.Event()

                async def co(env):
                    ran_on.append(threading.get_ident())
                    # Answers only once the loop has run the ticker a few times while this fire
                    # was pending (waiting on an event, not a fixed sleep, so a loaded machine
                    # cannot make it fail; a blocked loop would hit the 5 s timeout instead).
                    await ticked.wait()
                    return {"decision": "deny", "reason": f"async says no to {env['toolName']}"}

                h.register("sync", lambda env: None)
                h.register("co", co)

                async def ticker():
                    nonlocal ticks
                    while True:
                        await asyncio.sleep(0.005)
                        ticks += 1
                        if ticks > 3:
                            ticked.set()

                t = asyncio.ensure_future(ticker())
                out = await h.fire_async({"event": "preToolUse", "toolName": "Bash"})
                t.cancel()
                self.assertFalse(out.allowed)
                self.assertEqual(out.reason, "async says no to Bash")
                self.assertEqual(ran_on, [loop_thread])  # the coroutine ran on the loop
                self.assertGreater(ticks, 3)  # and the loop kept running meanwhile
                outs = await asyncio.gather(*(h.fire_async({"event": "preToolUse", "toolName": str(i)}) for i in range(20)))
                self.assertEqual([o.reason for o in outs], [f"async says no to {i}" for i in range(20)])

        self.run_async(main())

    def test_fire_async_pipes_are_given_back(self) -> None:
        # fire_async completes through a pipe per engine and event loop (oh_hooks_fire_async_fd):
        # loops that come and go (asyncio.run makes one per call) and closing the engine, from
        # inside the loop or after it, must not leave descriptors behind.
        def open_fds() -> int:
            return len(os.listdir("/proc/self/fd"))

        if not os.path.isdir("/proc/self/fd"):
            self.skipTest("needs /proc/self/fd")
        before = open_fds()
        outer = Hooks(inline({"postToolUse": [{"command": "true"}]}))

        async def fire_some(h: Hooks) -> None:
            outs = await asyncio.gather(*(h.fire_async({"event": "preToolUse", "toolName": str(i)}) for i in range(10)))
            self.assertEqual([o.allowed for o in outs], [True] * 10)

        async def inner() -> None:
            with Hooks(inline({"postToolUse": [{"command": "true"}]})) as h:
                await fire_some(h)

        for _ in range(5):
            asyncio.run(fire_some(outer))
            asyncio.run(inner())
        outer.close()
        gc.collect()
        self.assertEqual(open_fds(), before)

    def test_fire_async_on_a_loop_without_add_reader(self) -> None:
        # A loop that cannot watch a descriptor (Windows' proactor, say) completes through the
        # engine's `done` instead, with the same outcome and cancellation.
        class NoReaders(asyncio.SelectorEventLoop):
            def add_reader(self, *args: Any, **kwargs: Any) -> None:
                raise NotImplementedError

        loop = NoReaders()
        try:
            with Hooks(inline({"preToolUse": [{"command": "exit 1", "match": "Bash"}]})) as h:
                out = loop.run_until_complete(h.fire_async({"event": "preToolUse", "toolName": "Bash"}))
                self.assertFalse(out.allowed)
                self.assertEqual(out.reason, "hook denied (exit code)")
        finally:
            loop.close()

    def test_async_callback_exception_and_timeout(self) -> None:
        async def main():
            with Hooks(inline({"preToolUse": [cb("co", timeout=200)]})) as h:
                async def raises(env):
                    await asyncio.sleep(0)
                    raise RuntimeError("model unavailable")

                h.register("co", raises)
                out = await h.fire_async({"event": "preToolUse"})
                self.assertFalse(out.allowed)
                self.assertEqual(out.reason, "callback 'co' failed: it raised RuntimeError: model unavailable")

                never = asyncio.Event()

                async def hangs(env):
                    await never.wait()
                    return {"decision": "allow"}

                h.register("co", hangs)
                start = time.monotonic()
                out = await h.fire_async({"event": "preToolUse"})
                took = time.monotonic() - start
                self.assertFalse(out.allowed)
                self.assertEqual(out.hooks[0].result, "deny")
                self.assertTrue(0.15 < took < 3, took)
                never.set()  # the late answer is dropped
                await asyncio.sleep(0.05)

        self.run_async(main())

    def test_coroutine_callback_in_sync_fire_on_the_loop_thread_fails_clearly(self) -> None:
        async def main():
            with Hooks(inline({"preToolUse": [cb("co", timeout=20000)]})) as h:
                async def co(env):
                    return {"decision": "allow"}

                h.register("co", co)
                start = time.monotonic()
                out = h.fire({"event": "preToolUse"})  # blocks the loop: cannot run the coroutine
                self.assertLess(time.monotonic() - start, 5)
                self.assertFalse(out.allowed)
                self.assertIn("fire_async", out.reason)
                # From another thread, a sync fire can use the loop's coroutine.
                out = await asyncio.get_running_loop().run_in_executor(None, h.fire, {"event": "preToolUse"})
                self.assertTrue(out.allowed, out)

        self.run_async(main())

    def test_coroutine_callback_without_a_loop_fails_clearly(self) -> None:
        async def co(env):
            return None

        with Hooks(inline({"preToolUse": [cb("co")]})) as h:
            h.register("co", co)
            out = h.fire({"event": "preToolUse"})
            self.assertFalse(out.allowed)
            self.assertIn("needs the asyncio loop", out.reason)

    def test_task_cancel_cancels_the_fire_in_the_engine(self) -> None:
        tmp = tempfile.mkdtemp(prefix="oh-hooks-py-")
        marker = Path(tmp) / "finished"

        async def main():
            with Hooks(inline({"preToolUse": [{"command": f"sleep 3; touch '{marker}'"}]})) as h:
                task = asyncio.ensure_future(h.fire_async({"event": "preToolUse", "toolName": "Bash"}))
                await asyncio.sleep(0.2)
                start = time.monotonic()
                task.cancel()
                with self.assertRaises(asyncio.CancelledError):
                    await task
                self.assertLess(time.monotonic() - start, 1)
                # wait_for's timeout cancels the same way.
                with self.assertRaises(asyncio.TimeoutError):
                    await asyncio.wait_for(h.fire_async({"event": "preToolUse"}), 0.2)
            await asyncio.sleep(3.3)
            self.assertFalse(marker.exists(), "the cancelled hook kept running")

        self.run_async(main())

    def test_close_does_not_wait_for_a_pending_coroutine(self) -> None:
        async def main():
            h = Hooks(inline({"postToolUse": [cb("stuck", timeout=20000)]}))
            started = asyncio.Event()
            records = []

            async def stuck(env):
                started.set()
                await asyncio.Event().wait()

            h.register("stuck", stuck)
            h.on_decision(records.append)
            await h.fire_async({"event": "postToolUse"})
            await asyncio.wait_for(started.wait(), 10)
            start = time.monotonic()
            h.close()  # on the loop's thread, which the coroutine would need
            self.assertLess(time.monotonic() - start, 3)
            self.assertEqual(len(records), 1)
            self.assertIn("closed", json.dumps(records[0]["outcome"]["hooks"][0]))
            with self.assertRaises(OhHooksError):
                await h.fire_async({"event": "preToolUse"})

        self.run_async(main())

    def test_task_cancel_with_a_pending_coroutine_and_close_cancels_it(self) -> None:
        async def main():
            h = Hooks(inline({"preToolUse": [cb("co", timeout=20000)]}))
            started = asyncio.Event()
            cancelled = asyncio.Event()

            async def hangs(env):
                started.set()
                try:
                    await asyncio.Event().wait()
                except asyncio.CancelledError:
                    cancelled.set()
                    raise

            h.register("co", hangs)
            task = asyncio.ensure_future(h.fire_async({"event": "preToolUse"}))
            await asyncio.wait_for(started.wait(), 10)
            start = time.monotonic()
            task.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await task
            self.assertLess(time.monotonic() - start, 2)
            h.close()  # the coroutine nobody waits for any more is cancelled
            await asyncio.wait_for(cancelled.wait(), 5)

        self.run_async(main())

    def test_close_with_pending_fire_async(self) -> None:
        async def main():
            h = Hooks(inline({"preToolUse": [{"command": "sleep 0.3; exit 1"}]}))
            task = asyncio.ensure_future(h.fire_async({"event": "preToolUse"}))
            await asyncio.sleep(0.05)
            await asyncio.get_running_loop().run_in_executor(None, h.close)  # waits for the fire
            out = await task
            self.assertFalse(out.allowed)
            self.assertEqual(out.hooks[0].exit_code, 1)

        self.run_async(main())


# Fires sys.argv[1] fire_async calls at once through asyncio.gather on one engine and loop, with
# the completion pipe asked to be sys.argv[2] bytes (0: the binding's default), and prints how
# they settled as JSON. With sys.argv[3] == "hold" the callback waits until every fire was made,
# so the engine's 8 threads and its queue of 4,096 are full and it refuses the rest at once.
# faulthandler ends a hung run with every thread's stack (exit status 1).
_GATHER = r"""
import asyncio, faulthandler, json, sys, threading
faulthandler.dump_traceback_later(120, exit=True)
from oh_hooks import Hooks, OhHooksError, _completions
n, pipe_bytes, hold = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "hold"
if pipe_bytes:  # a system that keeps the pipe at pipe_bytes, as for a user over its pipe memory
    import fcntl, os
    make_pipe = os.pipe
    def small_pipe():
        r, w = make_pipe()
        fcntl.fcntl(w, 1031, pipe_bytes)  # F_SETPIPE_SZ
        return r, w
    os.pipe = small_pipe
    _completions._PIPE_BYTES = pipe_bytes
opts = {"trusted": True, "config": {"hooks": {"preToolUse": [{"callback": "echo"}]}}}
counts = {"own": 0, "queue_full": 0, "pipe_full": 0, "other": []}
released = threading.Event()
if not hold:
    released.set()
def echo(env):
    released.wait(60)
    return {"decision": "deny", "reason": "no " + env["toolName"]}
async def main():
    with Hooks(opts) as h:
        h.register("echo", echo)
        burst = asyncio.gather(*(h.fire_async({"event": "preToolUse", "toolName": str(i)})
                                 for i in range(n)), return_exceptions=True)
        asyncio.get_running_loop().call_soon(released.set)  # runs once every fire was made
        outs = await burst
        for i, o in enumerate(outs):
            if isinstance(o, OhHooksError) and o.code == "internal" and "completion pipe holds" in o.message:
                counts["pipe_full"] += 1
                counts["pipe_message"] = o.message
            elif isinstance(o, BaseException):
                counts["other"].append(repr(o))
            elif o.error is None and o.reason == "no %d" % i:
                counts["own"] += 1
            elif o.error is not None and o.error.code == "internal" and "already waiting" in o.error.message:
                counts["queue_full"] += 1
            else:
                counts["other"].append(repr(o))
        # The engine and the loop still work after the burst, and close() on the loop returns.
        after = await h.fire_async({"event": "preToolUse", "toolName": "after"})
        counts["after"] = after.reason
    counts["other"] = counts["other"][:5]
    print(json.dumps(counts))
asyncio.run(main())
"""


class ManyFiresTests(unittest.TestCase):
    """More fire_async calls at once than the completion pipe holds must all settle: the engine
    writes a refused fire's record on the loop's own thread, so a full pipe would block the one
    thread that reads it (and every engine thread behind it)."""

    def gather(self, n: int, pipe_bytes: int, hold: bool = False) -> Dict[str, Any]:
        args = [str(n), str(pipe_bytes), "hold" if hold else "run"]
        out = subprocess.run([sys.executable, "-X", "faulthandler", "-c", _GATHER, *args],
                             cwd=PROJECT_DIR, capture_output=True, text=True, timeout=180)
        self.assertEqual(out.returncode, 0, out.stderr[-4000:])
        counts = json.loads(out.stdout)
        self.assertEqual(counts["other"], [])
        self.assertEqual(counts["own"] + counts["queue_full"] + counts["pipe_full"], n)
        self.assertGreater(counts["own"], 0)
        self.assertEqual(counts["after"], "no after")
        return counts

    def test_20000_concurrent_fire_async_all_settle(self) -> None:
        counts = self.gather(20000, 0)
        # The default pipe holds more records than the engine keeps (8 running, 4096 queued):
        # only the engine's own bound may refuse (how many it does depends on the machine's pace).
        self.assertEqual(counts["pipe_full"], 0)

    def test_20000_concurrent_fire_async_on_a_busy_engine_all_settle(self) -> None:
        # Every fire past the engine's 8 running and 4,096 queued is refused at once, its record
        # written on the loop's thread: each gets the engine's queue-full outcome.
        counts = self.gather(20000, 0, hold=True)
        self.assertEqual(counts["pipe_full"], 0)
        self.assertGreaterEqual(counts["own"], 4096)
        self.assertLessEqual(counts["own"], 4096 + 8)
        self.assertEqual(counts["queue_full"], 20000 - counts["own"])

    def test_a_small_pipe_refuses_past_what_it_holds(self) -> None:
        # One page (256 records), as the system gives a user over its pipe memory limit; the
        # engine busy, so nothing completes while the fires are made: the 257th is refused.
        counts = self.gather(3000, 4096, hold=True)
        self.assertEqual((counts["own"], counts["pipe_full"], counts["queue_full"]), (256, 3000 - 256, 0))
        self.assertIn("256 fires are already in flight", counts["pipe_message"])

    def test_a_small_pipe_is_read_when_full(self) -> None:
        # The engine free to complete: fire_async reads the pipe when as many fires are in
        # flight as it holds, so most fires get their outcome (only a fire made while 256 are
        # unfinished is refused).
        counts = self.gather(3000, 4096)
        self.assertEqual(counts["queue_full"], 0)

    def test_the_pipe_grows_only_when_needed(self) -> None:
        # Each page of a pipe counts against the user's pipe memory: a few fires in flight keep
        # the system's default pipe, 5,000 grow it to 1 MiB.
        if not sys.platform.startswith("linux"):
            self.skipTest("pipe sizes are Linux's")
        import fcntl

        async def main():
            with Hooks(inline({"preToolUse": [{"command": "true", "match": "never"}]})) as h:
                loop = asyncio.get_running_loop()
                await asyncio.gather(*(h.fire_async({"event": "preToolUse"}) for _ in range(100)))
                w = h._completions[loop].w
                default = fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ
                outs = await asyncio.gather(*(h.fire_async({"event": "preToolUse"}) for _ in range(5000)))
                # Each has its outcome, or the engine's queue-full error (past 8 + 4,096).
                self.assertTrue(all(o.allowed or o.error.code == "internal" for o in outs))
                return default, fcntl.fcntl(w, 1032)

        default, grown = asyncio.run(main())
        # What this user may grow a pipe to here (1 MiB unless pipe-max-size or the user's pipe
        # memory says less).
        r, w = os.pipe()
        try:
            try:
                fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ
            except OSError:
                pass
            allowed = fcntl.fcntl(w, 1032)
        finally:
            os.close(r)
            os.close(w)
        self.assertLess(default, 5000 * 16)
        self.assertEqual(grown, allowed)

    def test_more_fires_than_the_default_pipe_holds(self) -> None:
        # 70,000 records would overfill the 1 MiB pipe: fire_async reads it itself on the way.
        counts = self.gather(70000, 0)
        self.assertEqual(counts["pipe_full"], 0)


class LifetimeTests(unittest.TestCase):
    def test_forgotten_hooks_with_callbacks_are_freed_and_the_process_exits(self) -> None:
        code = (
            "import asyncio, gc, sys\n"
            "from oh_hooks import Hooks\n"
            "opts = {'trusted': True, 'config': {'hooks': {'preToolUse': [{'callback': 'c'}],"
            " 'postToolUse': [{'callback': 'c'}]}}}\n"
            "async def main():\n"
            "    for i in range(30):\n"
            "        h = Hooks(opts)\n"
            "        h.register('c', lambda env: {'decision': 'deny'})\n"
            "        h.on_decision(lambda r: None)\n"
            "        assert not h.fire({'event': 'preToolUse'}).allowed\n"
            "        assert not (await h.fire_async({'event': 'preToolUse'})).allowed\n"
            "        await h.fire_async({'event': 'postToolUse'})\n"
            "        del h\n"
            "        gc.collect()\n"
            "    from oh_hooks import _callbacks\n"
            "    print(len(_callbacks.registrations), len(_callbacks.fires))\n"
            "asyncio.run(main())\n"
        )
        out = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], cwd=PROJECT_DIR,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "0 0")


class ExitTests(unittest.TestCase):
    def test_exit_with_callbacks_still_registered_and_background_hooks_running(self) -> None:
        code = (
            "import sys, time\n"
            "from oh_hooks import Hooks\n"
            "h = Hooks({'trusted': True, 'config': {'hooks': {'postToolUse': [{'callback': 'c'},"
            " {'command': 'sleep 0.3'}, {'callback': 'c'}]}}})\n"
            "h.register('c', lambda env: time.sleep(0.05))\n"
            "h.on_decision(lambda r: sys.stdout.write(f\"record {len(r['outcome']['hooks'])}\\n\"))\n"
            "for _ in range(5):\n"
            "    h.fire({'event': 'postToolUse'})\n"
            "print('exiting', flush=True)\n"
        )
        out = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], cwd=PROJECT_DIR,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.count("record 3"), 5, out.stdout)


if __name__ == "__main__":
    unittest.main()
