#!/usr/bin/env bash
# Sleeps $1 seconds, then (when given) prints $2 as its answer. Timeouts and the parallel run.
sleep "$1"
[ -n "${2:-}" ] && printf '%s' "$2"
exit 0
