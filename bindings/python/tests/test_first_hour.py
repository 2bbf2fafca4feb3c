"""What a new user trips over first: keyword options, typed requests and records, error text."""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

from _support import inline

from oh_hooks import Hooks, OhHooksError, Outcome, Record, Request


class KeywordOptionTests(unittest.TestCase):
    def test_snake_case_keywords_set_the_engine_options(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            proj = Path(tmp)
            (proj / ".oh").mkdir()
            (proj / ".oh" / "config.yaml").write_text("hooks:\n  preToolUse:\n    - command: sleep 5\n")
            # default_timeout_ms reaches the engine: the hook times out after 200 ms.
            with Hooks(cwd=str(proj), trusted=True, default_timeout_ms=200) as hooks:
                out = hooks.fire({"event": "preToolUse", "toolName": "Bash"})
            self.assertFalse(out.allowed)
            self.assertTrue(out.hooks[0].timed_out)

    def test_dict_and_keywords_combine(self) -> None:
        with Hooks({"config": {"hooks": {"preToolUse": [{"command": "exit 1"}]}}}, trusted=True) as hooks:
            self.assertFalse(hooks.fire({"event": "preToolUse"}).allowed)
        # None: the engine's default (here: no `trusted`, so the trust store decides).
        with Hooks(config={"hooks": {}}, trusted=None, wait_non_blocking=True) as hooks:
            self.assertTrue(hooks.fire({"event": "preToolUse"}).allowed)

    def test_unknown_keyword_is_a_type_error_with_a_suggestion(self) -> None:
        with self.assertRaises(TypeError) as cm:
            Hooks(default_timeout=5)
        self.assertIn("'default_timeout'", str(cm.exception))
        self.assertIn("did you mean 'default_timeout_ms'", str(cm.exception))
        with self.assertRaises(TypeError) as cm:
            Hooks(defaultTimeoutMs=5)
        self.assertIn("did you mean 'default_timeout_ms'", str(cm.exception))
        with self.assertRaises(TypeError) as cm:
            Hooks({"cwd": "/"}, cwd="/")
        self.assertIn("'cwd' twice", str(cm.exception))

    def test_the_engine_still_judges_the_values(self) -> None:
        with self.assertRaises(OhHooksError) as cm:
            Hooks(default_timeout_ms=0)
        self.assertEqual(cm.exception.code, "invalid_options")


class TypedRequestTests(unittest.TestCase):
    def test_callback_request_is_typed_and_still_a_dict(self) -> None:
        seen = []

        def can_use_tool(req: Request) -> None:
            seen.append(req)
            return None

        with Hooks(inline({"preToolUse": [{"callback": "canUseTool"}]})) as hooks:
            hooks.register("canUseTool", can_use_tool)
            hooks.fire({"event": "preToolUse", "toolName": "Bash", "toolInput": {"command": "ls"}, "sessionId": "s1"})
        req = seen[0]
        self.assertIsInstance(req, Request)
        self.assertEqual((req.event, req.tool_name, req.tool_input, req.session_id), ("preToolUse", "Bash", {"command": "ls"}, "s1"))
        self.assertEqual(req["toolName"], "Bash")  # raw access, as before
        self.assertEqual(req.raw, {"event": "preToolUse", "toolName": "Bash", "toolInput": {"command": "ls"}, "sessionId": "s1"})
        self.assertIsNone(req.tool_args)
        self.assertIsNone(req.permission_mode)  # any envelope field, absent: None

    def test_prompt_request_has_prompt_and_envelope(self) -> None:
        seen = []
        with Hooks(inline({"preToolUse": [{"prompt": "Is it safe?"}]})) as hooks:
            hooks.register("prompt", lambda req: seen.append(req))
            hooks.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls"})
        req = seen[0]
        self.assertEqual(req.prompt, "Is it safe?")
        self.assertIsInstance(req.envelope, Request)
        assert req.envelope is not None
        self.assertEqual((req.envelope.tool_name, req.envelope.tool_args), ("Bash", "ls"))
        self.assertEqual(req["envelope"]["toolName"], "Bash")

    def test_record_has_a_typed_outcome(self) -> None:
        records = []
        with Hooks(inline({"preToolUse": [{"command": "exit 1"}]})) as hooks:
            hooks.on_decision(records.append)
            hooks.fire({"event": "preToolUse", "toolName": "Bash"})
        rec = records[0]
        self.assertIsInstance(rec, Record)
        self.assertIsInstance(rec.outcome, Outcome)
        self.assertFalse(rec.outcome.allowed)
        self.assertEqual(rec.outcome.reason, "hook denied (exit code)")
        self.assertEqual(rec.outcome.hooks[0].exit_code, 1)
        assert rec.envelope is not None
        self.assertEqual(rec.envelope.tool_name, "Bash")
        self.assertEqual(rec["outcome"]["allowed"], False)  # raw access, as before

    def test_envelope_tool_input_reaches_the_hook(self) -> None:
        from oh_hooks import Envelope

        env: Envelope = {"event": "preToolUse", "toolName": "Bash", "toolInput": {"command": "rm -rf /"}}
        hooks_cfg = {"preToolUse": [{"command": "grep -q 'rm -rf' && exit 1 || exit 0", "jsonIO": True}]}
        with Hooks(inline(hooks_cfg)) as hooks:
            self.assertFalse(hooks.fire(env).allowed)
            snake: Envelope = {"event": "preToolUse", "toolName": "Bash", "tool_input": {"command": "ls"}}
            self.assertTrue(hooks.fire(snake).allowed)


class ErrorTextTests(unittest.TestCase):
    def test_str_does_not_repeat_the_location(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            cfg = Path(tmp) / "c.yaml"
            cfg.write_text("hooks:\n  preToolUse:\n    - commnd: x\n")
            with self.assertRaises(OhHooksError) as cm:
                Hooks(config_path=str(cfg))
        text = str(cm.exception)
        self.assertEqual(text.count(str(cfg)), 1, text)
        self.assertEqual(text.count("hooks.preToolUse[0]"), 1, text)
        self.assertTrue(text.startswith("invalid_config: "), text)
        # A message that does not name them still gets them.
        e = OhHooksError("invalid_config", "bad", file="/x.yaml", line=2, path="hooks")
        self.assertEqual(str(e), "invalid_config: bad (/x.yaml:2 at hooks)")


if __name__ == "__main__":
    unittest.main()
