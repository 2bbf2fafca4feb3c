#!/usr/bin/env bash
# Sleeps argv[1] seconds, then denies (too late when its timeout is shorter).
cat >/dev/null
sleep "$1"
printf '{"permission":"deny"}\n'
