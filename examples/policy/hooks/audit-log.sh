#!/bin/sh
# postToolUse, env mode: one audit line per tool call. Fire-and-forget: its exit status and
# output do not matter to the harness.
log=${OH_HOOKS_AUDIT_LOG:-${TMPDIR:-/tmp}/oh-hooks-audit.log}
printf '%s session=%s tool=%s args=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$OH_SESSION_ID" "$OH_TOOL_NAME" "$OH_TOOL_ARGS" >> "$log"
