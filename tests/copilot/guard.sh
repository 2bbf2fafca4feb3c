#!/usr/bin/env bash
# A Copilot preToolUse guard as Copilot users write them (no jq): reads the payload, denies
# `rm -rf` in a bash command, allows the rest. Works for both payloads (toolArgs or tool_input).
input=$(cat)
case "$input" in
  *'"command":"rm -rf'*)
    printf '{"permissionDecision":"deny","permissionDecisionReason":"rm -rf is not allowed here"}\n' ;;
  *)
    printf '{"permissionDecision":"allow"}\n' ;;
esac
