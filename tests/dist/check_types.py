"""tests/dist.sh's type check of the installed wheel: `mypy --strict --warn-unused-ignores`.
Each `type: ignore` below must be needed, so a typo in an option or envelope key that the
TypedDicts stopped catching would fail the check."""

from typing import Any, Dict, cast

from oh_hooks import Envelope, Hooks, Options, Outcome

options: Options = {"trusted": True, "config": {"hooks": {}}, "defaultTimeoutMs": 5000}
with Hooks(options) as hooks:
    out: Outcome = hooks.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls"})
    print(out.allowed, out.reason)
    raw: Outcome = hooks.fire('{"event": "sessionStart"}')
    extra: Dict[str, Any] = {"event": "preToolUse", "custom": 1}
    hooks.fire(cast(Envelope, extra))

Hooks({"defaultTimeout": 5})  # type: ignore[arg-type]
Hooks({"trusted": "yes"})  # type: ignore[arg-type]
Hooks().fire({"event": "preToolUse", "toolNme": "Bash"})  # type: ignore[arg-type]
Hooks().fire({"toolName": "Bash"})  # type: ignore[arg-type]
