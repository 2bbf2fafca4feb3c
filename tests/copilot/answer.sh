#!/usr/bin/env bash
# Prints $ANSWER and exits with $EXIT (stdin read and dropped): a canned answer.
cat >/dev/null
printf '%s' "${ANSWER:-}"
[ -n "${STDERR:-}" ] && printf '%s\n' "$STDERR" >&2
exit "${EXIT:-0}"
