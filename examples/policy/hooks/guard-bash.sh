#!/bin/sh
# preToolUse, jsonIO, matched to Bash: refuse recursive force-deletes.
# The envelope arrives on stdin; the same context is in OH_* variables.
envelope=$(cat)
case "$OH_TOOL_ARGS" in
  *"rm -rf"* | *"rm -fr"* | *"rm -r -f"* | *"rm -f -r"*)
    printf '%s\n' '{"decision":"deny","reason":"recursive force-delete (rm -rf) is blocked by project policy"}'
    ;;
  *)
    # No decision: the tool runs unless a later hook says otherwise.
    printf '%s\n' '{}'
    ;;
esac
# Keep the envelope for debugging when asked to.
[ -n "$OH_HOOKS_EXAMPLE_DEBUG" ] && printf '%s\n' "$envelope" >&2
exit 0
