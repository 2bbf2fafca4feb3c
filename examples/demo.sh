#!/bin/sh
# Shows the engine on the shipped example policy: validates it, then fires real envelopes at
# it through the oh-hooks CLI. Run from the repository root after `cargo build --release`
# (`make demo` does both).
set -u
cd "$(dirname "$0")/.." || exit 2
cli=target/release/oh-hooks
policy=examples/policy
export OH_HOOKS_AUDIT_LOG="${TMPDIR:-/tmp}/oh-hooks-demo-audit.log"
rm -f "$OH_HOOKS_AUDIT_LOG"

echo "== oh-hooks check --cwd $policy --trusted"
"$cli" check --cwd "$policy" --trusted || exit 1

failures=0
# Fires envelope-file through the CLI with the flags after the first three arguments, and
# counts a failure when the exit status is not the expected one (0: allowed, 1: refused).
fire_with() { # expected-exit envelope-file what flags...
  local want=$1 envelope=$2 what=$3; shift 3
  printf "\n== %s\n$ oh-hooks fire %s < %s\n" "$what" "$*" "$envelope"
  "$cli" fire "$@" < "$envelope"
  status=$?
  if [ "$status" -eq "$want" ]; then
    [ "$status" -eq 0 ] && echo "-> exit 0: allowed" || echo "-> exit 1: refused"
  else
    echo "-> UNEXPECTED exit $status (wanted $want)"; failures=$((failures + 1))
  fi
}
fire() { fire_with "$1" "$2" "$3" --cwd "$policy" --trusted --wait; }
fire 0 examples/envelopes/bash-ls.json      "Bash 'ls -la src' is allowed"
fire 1 examples/envelopes/bash-rm-rf.json   "Bash 'rm -rf /' is denied by guard-bash.sh"
fire 0 examples/envelopes/prompt.json       "a prompt gets the project rules as additionalContext"
fire 0 examples/envelopes/permission-read.json     "permission for Read is approved (permissionDecision allow)"
fire 1 examples/envelopes/permission-webfetch.json "permission for WebFetch is refused (permissionDecision deny)"
fire 0 examples/envelopes/post-tool.json    "postToolUse writes an audit line (non-blocking)"
printf '\n== audit log (%s)\n' "$OH_HOOKS_AUDIT_LOG"
cat "$OH_HOOKS_AUDIT_LOG" || failures=$((failures + 1))

# Claude Code hooks, unchanged: examples/claude is a Claude Code project (.claude/settings.json
# with a Bash guard, a prompt-context hook and a Stop hook). An empty temporary home keeps your
# own ~/.claude/settings.json hooks out of the demo.
claude=examples/claude
claude_home=$(mktemp -d)
trap 'rm -rf "$claude_home"' EXIT
claude_opts="{\"home\":\"$claude_home\"}"
printf '\n== oh-hooks check --claude --cwd %s --trusted\n' "$claude"
"$cli" check --claude --cwd "$claude" --trusted --options "$claude_opts" || failures=$((failures + 1))
fire_claude() { fire_with "$1" "$2" "$3" --claude --cwd "$claude" --trusted --options "$claude_opts"; }
fire_claude 1 $claude/envelopes/bash-rm-rf.json      "Claude Code: Bash 'rm -rf /' is blocked by bash-guard.sh (exit 2, stderr is the reason)"
fire_claude 0 $claude/envelopes/bash-cargo-test.json "Claude Code: Bash 'cargo test' goes through"
fire_claude 0 $claude/envelopes/prompt.json          "Claude Code: plain stdout of prompt-context.py becomes additionalContext"
fire_claude 1 $claude/envelopes/stop.json            "Claude Code: the Stop hook keeps the turn going (allowed false = do not stop)"
fire_claude 0 $claude/envelopes/stop-tests-pass.json "Claude Code: once the tests pass, the turn may end"

# Codex hooks, unchanged: examples/codex is a Codex project (.codex/hooks.json with a Bash guard
# that blocks with exit 2, a guard for patches of .env files, a prompt-context hook and a Stop
# hook; docs/dialects/codex.md). The same empty home keeps your own ~/.codex hooks out.
codex=examples/codex
printf '\n== oh-hooks check --codex --cwd %s --trusted\n' "$codex"
"$cli" check --codex --cwd "$codex" --trusted --options "$claude_opts" || failures=$((failures + 1))
fire_codex() { fire_with "$1" "$2" "$3" --codex --cwd "$codex" --trusted --options "$claude_opts"; }
fire_codex 1 $codex/envelopes/bash-rm-rf.json      "Codex: Bash 'rm -rf /' is blocked by bash-guard.sh (exit 2, stderr is the reason)"
fire_codex 0 $codex/envelopes/bash-cargo-test.json "Codex: Bash 'cargo test' goes through"
fire_codex 1 $codex/envelopes/edit-env.json        "Codex: an Edit of config/.env reaches protect-env.py as apply_patch and is denied"
fire_codex 0 $codex/envelopes/prompt.json          "Codex: plain stdout of prompt-context.py becomes additionalContext"
fire_codex 1 $codex/envelopes/stop.json            "Codex: the Stop hook keeps the turn going (allowed false = do not stop)"
fire_codex 0 $codex/envelopes/stop-tests-pass.json "Codex: once the tests pass, the turn may end"

# Gemini CLI hooks, unchanged: examples/gemini is a Gemini CLI project (.gemini/settings.json
# with a shell guard in bash, a conventions hook in python3, a model hook in node).
gemini=examples/gemini
gemini_opts="{\"home\":\"$claude_home\"}"
printf '\n== oh-hooks check --gemini --cwd %s --trusted\n' "$gemini"
"$cli" check --gemini --cwd "$gemini" --trusted --options "$gemini_opts" || failures=$((failures + 1))
fire_gemini() { fire_with "$1" "$2" "$3" --gemini --cwd "$gemini" --trusted --options "$gemini_opts"; }
fire_gemini 1 $gemini/envelopes/rm-rf.json          "Gemini CLI: run_shell_command 'rm -rf /' is denied by shell-guard.sh (JSON decision)"
fire_gemini 0 $gemini/envelopes/ls.json             "Gemini CLI: 'ls -la src' goes through"
fire_gemini 0 $gemini/envelopes/force-push.json     "Gemini CLI: a force push asks the user (permissionDecision ask)"
fire_gemini 0 $gemini/envelopes/prompt.json         "Gemini CLI: BeforeAgent adds CONVENTIONS.md as additionalContext"
fire_gemini 0 $gemini/envelopes/before-model.json   "Gemini CLI: BeforeModel sends small talk to the flash model (llmRequest)"
fire_gemini 0 $gemini/envelopes/tool-selection.json "Gemini CLI: BeforeToolSelection gives a question read-only tools (toolConfig)"

# Cursor hooks, unchanged: examples/cursor is a Cursor project (.cursor/hooks.json with a shell
# guard, a context hook after edits and a stop hook with loop_limit). The same empty home keeps
# your own ~/.cursor/hooks.json out of the demo.
cursor=examples/cursor
printf '\n== oh-hooks check --cursor --cwd %s --trusted\n' "$cursor"
"$cli" check --cursor --cwd "$cursor" --trusted --options "$claude_opts" || failures=$((failures + 1))
fire_cursor() { fire_with "$1" "$2" "$3" --cursor --cwd "$cursor" --trusted --wait --options "$claude_opts"; }
fire_cursor 1 $cursor/envelopes/bash-rm-rf.json      "Cursor: 'rm -rf ~/' is refused by guard.py (beforeShellExecution, with the generic preToolUse)"
fire_cursor 0 $cursor/envelopes/bash-cargo-test.json "Cursor: 'cargo test' is allowed"
fire_cursor 0 $cursor/envelopes/bash-gh-merge.json   "Cursor: 'gh pr merge' asks the user (permissionDecision ask)"
fire_cursor 0 $cursor/envelopes/write.json           "Cursor: after a Write, conventions.py adds the project conventions as additionalContext"
fire_cursor 1 $cursor/envelopes/stop.json            "Cursor: the stop hook's followup_message keeps the agent going (allowed false)"
fire_cursor 0 $cursor/envelopes/stop-after-two.json  "Cursor: after loop_limit (2) follow-ups, the agent may stop"

# GitHub Copilot hooks, unchanged: examples/copilot is a Copilot project (.github/hooks/*.json
# with a preToolUse guard in python3, a userPromptSubmitted context hook in bash and an agentStop
# hook in node), read by Copilot's rules (docs/dialects/copilot.md). The same empty home keeps
# your own ~/.copilot/hooks out of the demo.
copilot=examples/copilot
printf '\n== oh-hooks check --copilot --cwd %s --trusted\n' "$copilot"
"$cli" check --copilot --cwd "$copilot" --trusted --options "$claude_opts" || failures=$((failures + 1))
fire_copilot() { fire_with "$1" "$2" "$3" --copilot --cwd "$copilot" --trusted --options "$claude_opts"; }
fire_copilot 1 $copilot/envelopes/bash-rm-rf.json        "Copilot: bash 'rm -rf /' is denied by guard.py (permissionDecision deny)"
fire_copilot 0 $copilot/envelopes/bash-ls.json           "Copilot: bash 'ls -la src' is allowed"
fire_copilot 1 $copilot/envelopes/write-outside-src.json "Copilot: a file created outside src/ is denied (the guard reads Copilot's \`path\`)"
fire_copilot 0 $copilot/envelopes/prompt.json            "Copilot: context.sh's additionalContext reaches the model"
fire_copilot 1 $copilot/envelopes/stop.json              "Copilot: the agentStop hook keeps the agent going (decision block = allowed false)"
fire_copilot 0 $copilot/envelopes/stop-tests-pass.json   "Copilot: once the tests pass, the agent may stop"

# All six dialects at once: examples/six has one guard and one context hook of each of
# openHarness, Claude Code, Codex, Cursor, Copilot and Gemini CLI (examples/six/README.md).
# Each guard refuses a different command; one prompt gets all six contexts.
six=examples/six
six_opts="{\"home\":\"$claude_home\",\"claude\":true,\"codex\":true,\"cursor\":true,\"copilot\":true,\"gemini\":true}"
fire_six() { fire_with "$1" "$2" "$3" --cwd "$six" --trusted --options "$six_opts"; }
fire_six 1 $six/envelopes/curl-sh.json    "six dialects: 'curl … | sh' is refused by the openHarness guard"
fire_six 1 $six/envelopes/force-push.json "six dialects: 'git push --force' is refused by the Claude Code guard"
fire_six 1 $six/envelopes/rm-rf.json      "six dialects: 'rm -rf /' is refused by the Codex guard"
fire_six 1 $six/envelopes/sudo.json       "six dialects: 'sudo …' is refused by the Cursor guard (beforeShellExecution)"
fire_six 1 $six/envelopes/chmod-777.json  "six dialects: 'chmod 777' is refused by the Copilot guard"
fire_six 1 $six/envelopes/mkfs.json       "six dialects: 'mkfs' is refused by the Gemini CLI guard"
fire_six 0 $six/envelopes/ls.json         "six dialects: 'ls -la src' passes all six guards"
fire_six 0 $six/envelopes/prompt.json     "six dialects: one prompt gets six lines of additionalContext, one per dialect"

# The CLI cannot register host functions: a small C harness shows them (docs/abi.md "Host callbacks").
printf '\n== a C harness with host callbacks: a permission callback, a stub model as the prompt\n'
printf '   evaluator, an audit log written by the observer (examples/c/harness.c)\n'
harness=target/demo-harness
if gcc -std=c11 -Wall -Wextra -Werror -Iinclude examples/c/harness.c -o "$harness" -Ltarget/release -loh_hooks \
    -Wl,-rpath,"$PWD/target/release" -lpthread; then
  "$harness" || failures=$((failures + 1))
else
  echo "-> the harness does not compile (gcc is needed)"; failures=$((failures + 1))
fi
echo
if [ "$failures" -eq 0 ]; then echo "demo: every decision was as expected"; else echo "demo: $failures unexpected decision(s)"; exit 1; fi
