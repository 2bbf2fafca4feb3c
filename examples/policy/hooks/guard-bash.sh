#!/bin/sh
# preToolUse, persistent, matched to Bash: refuse recursive force-deletes.
# Started once (on the first Bash call) and kept: each envelope arrives as one line on stdin,
# each answer goes out as one line on stdout. EOF on stdin means the engine is done with us.
# A persistent hook gets the envelope only: the per-event OH_* variables are not set.
while IFS= read -r envelope; do
  case "$envelope" in
    *"rm -rf"* | *"rm -fr"* | *"rm -r -f"* | *"rm -f -r"*)
      printf '%s\n' '{"decision":"deny","reason":"recursive force-delete (rm -rf) is blocked by project policy"}'
      ;;
    *)
      # No decision: the tool runs unless a later hook says otherwise.
      printf '%s\n' '{}'
      ;;
  esac
  # Keep the envelope for debugging when asked to (stderr lands in this request's trace).
  [ -n "$OH_HOOKS_EXAMPLE_DEBUG" ] && printf '%s\n' "$envelope" >&2
done
