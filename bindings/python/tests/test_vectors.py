"""Runs every shared vector in tests/vectors/*.json (format: tests/vectors/README.md).

One test method per vector file, so each counts on its own. A vector directory with
no vectors is a failure, never a silent pass.
"""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict

from _support import VECTORS_DIR, strip_durations

import asyncio

from oh_hooks import Hooks, OhHooksError, Outcome, RawResponse


def _vector_files():
    return sorted(VECTORS_DIR.glob("*.json"))


class VectorTests(unittest.TestCase):
    maxDiff = None

    def test_vectors_exist(self) -> None:
        self.assertTrue(_vector_files(), f"no *.json vectors in {VECTORS_DIR}")

    def run_vector(self, path: Path) -> None:
        # @HOME@ and @CWD@ stand for a fresh home and cwd, where the vector's files go.
        home = tempfile.TemporaryDirectory()
        cwd = tempfile.TemporaryDirectory()
        self.addCleanup(home.cleanup)
        self.addCleanup(cwd.cleanup)
        text = path.read_text(encoding="utf-8").replace("@HOME@", home.name).replace("@CWD@", cwd.name)
        vector: Dict[str, Any] = json.loads(text)
        for file, content in vector.get("files", {}).items():
            Path(file).parent.mkdir(parents=True, exist_ok=True)
            Path(file).write_text(content, encoding="utf-8")
        options = vector.get("options")

        if "newError" in vector:
            with self.assertRaises(OhHooksError, msg=vector.get("description")) as cm:
                Hooks(options).close()
            self.assertEqual(cm.exception.raw, vector["newError"], vector.get("description"))
            self.assertNotIn("fires", vector)
            return

        with Hooks(options) as hooks:
            # The vector's host functions: each answers at once with its canned response (dicts
            # through the ordinary path, any other value as exact text) and records its requests.
            requests: Dict[str, list] = {}
            for name, canned in (vector.get("callbacks") or {}).items():
                requests[name] = []
                if canned is None or isinstance(canned, dict):
                    answer = canned
                else:
                    answer = RawResponse(canned if isinstance(canned, str)
                                         else json.dumps(canned, separators=(",", ":")))
                hooks.register(name, lambda req, name=name, answer=answer: requests[name].append(req) or answer)
            # With host functions, each envelope fire also runs through fire_async (the functions
            # then run on engine threads).
            ways = ["fire", "fire_async"] if requests else ["fire"]
            for i, fire in enumerate(vector["fires"]):
                for way in (["raw"] if "raw" in fire else ways):
                    for name in requests:
                        requests[name] = []
                    label = f"{path.name} fire #{i} {way}: {vector.get('description', '')}"
                    if way == "raw":
                        got = json.loads(hooks.fire_json(fire["raw"]))
                    else:
                        if way == "fire":
                            outcome = hooks.fire(fire["envelope"])
                        else:
                            outcome = asyncio.run(hooks.fire_async(fire["envelope"]))
                        got = outcome.raw
                        # The typed view agrees with the JSON it came from.
                        self.assertEqual(outcome, Outcome.from_json(got))
                        self.assertEqual(outcome.allowed, got["allowed"])
                        self.assertEqual(len(outcome.hooks), len(got["hooks"]))
                    if "requests" in fire:
                        for name, got_requests in requests.items():
                            self.assertEqual(got_requests, fire["requests"].get(name, []), f"{label}: requests to {name}")
                    for t in got.get("hooks", []):
                        self.assertIsInstance(t.get("durationMs"), (int, float), f"{label}: durationMs missing")
                    self.assertEqual(strip_durations(got), strip_durations(fire["outcome"]), label)


def _make(path: Path):
    def test(self: VectorTests) -> None:
        self.run_vector(path)
    test.__doc__ = f"vector {path.name}"
    return test


for _path in _vector_files():
    setattr(VectorTests, "test_vector_" + _path.stem.replace("-", "_").replace(".", "_"), _make(_path))


if __name__ == "__main__":
    unittest.main()
