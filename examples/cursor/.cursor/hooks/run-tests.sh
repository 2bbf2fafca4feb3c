#!/usr/bin/env bash
# stop: keep the agent going while the tests fail (here: while .tests-pass is absent), at most
# loop_limit times (hooks.json), counted by the host in loop_count.
input=$(cat)
if [ -e .tests-pass ]; then
  echo '{}'
else
  round=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("loop_count", 0) + 1)')
  printf '{"followup_message":"The tests fail (round %s). Fix them before you stop."}\n' "$round"
fi
