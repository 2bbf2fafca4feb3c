#!/usr/bin/env bash
# Fires real-world Gemini CLI hook setups from public repositories through the oh-hooks CLI and
# prints what each fire decided. Their code is not part of this repository: pass a directory of
# bare mirrors (<owner>+<name>/repo, as the team's mirror tool writes them) and the CLI:
#   tests/gemini/real-world.sh /work/.mirror target/release/oh-hooks
# docs/dialects/gemini.md ("Real-world setups") records what it printed and why.
set -u
mirrors=${1:?a directory of mirrors}
cli=$(realpath "${2:-target/release/oh-hooks}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

extract() { # owner+name dest paths...
  local name=$1 repo=$mirrors/$1/repo dest=$2
  shift 2
  mkdir -p "$dest"
  git --git-dir="$repo" archive HEAD "$@" 2>/dev/null | tar -x -C "$dest"
  echo "-- $name @ $(git --git-dir="$repo" rev-parse --short HEAD)"
}
fire() { # what options envelope
  printf '\n== %s\n' "$1"
  "$cli" fire --options "$2" "$3" | python3 -c 'import sys, json
d = json.load(sys.stdin)
for h in d.pop("hooks"):
    print("   trace:", {k: h[k] for k in ("result", "exitCode", "reason", "failure", "stderr") if k in h})
print("   outcome:", json.dumps(d)[:400])'
}

# 1. OthmanAdi/planning-with-files: a project's .gemini/settings.json (SessionStart, BeforeTool,
#    AfterTool, BeforeModel, SessionEnd), scripts committed without the execute bit.
proj=$work/planning
extract OthmanAdi+planning-with-files "$proj" .gemini
printf '# Plan\n- [ ] phase 1\n' > "$proj/task_plan.md"
opts="{\"gemini\":true,\"trusted\":true,\"cwd\":\"$proj\",\"home\":\"$work/home\"}"
fire "planning-with-files: BeforeTool write_file, scripts as committed (mode 644)" "$opts" \
  '{"event":"preToolUse","toolName":"Write","toolInput":{"file_path":"a.md","content":"x"}}'
chmod +x "$proj"/.gemini/hooks/*.sh
fire "planning-with-files: BeforeTool write_file, scripts executable" "$opts" \
  '{"event":"preToolUse","toolName":"Write","toolInput":{"file_path":"a.md","content":"x"}}'
fire "planning-with-files: SessionStart startup" "$opts" '{"event":"sessionStart","source":"startup"}'
fire "planning-with-files: BeforeModel" "$opts" '{"event":"beforeModel","llmRequest":{"model":"m","messages":[]}}'
fire "planning-with-files: BeforeTool list_directory (not matched)" "$opts" \
  '{"event":"preToolUse","toolName":"list_directory","toolInput":{"dir_path":"."}}'

# 2. Jamkris/everything-gemini-code: an extension (hooks/hooks.json) installed in
#    ~/.gemini/extensions/everything-gemini-code, as its commands expect.
home=$work/egc-home
ext=$home/.gemini/extensions/everything-gemini-code
extract Jamkris+everything-gemini-code "$ext" hooks scripts gemini-extension.json package.json
mkdir -p "$work/egc-proj"
opts="{\"gemini\":{\"plugins\":[\"$ext\"]},\"trusted\":true,\"cwd\":\"$work/egc-proj\",\"home\":\"$home\",\"env\":{\"HOME\":\"$home\"}}"
fire "everything-gemini-code: BeforeTool run_shell_command 'git commit --no-verify'" "$opts" \
  '{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"git commit --no-verify -m x"}}'
fire "everything-gemini-code: BeforeTool write_file notes.md" "$opts" \
  '{"event":"preToolUse","toolName":"Write","toolInput":{"file_path":"notes.md","content":"x"}}'
fire "everything-gemini-code: SessionStart" "$opts" '{"event":"sessionStart","source":"startup"}'

# 3. obra/superpowers: a Claude Code plugin that is also a Gemini extension; its hooks/hooks.json
#    has a SessionStart hook with the matcher "startup|clear|compact".
sp=$work/superpowers
extract obra+superpowers "$sp" hooks gemini-extension.json
opts="{\"gemini\":{\"plugins\":[\"$sp\"]},\"trusted\":true,\"cwd\":\"$work\",\"home\":\"$work/home\"}"
fire "superpowers: SessionStart startup" "$opts" '{"event":"sessionStart","source":"startup"}'
"$cli" check --options "$opts" | grep -E "sessionStart|gemini" || true
