#!/usr/bin/env bash
# A beforeShellExecution guard as Cursor users write them: read `command` from stdin, deny
# destructive commands, ask before `gh`, allow the rest. No jq: python3 reads the JSON.
input=$(cat)
command=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("command", ""))') || exit 1
case "$command" in
  *"rm -rf"*|*"git push --force"*)
    printf '{"permission":"deny","user_message":"Blocked: %s","agent_message":"This command is destructive; use a safer one."}\n' "${command%% *}"
    ;;
  gh\ *)
    printf '{"permission":"ask","user_message":"gh needs your approval"}\n'
    ;;
  *)
    printf '{"permission":"allow"}\n'
    ;;
esac
