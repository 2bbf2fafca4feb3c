#!/usr/bin/env bash
# PreToolUse guard for Bash, written for Claude Code and run unchanged by oh-hooks: reads the
# one-line JSON Claude Code sends on stdin (no jq needed), blocks destructive commands with
# exit 2 and tells the model why on stderr. Anything else: exit 0, no opinion.
read -r input
block() {
    echo "$1" >&2
    exit 2
}
case "$input" in
*'"command":"rm -rf /'* | *'"command":"rm -rf ~'*) block "Blocked: recursive delete of / or ~ is never allowed." ;;
*'git push'*'--force'*) block "Blocked: force-push is not allowed; push a new branch instead." ;;
*'curl '*'| sh'* | *'curl '*'| bash'*) block "Blocked: piping a download into a shell; download, read, then run it." ;;
esac
exit 0
