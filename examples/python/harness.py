#!/usr/bin/env python3
"""A miniature agent harness driven by oh-hooks.

It plays one user turn against examples/harness.yaml (the project policy of
examples/policy plus the harness's own hooks), the way a real harness would:

    user prompt -> userPromptSubmit
    for each tool call the model asks for:
        permissionRequest   (the "needs approval" branch)
        preToolUse          (last gate before running)
        the tool "runs"     (here: printed, never executed)
        postToolUse         (notify-only, returns at once)

and prints what the harness does with every decision. The harness's own hooks
call back into this process: `callback: canUseTool` (its permission check) and
a prompt hook judged by its "model" (the function registered as `prompt`, a stub
here); the decision observer writes every decision to an audit log.

    python3 examples/python/harness.py [POLICY_DIR]

The library is found as the binding always finds it: $OH_HOOKS_LIB, next to
the oh_hooks package, or the build tree's target/release (run
`cargo build --release` first).
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
try:
    import oh_hooks
except ImportError:  # not installed: use the source tree
    sys.path.insert(0, str(REPO / "bindings" / "python"))
    import oh_hooks

from oh_hooks import Hooks, OhHooksError, Outcome

SESSION = {"sessionId": "demo-session-1", "model": "anthropic/claude-opus-4-7",
           "provider": "anthropic", "permissionMode": "ask"}

PROMPT = "Tidy up the repository: show me what is there, then clean the build output."

# What the "model" asks for this turn: (tool, arguments).
TOOL_CALLS = [
    ("Read", {"path": "README.md"}),             # permission: approved by policy
    ("Bash", {"command": "ls -la"}),             # permission: ask the user; preToolUse: no objection
    ("Bash", {"command": "git push --force origin main"}),  # permission: approved for the session;
                                                             # preToolUse: the model refuses it
    ("Bash", {"command": "rm -rf /"}),           # preToolUse: denied by guard-bash.sh
    ("WebFetch", {"url": "https://example.com"}),  # permission: refused by policy
]


def show_hooks(outcome: Outcome) -> None:
    for t in outcome.hooks:
        detail = []
        if t.exit_code is not None:
            detail.append(f"exit {t.exit_code}")
        if t.timed_out:
            detail.append("timed out")
        if t.reason:
            detail.append(repr(t.reason))
        if t.error:
            detail.append(f"error: {t.error}")
        print(f"      hook #{t.index} ({t.type}{', jsonIO' if t.json_io else ''}) -> {t.result}"
              f"{' [' + ', '.join(detail) + ']' if detail else ''}  {t.duration_ms:.1f} ms")
    for w in outcome.warnings:
        print(f"      warning: {w}")
    if outcome.error:
        print(f"      engine refused the envelope: {outcome.error.code}: {outcome.error.message}")


BLOCKING = {"preToolUse", "userPromptSubmit", "permissionRequest", "elicitation"}

# ---- the harness's own hook functions ------------------------------------------------------

APPROVED_FOR_SESSION: set = set()  # tools the user approved "always, for this session"


def can_use_tool(envelope: dict):
    """`callback: canUseTool`: allow what the user already approved; no opinion (None)
    otherwise, so the project's permission policy decides."""
    if envelope.get("toolName") in APPROVED_FOR_SESSION:
        return {"hookSpecificOutput": {"decision": "allow",
                                       "reason": f"{envelope['toolName']} was approved for this session"}}
    return None


def model(request: dict):
    """The prompt evaluator: a stub "model" answering the hook's question about the envelope."""
    command = request["envelope"].get("toolArgs", "")
    if "git push" in command and ("--force" in command or " -f" in command):
        return {"decision": "deny",
                "reason": f"model: a force-push rewrites shared history (asked: {request['prompt']})"}
    return None  # no objection: the other hooks decide


class AuditLog:
    """The decision observer: one JSON line per fire, once all its hooks (background ones
    included) have finished. Called on engine threads too, hence the lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, record: dict) -> None:
        envelope, outcome = record["envelope"] or {}, record["outcome"]
        line = {"event": envelope.get("event"), "toolName": envelope.get("toolName"),
                "allowed": outcome["allowed"], "permissionDecision": outcome.get("permissionDecision"),
                "reason": outcome.get("reason"),
                "hooks": [f"{t['type']}:{t['result']}" for t in outcome["hooks"]]}
        with self.lock, self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps({k: v for k, v in line.items() if v is not None}) + "\n")
            self.count += 1



def fire(hooks: Hooks, event: str, **context) -> Outcome:
    print(f"  -> {event}")
    outcome = hooks.fire({"event": event, **SESSION, **context})
    if outcome.hooks or outcome.error:
        show_hooks(outcome)
    elif event in BLOCKING:
        print("      (no hook matched: no objection)")
    else:
        print("      (notify-only: returned at once, its hooks run in the background)")
    return outcome


def run_tool(hooks: Hooks, tool: str, args: dict) -> None:
    summary = args.get("command") or args.get("path") or args.get("url") or ""
    tool_ctx = {"toolName": tool, "toolArgs": summary, "toolInputJson": json.dumps(args)}
    print(f"\nmodel wants to call {tool}({summary})")

    # 1. The tool needs approval: ask the permission hooks before bothering the user.
    perm = fire(hooks, "permissionRequest", permissionAction="ask", **tool_ctx)
    if not perm.allowed or perm.permission_decision == "deny":
        print(f"  harness: permission DENIED by policy ({perm.reason or 'no reason given'}); "
              "the tool does not run and the model is told why")
        fire(hooks, "permissionDenied", **tool_ctx)
        return
    if perm.permission_decision == "allow":
        print("  harness: approved by a hook, no need to ask the user")
    else:  # "ask", or no hook had an opinion
        print(f"  harness: policy says ask -> would prompt the user; the demo user answers "
              f"'yes, always for {tool}'")
        APPROVED_FOR_SESSION.add(tool)

    # 2. Last gate before running.
    pre = fire(hooks, "preToolUse", **tool_ctx)
    if not pre.allowed:
        print(f"  harness: BLOCKED by preToolUse ({pre.reason or 'no reason given'}); "
              "the model gets the reason as the tool's error")
        return
    if pre.additional_context:
        print(f"  harness: adds to the tool result for the model: {pre.additional_context!r}")

    # 3. "Run" the tool (printed only: this demo never executes anything).
    print(f"  [tool] {tool} {summary}   (simulated)")
    output = f"(output of {tool} {summary})"

    # 4. Notify: non-blocking, returns at once; its hooks run in the background.
    fire(hooks, "postToolUse", toolOutput=output, **tool_ctx)


def main() -> int:
    policy = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "examples" / "policy"
    print(f"oh-hooks {oh_hooks.version()} ({oh_hooks.library_path()})")
    config = REPO / "examples" / "harness.yaml"
    print(f"config: {config} (hooks run in {policy})")
    tmp = tempfile.TemporaryDirectory(prefix="oh-hooks-harness-")
    audit_log = Path(tmp.name) / "audit.log"
    decisions = AuditLog(Path(tmp.name) / "decisions.jsonl")
    try:
        # trusted: True because this is our own example; a real harness leaves `trusted` out
        # and lets openHarness's trust store decide. `env` reaches every hook (audit-log.sh).
        hooks = Hooks({"cwd": str(policy), "configPath": str(config), "trusted": True,
                       "env": {"OH_HOOKS_AUDIT_LOG": str(audit_log)}})
    except OhHooksError as e:
        print(f"cannot load the policy: {e}", file=sys.stderr)
        return 1

    hooks.register("canUseTool", can_use_tool)
    hooks.register("prompt", model)
    hooks.on_decision(decisions)
    with hooks:
        fire(hooks, "sessionStart")
        print(f"\nuser: {PROMPT}")
        submit = fire(hooks, "userPromptSubmit", prompt=PROMPT)
        if not submit.allowed:
            print(f"  harness: prompt BLOCKED ({submit.reason or 'blocked by a hook'}); nothing is sent")
            return 0
        prompt = PROMPT
        if submit.additional_context:
            prompt = f"{submit.additional_context}\n\n{PROMPT}"
            print(f"  harness: prepends to the prompt: {submit.additional_context!r}")
        print(f"  harness: sends {len(prompt)} characters to the model")

        for tool, args in TOOL_CALLS:
            run_tool(hooks, tool, args)

        print()
        fire(hooks, "sessionEnd")
    print("session closed (background hooks drained)")
    if audit_log.exists():
        print(f"\naudit log written by the postToolUse hook ({audit_log}):")
        print(audit_log.read_text().rstrip())
    print(f"\n{decisions.count} decision(s) recorded by the observer ({decisions.path}):")
    print(decisions.path.read_text().rstrip())
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
