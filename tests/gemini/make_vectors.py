#!/usr/bin/env python3
"""Writes the gemini-*.json shared vectors (tests/vectors/): each vector's files, options and
envelopes are below; its expected outcomes are what `oh-hooks fire` answers now, with the
temporary paths put back as @HOME@ and @CWD@. Review the diff of tests/vectors/ after running it:
the outcomes are checked against gemini-cli's rules by tests/it/gemini_conformance.rs and
tests/it/gemini_oracle.rs, not by this script.

    python3 tests/gemini/make_vectors.py target/debug/oh-hooks
"""
import json
import os
import subprocess
import sys
import tempfile

CLI = sys.argv[1] if len(sys.argv) > 1 else "target/debug/oh-hooks"
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "vectors")


def settings(hooks, **more):
    return json.dumps({"hooks": hooks, **more}, indent=1)


def group(handlers, matcher=None, **more):
    g = {"hooks": [{"type": "command", "command": h} if isinstance(h, str) else h for h in handlers], **more}
    if matcher is not None:
        g["matcher"] = matcher
    return g


BASE = {"home": "@HOME@", "cwd": "@CWD@", "trusted": True, "gemini": True}

VECTORS = {
    "gemini-exit-codes": {
        "description": "Gemini CLI answers as its code reads them: exit 0 text is a systemMessage, exit 1 a warning that proceeds, another exit with text denies with it, exit 2 printing nothing blocks nothing, JSON decides on any exit code",
        "files": {"@HOME@/.gemini/settings.json": settings({"BeforeTool": [
            group(["echo 'logged'"], "read_file"),
            group(["echo 'careful' >&2; exit 1"], "glob"),
            group(["echo 'no rm' >&2; exit 2"], "run_shell_command"),
            group(["exit 2"], "web_fetch"),
            group(["printf '%s' '{\"decision\":\"deny\",\"reason\":\"json on exit 1\"}'; exit 1"], "replace"),
            group(["printf '%s' '{\"decision\":\"allow\"}'; exit 2"], "write_file"),
        ]})},
        "options": BASE,
        "fires": [
            {"event": "preToolUse", "toolName": "Read", "toolInput": {"file_path": "a"}},
            {"event": "preToolUse", "toolName": "Glob", "toolInput": {"pattern": "*"}},
            {"event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /"},
            {"event": "preToolUse", "toolName": "WebFetch", "toolInput": {"url": "http://x"}},
            {"event": "preToolUse", "toolName": "Edit", "toolInput": {"file_path": "a"}},
            {"event": "preToolUse", "toolName": "Write", "toolInput": {"file_path": "a"}},
        ],
    },
    "gemini-stdin": {
        "description": "a Gemini CLI hook's stdin: session_id, transcript_path, cwd, hook_event_name, timestamp first, Gemini's tool names and field names, no newline; the Gemini variables",
        "files": {"@HOME@/.gemini/settings.json": settings({
            "BeforeTool": [group(["printf 'stdin: '; cat; exit 2"])],
            "BeforeAgent": [group(["echo \"$GEMINI_PROJECT_DIR|$GEMINI_CWD|$CLAUDE_PROJECT_DIR|$GEMINI_SESSION_ID|$GEMINI_PLANS_DIR\" >&2; exit 2"])],
        })},
        "options": BASE,
        "fires": [
            {"event": "preToolUse", "sessionId": "s1", "transcriptPath": "/t.jsonl", "timestamp": "2026-01-01T00:00:00.000Z", "toolName": "Grep", "toolInput": {"pattern": "TODO", "path": "src"}},
            {"event": "preToolUse", "sessionId": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "toolName": "mcp__github__create_issue", "toolInput": {"title": "x"}},
            {"event": "userPromptSubmit", "sessionId": "s1", "prompt": "hi", "plansDir": "/plans"},
        ],
    },
    "gemini-merge": {
        "description": "Gemini CLI merge: any deny wins and every reason is joined by a newline; ask without a deny; the last tool_input replaces the input, renamed back to the host's field names, with no permission decision",
        "files": {"@HOME@/.gemini/settings.json": settings({"BeforeTool": [
            group(["printf '%s' '{\"decision\":\"allow\",\"reason\":\"fine\"}'", "echo 'no rm' >&2; exit 2"], "run_shell_command"),
            group(["printf '%s' '{\"decision\":\"ask\",\"reason\":\"sure?\"}'"], "read_file"),
            group(["printf '%s' '{\"hookSpecificOutput\":{\"tool_input\":{\"pattern\":\"a\",\"dir_path\":\"x\"}}}'",
                   "printf '%s' '{\"hookSpecificOutput\":{\"tool_input\":{\"pattern\":\"b\",\"dir_path\":\"lib\"}}}'"], "grep_search"),
        ]})},
        "options": BASE,
        "fires": [
            {"event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /"},
            {"event": "preToolUse", "toolName": "Read", "toolInput": {"file_path": ".env"}},
            {"event": "preToolUse", "toolName": "Grep", "toolInput": {"pattern": "x", "path": "src", "glob": "*.rs"}},
        ],
    },
    "gemini-project-cannot-switch-off-the-user": {
        "description": "a trusted project's hooksConfig (enabled: false, disabled: [the user's hook]) switches off only its own Gemini hooks; an untrusted project's settings are not read",
        "files": {
            "@HOME@/.gemini/settings.json": settings({"BeforeTool": [group([{"type": "command", "name": "guard", "command": "echo 'the user says no' >&2; exit 2"}])]}),
            "@CWD@/.gemini/settings.json": settings({"BeforeTool": [group(["echo 'project hook ran' >&2; exit 2"])]}, hooksConfig={"enabled": False, "disabled": ["guard"]}),
        },
        "options": BASE,
        "fires": [{"event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /"}],
    },
    "gemini-untrusted-project": {
        "description": "an untrusted project's .gemini/settings.json is not opened; the outcome says it exists",
        "files": {"@CWD@/.gemini/settings.json": settings({"BeforeTool": [group(["echo 'project' >&2; exit 2"])]})},
        "options": {**BASE, "trusted": False},
        "fires": [{"event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /"}],
    },
    "gemini-model-events": {
        "description": "Gemini CLI's model events: BeforeModel's llm_request, AfterModel's llm_response (used when it has parts), BeforeToolSelection's allowed names a sorted union with mode ANY over AUTO",
        "files": {"@HOME@/.gemini/settings.json": settings({
            "BeforeModel": [group(["printf '%s' '{\"hookSpecificOutput\":{\"llm_request\":{\"model\":\"gemini-2.5-flash\"}}}'"])],
            "AfterModel": [group(["printf '%s' '{\"hookSpecificOutput\":{\"llm_response\":{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[\"[redacted]\"]}}]}}}'"])],
            "BeforeToolSelection": [group([
                "printf '%s' '{\"hookSpecificOutput\":{\"toolConfig\":{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"read_file\"]}}}'",
                "printf '%s' '{\"hookSpecificOutput\":{\"toolConfig\":{\"mode\":\"AUTO\",\"allowedFunctionNames\":[\"glob\",\"read_file\"]}}}'",
            ])],
        })},
        "options": BASE,
        "fires": [
            {"event": "beforeModel", "llmRequest": {"model": "gemini-2.5-pro", "messages": []}},
            {"event": "afterModel", "llmRequest": {"model": "gemini-2.5-pro", "messages": []}, "llmResponse": {"candidates": []}},
            {"event": "beforeToolSelection", "llmRequest": {"model": "gemini-2.5-pro", "messages": []}},
        ],
    },
}


def run(vector):
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        sub = lambda s: s.replace("@HOME@", home).replace("@CWD@", cwd)
        back = lambda s: s.replace(home, "@HOME@").replace(cwd, "@CWD@")
        for path, text in vector["files"].items():
            path = sub(path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        options = sub(json.dumps(vector["options"]))
        fires = []
        for envelope in vector["fires"]:
            p = subprocess.run([CLI, "fire", "--options", options, json.dumps(envelope)], capture_output=True, text=True)
            outcome = json.loads(back(p.stdout))
            for h in outcome.get("hooks", []):
                h.pop("durationMs", None)
            fires.append({"envelope": envelope, "outcome": outcome})
        return fires


for name, v in VECTORS.items():
    out = {"description": v["description"], "files": v["files"], "options": v["options"], "fires": run(v)}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(out, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(name)
