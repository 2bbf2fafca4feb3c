"""Behaviour of the Python binding against the real engine (liboh_hooks)."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path

from _support import PROJECT_DIR, inline, trace

import oh_hooks
from oh_hooks import Hooks, HookTrace, OhHooksError, Outcome


class TmpDirTest(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="oh-hooks-py-")
        self.tmp = Path(self._tmp.name)

    def tearDown(self) -> None:
        self._tmp.cleanup()


class LibraryTests(unittest.TestCase):
    def test_version(self) -> None:
        v = oh_hooks.version()
        self.assertRegex(v, r"^\d+\.\d+\.\d+")

    def test_library_path_is_a_file(self) -> None:
        self.assertTrue(Path(oh_hooks.library_path()).is_file())

    def test_library_not_found_names_the_place_tried(self) -> None:
        code = (
            "import oh_hooks\n"
            "try:\n"
            "    oh_hooks.Hooks()\n"
            "except oh_hooks.OhHooksError as e:\n"
            "    print(e.code); print(e.message)\n"
        )
        env = dict(os.environ, OH_HOOKS_LIB="/nonexistent/liboh_hooks.so")
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=PROJECT_DIR, env=env,
            capture_output=True, text=True, timeout=60,
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        code_line, message = out.stdout.split("\n", 1)
        self.assertEqual(code_line, "library_not_found")
        self.assertIn("/nonexistent/liboh_hooks.so", message)
        self.assertIn("OH_HOOKS_LIB", message)

    def test_library_not_found_without_override_lists_every_place(self) -> None:
        from oh_hooks import _ffi
        saved = os.environ.pop("OH_HOOKS_LIB", None)
        try:
            places = [str(p) for _, p in _ffi.candidates()]
        finally:
            if saved is not None:
                os.environ["OH_HOOKS_LIB"] = saved
        self.assertEqual(places[0], str(PROJECT_DIR / "oh_hooks" / _ffi.LIB_NAME))
        self.assertEqual(places[1], str((PROJECT_DIR / ".." / ".." / "target" / "release" / _ffi.LIB_NAME).resolve()))
        self.assertEqual(places[2:], ["liboh_hooks.so.0", "liboh_hooks.so"])

    def test_found_on_the_system_library_path(self) -> None:
        # A copy of the package with no library beside it and no build tree above it; the
        # library only in a directory of LD_LIBRARY_PATH, under its SONAME.
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(PROJECT_DIR / "oh_hooks", Path(tmp) / "pkg" / "oh_hooks",
                            ignore=shutil.ignore_patterns("liboh_hooks.*", "__pycache__"))
            libdir = Path(tmp) / "lib"
            libdir.mkdir()
            os.symlink(oh_hooks.library_path(), libdir / "liboh_hooks.so.0")
            env = {k: v for k, v in os.environ.items() if k != "OH_HOOKS_LIB"}
            env["LD_LIBRARY_PATH"] = str(libdir)
            code = "import oh_hooks; print(oh_hooks.library_path()); print(oh_hooks.version())"
            out = subprocess.run([sys.executable, "-c", code], cwd=Path(tmp) / "pkg", env=env,
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            path, version = out.stdout.split()
            self.assertEqual(Path(path).resolve(), Path(oh_hooks.library_path()).resolve())
            self.assertEqual(version, oh_hooks.version())
            # Without it on the path, every place is named in the error.
            del env["LD_LIBRARY_PATH"]
            code = "import oh_hooks\ntry:\n    oh_hooks.Hooks()\nexcept oh_hooks.OhHooksError as e:\n    print(e.message)"
            out = subprocess.run([sys.executable, "-c", code], cwd=Path(tmp) / "pkg", env=env,
                                 capture_output=True, text=True, timeout=60)
            self.assertIn("liboh_hooks.so.0 (the system library path): not found", out.stdout)


class OptionsErrorTests(TmpDirTest):
    def assertNewError(self, options, code: str) -> OhHooksError:
        with self.assertRaises(OhHooksError) as cm:
            Hooks(options)
        err = cm.exception
        self.assertEqual(err.code, code, str(err))
        self.assertTrue(err.message, "an error must say what was wrong")
        self.assertEqual(err.raw.get("code"), code)
        return err

    def test_none_options_is_fine(self) -> None:
        Hooks(None).close()

    def test_options_typeddict_lists_every_option_the_engine_knows(self) -> None:
        # The engine names every option it accepts when it refuses one; the TypedDict must
        # have exactly those keys, or a type checker would flag a valid option (or miss a typo).
        err = self.assertNewError({"bogus": 1}, "invalid_options")
        known = err.message.split("expected one of: ", 1)[1].split(", ")
        self.assertEqual(sorted(oh_hooks.Options.__annotations__), sorted(known))

    def test_unknown_key(self) -> None:
        err = self.assertNewError({"cwdd": "/"}, "invalid_options")
        self.assertEqual(err.path, "cwdd")
        self.assertIn("cwd", err.message)  # the suggestion

    def test_wrong_type(self) -> None:
        self.assertEqual(self.assertNewError({"trusted": "yes"}, "invalid_options").path, "trusted")

    def test_zero_timeout_option(self) -> None:
        err = self.assertNewError({"defaultTimeoutMs": 0}, "invalid_options")
        self.assertEqual(err.path, "defaultTimeoutMs")

    def test_cwd_not_a_directory(self) -> None:
        err = self.assertNewError({"cwd": str(self.tmp / "missing")}, "invalid_options")
        self.assertEqual(err.path, "cwd")

    def test_env_values_must_be_strings(self) -> None:
        self.assertEqual(self.assertNewError({"env": {"A": 1}}, "invalid_options").path, "env")

    def test_options_not_an_object(self) -> None:
        self.assertNewError([1, 2], "invalid_options")  # type: ignore[arg-type]

    def test_config_with_config_path(self) -> None:
        self.assertNewError({"config": {}, "configPath": str(self.tmp / "x.yaml")}, "invalid_options")

    def test_unreadable_config_path_is_io_error(self) -> None:
        missing = str(self.tmp / "nope.yaml")
        err = self.assertNewError({"configPath": missing}, "io_error")
        self.assertIn("nope.yaml", (err.file or "") + err.message)

    def test_config_error_has_path(self) -> None:
        err = self.assertNewError(
            inline({"preToolUse": [{"command": "true", "timeout": 0}]}), "invalid_config")
        self.assertEqual(err.path, "hooks.preToolUse[0].timeout")

    def test_unknown_event_in_config(self) -> None:
        err = self.assertNewError(inline({"PreToolUse": [{"command": "true"}]}), "invalid_config")
        self.assertIn("preToolUse", err.message)  # the camelCase suggestion

    def test_unknown_entry_key_in_file_has_file_line_path(self) -> None:
        cfg = self.tmp / "hooks.yaml"
        cfg.write_text("hooks:\n  preToolUse:\n    - command: ./x.sh\n      matcher: Bash\n")
        err = self.assertNewError({"configPath": str(cfg), "trusted": True}, "invalid_config")
        self.assertEqual(err.file is not None and Path(err.file).name, "hooks.yaml")
        self.assertIsNotNone(err.path)
        self.assertTrue(err.path.startswith("hooks.preToolUse[0]"), err.path)
        self.assertIn("match", err.message)  # suggests `match` for `matcher`

    def test_bad_yaml_has_line(self) -> None:
        cfg = self.tmp / "bad.yaml"
        cfg.write_text('hooks:\n  preToolUse:\n    - command: "unclosed\n')
        err = self.assertNewError({"configPath": str(cfg)}, "invalid_config")
        self.assertEqual(err.file, str(cfg))
        self.assertIsInstance(err.line, int)

    def test_error_str_names_code_and_path(self) -> None:
        err = self.assertNewError(
            inline({"preToolUse": [{"command": "true", "timeout": -5}]}), "invalid_config")
        self.assertIn("invalid_config", str(err))
        self.assertIn("hooks.preToolUse[0].timeout", str(err))


class EnvelopeErrorTests(unittest.TestCase):
    def setUp(self) -> None:
        self.hooks = Hooks(inline({"preToolUse": [{"command": "exit 1"}]}))

    def tearDown(self) -> None:
        self.hooks.close()

    def assertOutcomeError(self, outcome: Outcome, code: str) -> None:
        self.assertIsNotNone(outcome.error, outcome.raw)
        self.assertEqual(outcome.error.code, code)
        self.assertTrue(outcome.error.message)
        self.assertFalse(outcome.allowed)
        self.assertEqual(outcome.hooks, [])
        self.assertEqual(set(outcome.raw), {"allowed", "hooks", "error"})

    def raw(self, text) -> Outcome:
        return Outcome.from_json(json.loads(self.hooks.fire_json(text)))

    def test_missing_event(self) -> None:
        self.assertOutcomeError(self.hooks.fire({"toolName": "Bash"}), "invalid_envelope")

    def test_non_string_event(self) -> None:
        self.assertOutcomeError(self.hooks.fire({"event": 7}), "invalid_envelope")

    def test_unknown_event(self) -> None:
        self.assertOutcomeError(self.hooks.fire({"event": "PreToolUse"}), "unknown_event")

    def test_not_an_object(self) -> None:
        self.assertOutcomeError(self.hooks.fire(["preToolUse"]), "invalid_envelope")  # type: ignore[arg-type]

    def test_malformed_json(self) -> None:
        self.assertOutcomeError(self.raw('{"event": "preToolUse"'), "invalid_envelope")

    def test_empty_string(self) -> None:
        self.assertOutcomeError(self.raw(""), "invalid_envelope")

    def test_too_deep(self) -> None:
        self.assertOutcomeError(self.raw('{"event":"preToolUse","x":' + "[" * 100000 + "]" * 100000 + "}"),
                                "invalid_envelope")

    def test_invalid_utf8(self) -> None:
        self.assertOutcomeError(self.raw(b'{"event":"preToolUse","toolName":"\xff"}'), "invalid_utf8")

    def test_fire_with_a_str_is_raw_json_like_node(self) -> None:
        out = self.hooks.fire('{"event":"sessionStart"}')
        self.assertIsNone(out.error)
        self.assertTrue(out.allowed)
        self.assertEqual(self.hooks.fire(b'{"event":"sessionStart"}').raw, out.raw)
        bad = self.hooks.fire('{"event": "preToolUse"')
        self.assertOutcomeError(bad, "invalid_envelope")
        self.assertIn("not valid JSON", bad.error.message if bad.error else "")

    def test_fire_json_returns_the_exact_text(self) -> None:
        text = self.hooks.fire_json('{"event":"sessionStart"}')
        self.assertIsInstance(text, str)
        self.assertEqual(json.loads(text), {"allowed": True, "hooks": []})

    def test_nul_byte_is_refused_before_the_engine(self) -> None:
        with self.assertRaises(ValueError):
            self.hooks.fire_json('{"event":"preToolUse"}\0')

    def test_nan_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            self.hooks.fire({"event": "preToolUse", "cost": float("nan")})

    def test_nul_inside_a_value_travels_escaped(self) -> None:
        # json.dumps escapes it as \u0000; the engine fails the hook like a spawn failure.
        out = self.hooks.fire({"event": "preToolUse", "toolName": "a\0b"})
        self.assertIsNone(out.error)
        self.assertFalse(out.allowed)
        self.assertEqual(len(out.hooks), 1)
        self.assertIn("NUL", out.hooks[0].error or "")


class DecisionTests(TmpDirTest):
    def test_allow_and_deny_through_a_command_hook(self) -> None:
        opts = inline({"preToolUse": [
            {"command": 'test "$OH_TOOL_ARGS" != "rm -rf /"', "match": "Bash"},
        ]}, cwd=str(self.tmp))
        with Hooks(opts) as hooks:
            ok = hooks.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls"})
            self.assertTrue(ok.allowed)
            self.assertIsNone(ok.error)
            self.assertIsNone(ok.reason)
            self.assertEqual(trace(ok.raw), {"index": 0, "type": "command", "exitCode": 0,
                                             "timedOut": False, "result": "none"})

            bad = hooks.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /"})
            self.assertFalse(bad.allowed)
            self.assertEqual(bad.reason, "hook denied (exit code)")
            self.assertIsNone(bad.permission_decision)
            self.assertEqual(len(bad.hooks), 1)
            t = bad.hooks[0]
            self.assertIsInstance(t, HookTrace)
            self.assertEqual((t.index, t.type, t.exit_code, t.timed_out, t.result, t.json_io),
                             (0, "command", 1, False, "deny", False))
            self.assertGreaterEqual(t.duration_ms, 0.0)
            self.assertEqual(trace(bad.raw), {"index": 0, "type": "command", "exitCode": 1,
                                              "timedOut": False, "result": "deny",
                                              "reason": "hook denied (exit code)"})

            other = hooks.fire({"event": "preToolUse", "toolName": "Read", "toolArgs": "rm -rf /"})
            self.assertTrue(other.allowed)
            self.assertEqual(other.hooks, [])  # the matcher left the hook out
            self.assertEqual(other.raw, {"allowed": True, "hooks": []})

    def test_json_io_additional_context(self) -> None:
        ctx1 = '{"hookSpecificOutput":{"additionalContext":"be brief"}}'
        ctx2 = '{"hookSpecificOutput":{"additionalContext":"cite sources"}}'
        capture = self.tmp / "stdin.json"
        opts = inline({"userPromptSubmit": [
            {"command": f"cat > \"$CAPTURE\"; printf '%s' '{ctx1}'", "jsonIO": True},
            {"command": f"printf '%s' '{ctx2}'", "jsonIO": True},
        ]}, env={"CAPTURE": str(capture)}, cwd=str(self.tmp))
        with Hooks(opts) as hooks:
            out = hooks.fire({"event": "userPromptSubmit", "prompt": "hello", "sessionId": "s1"})
        self.assertTrue(out.allowed)
        self.assertEqual(out.additional_context, "be brief\n\ncite sources")
        self.assertEqual([t.json_io for t in out.hooks], [True, True])
        self.assertEqual([t.result for t in out.hooks], ["none", "none"])
        # jsonIO stdin: compact JSON, `event` first, then the context keys as received.
        self.assertEqual(capture.read_text().strip(),
                         '{"event":"userPromptSubmit","prompt":"hello","sessionId":"s1"}')

    def test_json_io_permission_decision(self) -> None:
        deny = '{"hookSpecificOutput":{"decision":"deny","reason":"Bash is disabled by policy"}}'
        opts = inline({"permissionRequest": [
            {"command": f"printf '%s' '{deny}'", "jsonIO": True, "match": "Bash"},
        ]})
        with Hooks(opts) as hooks:
            out = hooks.fire({"event": "permissionRequest", "toolName": "Bash"})
            self.assertFalse(out.allowed)
            self.assertEqual(out.permission_decision, "deny")
            self.assertEqual(out.reason, "Bash is disabled by policy")
            self.assertEqual(out.hooks[0].result, "deny")
            ask = hooks.fire({"event": "permissionRequest", "toolName": "Read"})
            self.assertTrue(ask.allowed)
            self.assertEqual(ask.hooks, [])

    def test_env_mode_permission_request_exit_0_is_ask(self) -> None:
        with Hooks(inline({"permissionRequest": [{"command": "true"}]})) as hooks:
            out = hooks.fire({"event": "permissionRequest", "toolName": "Bash"})
        self.assertTrue(out.allowed)
        self.assertEqual(out.permission_decision, "ask")

    def test_outcome_is_frozen(self) -> None:
        with Hooks(inline({})) as hooks:
            out = hooks.fire({"event": "preToolUse", "toolName": "Bash"})
        with self.assertRaises(dataclasses.FrozenInstanceError):
            out.allowed = False  # type: ignore[misc]
        self.assertEqual(out, Outcome(allowed=True))


class LifecycleTests(TmpDirTest):
    def test_context_manager(self) -> None:
        with Hooks(inline({})) as hooks:
            self.assertFalse(hooks.closed)
            self.assertTrue(hooks.fire({"event": "sessionStart"}).allowed)
        self.assertTrue(hooks.closed)
        with self.assertRaises(OhHooksError) as cm:
            hooks.fire({"event": "sessionStart"})
        self.assertEqual(cm.exception.code, "closed")

    def test_context_manager_closes_on_exception(self) -> None:
        with self.assertRaises(KeyError):
            with Hooks(inline({})) as hooks:
                raise KeyError("boom")
        self.assertTrue(hooks.closed)

    def test_close_twice(self) -> None:
        hooks = Hooks(inline({}))
        hooks.close()
        hooks.close()
        self.assertTrue(hooks.closed)

    def test_use_after_close(self) -> None:
        hooks = Hooks(inline({}))
        hooks.close()
        for call in (lambda: hooks.fire({"event": "preToolUse"}),
                     lambda: hooks.fire_json('{"event":"preToolUse"}'),
                     hooks.reload):
            with self.assertRaises(OhHooksError) as cm:
                call()
            self.assertEqual(cm.exception.code, "closed")
            self.assertIn("close", cm.exception.message)

    def test_del_frees_a_forgotten_engine(self) -> None:
        hooks = Hooks(inline({"preToolUse": [{"command": "true"}]}))
        hooks.fire({"event": "preToolUse"})
        del hooks
        gc.collect()  # must neither crash nor hang

    def test_failed_constructor_then_gc(self) -> None:
        with self.assertRaises(OhHooksError):
            Hooks({"nope": 1})
        gc.collect()

    def test_reload(self) -> None:
        cfg = self.tmp / "config.yaml"
        cfg.write_text("hooks:\n  preToolUse:\n    - command: exit 0\n")
        with Hooks({"configPath": str(cfg), "trusted": True, "cwd": str(self.tmp)}) as hooks:
            self.assertTrue(hooks.fire({"event": "preToolUse"}).allowed)

            cfg.write_text("hooks:\n  preToolUse:\n    - command: exit 3\n      match: Bash\n")
            hooks.reload()
            denied = hooks.fire({"event": "preToolUse", "toolName": "Bash"})
            self.assertFalse(denied.allowed)
            self.assertEqual(denied.hooks[0].exit_code, 3)

            cfg.write_text("hooks:\n  preToolUse:\n    - command: exit 0\n      timeout: 0\n")
            with self.assertRaises(OhHooksError) as cm:
                hooks.reload()
            self.assertEqual(cm.exception.code, "invalid_config")
            self.assertEqual(cm.exception.path, "hooks.preToolUse[0].timeout")
            self.assertEqual(Path(cm.exception.file or "").name, "config.yaml")
            # The old config stays in force.
            still = hooks.fire({"event": "preToolUse", "toolName": "Bash"})
            self.assertFalse(still.allowed)
            self.assertEqual(still.hooks[0].exit_code, 3)


class ThreadTests(unittest.TestCase):
    def test_gil_is_released_during_fire(self) -> None:
        """Four threads, each firing a blocking hook that sleeps 300 ms: run serially
        that is 1.2 s; with the GIL released they overlap."""
        opts = inline({"preToolUse": [{"command": "sleep 0.3"}]})
        with Hooks(opts) as hooks:
            hooks.fire({"event": "sessionStart"})  # warm up
            results: list = []
            barrier = threading.Barrier(4)

            def work() -> None:
                barrier.wait()
                results.append(hooks.fire({"event": "preToolUse", "toolName": "Bash"}))

            threads = [threading.Thread(target=work) for _ in range(4)]
            start = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.monotonic() - start
        self.assertEqual(len(results), 4)
        for out in results:
            self.assertTrue(out.allowed, out.raw)
            self.assertEqual(out.hooks[0].exit_code, 0)
        self.assertLess(elapsed, 0.9, f"4 fires of a 300 ms hook took {elapsed:.2f}s")

    def test_close_waits_for_a_fire_in_flight(self) -> None:
        hooks = Hooks(inline({"preToolUse": [{"command": "sleep 0.4; exit 1"}]}))
        result: list = []
        started = threading.Event()

        def work() -> None:
            started.set()
            result.append(hooks.fire({"event": "preToolUse"}))

        t = threading.Thread(target=work)
        t.start()
        started.wait()
        time.sleep(0.1)  # the fire is now inside the engine
        hooks.close()  # must wait for it, not free the engine under it
        t.join()
        self.assertTrue(hooks.closed)
        self.assertEqual(len(result), 1)
        self.assertFalse(result[0].allowed)
        self.assertEqual(result[0].hooks[0].exit_code, 1)

    def test_close_from_the_thread_inside_a_call_defers_the_free(self) -> None:
        hooks = Hooks(inline({}))
        hooks._enter("fire")  # as if this thread were inside fire()
        hooks.close()  # must not wait for itself
        self.assertTrue(hooks.closed)
        self.assertIsNotNone(hooks._deferred)
        hooks._leave()  # the call returns: now the engine is freed
        self.assertIsNone(hooks._deferred)
        hooks.close()

    @unittest.skipUnless(hasattr(signal, "setitimer"), "needs POSIX interval timers")
    def test_close_from_a_signal_handler_during_fire(self) -> None:
        hooks = Hooks(inline({"preToolUse": [{"command": "sleep 0.3"}]}))
        old = signal.signal(signal.SIGALRM, lambda *_: hooks.close())
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.1)
            out = hooks.fire({"event": "preToolUse"})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        self.assertTrue(out.allowed)
        self.assertTrue(hooks.closed)
        with self.assertRaises(OhHooksError):
            hooks.fire({"event": "preToolUse"})

    def test_many_threads_many_fires(self) -> None:
        opts = inline({"preToolUse": [
            {"command": "printf '{\"hookSpecificOutput\":{\"additionalContext\":\"c\"}}'", "jsonIO": True}]})
        errors: list = []
        with Hooks(opts) as hooks:
            def work() -> None:
                try:
                    for _ in range(10):
                        out = hooks.fire({"event": "preToolUse", "toolName": "Bash"})
                        assert out.additional_context == "c", out.raw
                except Exception as e:  # pragma: no cover - reported below
                    errors.append(e)

            threads = [threading.Thread(target=work) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        self.assertEqual(errors, [])


if __name__ == "__main__":
    unittest.main()


class NoMatchOutcomeShortcut(unittest.TestCase):
    """The no-match outcome is decoded without json.loads: it must be the Outcome that the
    general decoding builds from the same text, and the engine must still answer that text."""

    def test_same_outcome_as_the_general_decoding(self) -> None:
        import json as _json

        from oh_hooks._hooks import _NOTHING_RAN, _outcome
        from oh_hooks._types import Outcome as _Outcome

        general = _Outcome.from_json(_json.loads(_NOTHING_RAN))
        quick = _outcome(_NOTHING_RAN)
        self.assertEqual(quick, general)
        self.assertEqual(repr(quick), repr(general))
        self.assertEqual(quick.raw, general.raw)
        self.assertIsNot(quick.raw, _outcome(_NOTHING_RAN).raw, "each outcome has its own raw dict")
        self.assertIsNot(quick.hooks, _outcome(_NOTHING_RAN).hooks, "and its own lists")
        self.assertIsNot(quick.warnings, _outcome(_NOTHING_RAN).warnings)
        by_init = _Outcome(allowed=True, raw={"allowed": True, "hooks": []})
        self.assertEqual(vars(quick), vars(by_init))
        self.assertEqual(list(vars(quick)), list(vars(by_init)), "the same fields, in the same order")
        self.assertEqual(dataclasses.astuple(quick), dataclasses.astuple(by_init))
        with self.assertRaises(dataclasses.FrozenInstanceError):
            quick.allowed = False  # type: ignore[misc]
        with oh_hooks.Hooks({"trusted": True, "config": {"hooks": {"postToolUse": [{"command": "true"}]}}}) as h:
            self.assertEqual(h.fire_json('{"event":"preToolUse","toolName":"Bash"}').encode(), _NOTHING_RAN)
            self.assertEqual(h.fire({"event": "preToolUse", "toolName": "Bash"}), general)


class OutcomeBuiltWithoutInit(unittest.TestCase):
    """Outcome.from_json and HookTrace.from_json fill the frozen dataclasses without their
    __init__ (it cost more than the JSON decoding): what they build must be what __init__ builds
    from the same values, frozen, equal, hashed and printed alike, and a subclass still gets its
    own __init__."""

    def test_same_as_init(self) -> None:
        full_trace = {"index": 3, "type": "command", "result": "deny", "durationMs": 1.5, "jsonIO": True,
                      "persistent": True, "exitCode": 2, "signal": 9, "status": 500, "timedOut": False,
                      "reason": "r", "stderr": "e", "error": "x", "dialect": "claude", "source": "s",
                      "failure": "f", "future": 1}
        obj = {"allowed": False, "permissionDecision": "deny", "reason": "r", "additionalContext": "c",
               "updatedInput": {"a": 1}, "updatedPrompt": "p", "updatedPermissions": [{"t": 1}],
               "interrupt": True, "continue": False, "stopReason": "s", "systemMessage": "m",
               "hooks": [full_trace, {"index": 0, "type": "callback", "durationMs": 0.011, "result": "none"}],
               "warnings": ["w"], "error": {"code": "internal", "message": "x"}}
        nulls = {"allowed": True, "hooks": [{"index": None, "durationMs": 2, "type": None, "jsonIO": None}],
                 "reason": None, "warnings": [], "error": None, "unknown": {"x": 1}}
        for o in (obj, {"allowed": True, "hooks": []}, nulls, {}):
            built = Outcome.from_json(o)
            fields = {f.name: getattr(built, f.name) for f in dataclasses.fields(Outcome)}
            fields["hooks"] = [HookTrace(**{f.name: getattr(t, f.name) for f in dataclasses.fields(HookTrace)})
                               for t in built.hooks]
            by_init = Outcome(**fields)
            self.assertEqual(built, by_init)
            self.assertEqual(repr(built), repr(by_init))
            self.assertEqual(dataclasses.asdict(built), dataclasses.asdict(by_init))
            self.assertEqual(vars(built), vars(by_init), "the same fields, in the same order")
            self.assertIs(built.raw, o)
            with self.assertRaises(dataclasses.FrozenInstanceError):
                built.allowed = True  # type: ignore[misc]
        self.assertEqual(Outcome.from_json(obj).hooks[0].exit_code, 2)
        self.assertIsNone(Outcome.from_json(nulls).hooks[0].index, "a key present with null is read as null")
        self.assertEqual(Outcome.from_json(nulls).hooks[0].duration_ms, 2.0)
        from oh_hooks import _types

        for cls, keys, defaults in ((Outcome, _types._OUTCOME_KEYS, _types._OUTCOME_DEFAULTS),
                                    (HookTrace, _types._TRACE_KEYS, _types._TRACE_DEFAULTS)):
            names = [f.name for f in dataclasses.fields(cls)]
            self.assertEqual(list(defaults), names, "every field, in order")
            self.assertEqual(sorted(keys.values()), sorted(n for n in names if n != "raw"))
        self.assertEqual(Outcome.from_json(obj).error.code, "internal")

        @dataclasses.dataclass(frozen=True)
        class Mine(Outcome):
            def __post_init__(self) -> None:
                object.__setattr__(self, "reason", "seen by __post_init__")

        self.assertEqual(Mine.from_json(obj).reason, "seen by __post_init__")


class CompactJson(unittest.TestCase):
    """fire()'s envelope goes through the C encoder without JSONEncoder.encode around it: the
    same bytes as json.dumps with the binding's settings, and the same exceptions."""

    def test_same_as_json_dumps(self) -> None:
        import collections
        import enum

        from oh_hooks._hooks import _dumps

        class Str(str):
            pass

        class Int(int):
            pass

        class Num(enum.IntEnum):
            A = 1

        circular: dict = {"a": 1}
        circular["self"] = circular
        looped: list = [1]
        looped.append(looped)
        values = [
            {"event": "x", "n": 1, "f": 1.5, "t": True, "z": None, "l": [1, "a", {}], "u": "é\u2028😀\"\\\n"},
            {1: "a", 2.5: "b", True: "c", None: "d"}, {Str("k"): Str("v"), "i": Int(3), "e": Num.A},
            collections.OrderedDict(b=2, a=1), {"big": 10**30, "neg": -0.0, "e": 1e300}, "str", 5, None, [],
            {"s": "\ud800"},  # a lone surrogate: escaped, for the engine to judge
            {"nan": float("nan")}, {"inf": float("-inf")}, {"o": object()}, {("t",): 1}, {"b": b"x"},
            circular, looped,
        ]

        def reference(value: object) -> bytes:
            try:
                return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
            except UnicodeEncodeError:
                return json.dumps(value, separators=(",", ":"), allow_nan=False).encode("ascii")

        for value in values:
            with self.subTest(value=repr(value)[:40]):
                try:
                    expected = reference(value)
                except (TypeError, ValueError) as e:
                    with self.assertRaises(type(e)) as got:
                        _dumps(value)
                    self.assertEqual(str(got.exception), str(e))
                else:
                    self.assertEqual(_dumps(value), expected)


class EnterLeave(unittest.TestCase):
    """Calls count themselves in and out of the engine without the lock under the GIL, and with
    it otherwise: close() from another thread must still wait for every call inside, and no
    call may start on a freed engine, both ways."""

    def _close_under_firing_threads(self) -> None:
        for _ in range(5):
            hooks = Hooks(inline({"postToolUse": [{"command": "true"}]}))
            errors: list = []
            fired = [0] * 4
            go = threading.Barrier(5)

            def work(i: int) -> None:
                go.wait()
                try:
                    while True:
                        out = hooks.fire({"event": "preToolUse", "toolName": "Bash"})
                        assert out.allowed and out.error is None, out.raw
                        fired[i] += 1
                except OhHooksError as e:
                    if e.code != "closed":
                        errors.append(e)
                except Exception as e:  # pragma: no cover - reported below
                    errors.append(e)

            threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            go.wait()
            deadline = time.monotonic() + 10
            while not all(fired) and time.monotonic() < deadline:
                time.sleep(0.001)  # until each thread is firing
            hooks.close()
            self.assertEqual(hooks._inside, {}, "close() returned with a call inside")
            for t in threads:
                t.join()
            self.assertEqual(errors, [])
            self.assertTrue(all(fired), fired)

    def test_lock_free(self) -> None:
        from oh_hooks import _hooks

        self.assertTrue(_hooks._LOCK_FREE or not getattr(sys, "_is_gil_enabled", lambda: True)())
        self._close_under_firing_threads()

    def test_locked(self) -> None:
        from oh_hooks import _hooks

        saved, _hooks._LOCK_FREE = _hooks._LOCK_FREE, False
        try:
            self._close_under_firing_threads()
            hooks = Hooks(inline({}))
            hooks._enter("fire")  # as test_close_from_the_thread_inside_a_call_defers_the_free
            hooks.close()
            self.assertIsNotNone(hooks._deferred)
            hooks._leave()
            self.assertIsNone(hooks._deferred)
        finally:
            _hooks._LOCK_FREE = saved


class ScannerLoads(unittest.TestCase):
    """Outcomes and callback requests are decoded by json's C scanner without json.loads around
    it; whatever it does not take whole goes to json.loads: same values, same exceptions."""

    def test_same_as_json_loads(self) -> None:
        from oh_hooks._callbacks import _loads_text
        from oh_hooks._hooks import _loads

        texts = [b'{"a":1}', b' {"a":1} ', b'{"a":1}x', b'', b'\xef\xbb\xbf{"a":1}', b'{"a":"\xff"}', b'{"a":NaN}',
                 b'[1,2', b'"\xed\xa0\x80"', b'{"a":1,"a":2}', b'1e400', b'{"a":"\\ud800"}', b'null', b'{"a":{"b":[]}}']
        for raw in texts:
            for loads, arg in ((_loads, raw), (_loads_text, raw.decode("utf-8", "surrogateescape"))):
                with self.subTest(raw=raw, loads=loads.__name__):
                    try:
                        expected = json.loads(arg)
                    except ValueError as e:
                        with self.assertRaises(type(e)) as got:
                            loads(arg)
                        self.assertEqual(str(got.exception), str(e))
                    else:
                        self.assertEqual(repr(loads(arg)), repr(expected))
