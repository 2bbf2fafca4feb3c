#!/bin/sh
# Node suite: builds the addon from the already-built target/release, runs the
# tests with `node --test`, and prints as its last line
#   node: N passed, N failed
# Exits non-zero when anything failed or a needed tool is missing.
set -u
cd "$(dirname "$0")" || exit 1

summary() { echo "node: $1 passed, $2 failed"; }

for tool in node gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool not found on PATH (the Node suite needs node and gcc)"
    summary 0 1
    exit 1
  fi
done

LIB_DIR="${OH_HOOKS_LIB_DIR:-../../target/release}"
if [ ! -f "$LIB_DIR/liboh_hooks.so" ]; then
  echo "error: $LIB_DIR/liboh_hooks.so not found: run 'cargo build --release' in the repository root first"
  summary 0 1
  exit 1
fi

# Node's C headers: the system's, else the npm package node-api-headers (fetched from the npm
# registry into bindings/node/node_modules, which is not committed).
if [ -z "${NODE_API_INCLUDE_DIR:-}" ] && [ ! -f /usr/include/node/node_api.h ] && [ ! -d node_modules/node-api-headers ]; then
  echo "== /usr/include/node/node_api.h not found: npm install --no-save node-api-headers"
  if ! command -v npm >/dev/null 2>&1 || ! npm install --no-save --no-audit --no-fund node-api-headers; then
    echo "error: no Node API headers: install Node's headers or let npm fetch node-api-headers"
    summary 0 1
    exit 1
  fi
fi

if ! node build.js; then
  echo "error: building the Node addon failed"
  summary 0 1
  exit 1
fi

out=$(mktemp "${TMPDIR:-/tmp}/oh-hooks-node-test.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT

node --test --test-reporter=tap test/*.test.js >"$out" 2>&1
status=$?
cat "$out"

pass=$(sed -n 's/^# pass \([0-9][0-9]*\)$/\1/p' "$out" | tail -n 1)
fail=$(sed -n 's/^# fail \([0-9][0-9]*\)$/\1/p' "$out" | tail -n 1)
cancelled=$(sed -n 's/^# cancelled \([0-9][0-9]*\)$/\1/p' "$out" | tail -n 1)
if [ -z "$pass" ] || [ -z "$fail" ]; then
  echo "error: could not find the '# pass N' / '# fail N' summary in the node --test output (exit status $status)"
  summary "${pass:-0}" "$(( ${fail:-0} + 1 ))"
  exit 1
fi
fail=$(( fail + ${cancelled:-0} ))
if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then
  # A test file that crashed outside any test still makes node --test fail.
  echo "error: node --test exited with status $status"
  fail=1
fi
summary "$pass" "$fail"
[ "$fail" -eq 0 ] && [ "$status" -eq 0 ]
