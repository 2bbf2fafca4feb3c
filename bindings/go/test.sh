#!/usr/bin/env bash
# Go suite of oh-hooks: vets and tests the Go binding against the already-built engine
# (target/release/liboh_hooks.a and include/oh_hooks.h; run `cargo build --release` first).
# Last line: `go: N passed, N failed`. Exit status non-zero on any failure or missing tool.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$here" || exit 1

fail_setup() {
  echo "error: $1"
  echo "go: 0 passed, 1 failed"
  exit 1
}
command -v go >/dev/null 2>&1 || fail_setup "go not found in PATH (the Go toolchain is needed to test the Go binding)"
command -v gcc >/dev/null 2>&1 || fail_setup "gcc not found in PATH (cgo needs a C compiler to build the Go binding)"
[ -f "$root/target/release/liboh_hooks.a" ] || fail_setup "$root/target/release/liboh_hooks.a is missing: run 'cargo build --release' in $root first"
[ -f "$root/include/oh_hooks.h" ] || fail_setup "$root/include/oh_hooks.h is missing: run 'cargo build --release' in $root first"

export GOTOOLCHAIN=local
export CGO_ENABLED=1
export CC=gcc
# The go command does not notice a changed header in include/ (outside the module), so tie the cgo
# build to the engine's content: a rebuilt engine always means a recompiled and relinked binding.
build_id=$(cat "$root/include/oh_hooks.h" "$root/target/release/liboh_hooks.a" | sha256sum | cut -c1-16)
export CGO_CFLAGS="-g -O2 -DOH_HOOKS_BUILD_ID=$build_id"

echo "== $(go version), gcc $(gcc -dumpversion), engine build $build_id"
failed=0
passed=0

echo "== go vet ./..."
if go vet ./... 2>&1; then
  echo "go vet: ok"
else
  echo "go vet: FAILED"
  failed=$((failed + 1))
fi

echo "== go test -v -count=1 ./..."
vlog=$(mktemp)
rlog=$(mktemp)
trap 'rm -f "$vlog" "$rlog"' EXIT
go test -v -count=1 -timeout 10m ./... 2>&1 | tee "$vlog"
vstatus=${PIPESTATUS[0]}
p=$(grep -cE '^\s*--- PASS: ' "$vlog")
f=$(grep -cE '^\s*--- FAIL: ' "$vlog")
passed=$((passed + p))
failed=$((failed + f))
if [ "$vstatus" -ne 0 ] && [ "$f" -eq 0 ]; then
  echo "go test -v exited with status $vstatus without a failing test (build error or panic)"
  failed=$((failed + 1))
fi

echo "== go test -race -count=1 ./..."
go test -race -count=1 -timeout 10m ./... 2>&1 | tee "$rlog"
rstatus=${PIPESTATUS[0]}
# A test that fails only under the race detector counts as one more failure; one that failed in
# the -v run already is counted once.
race_only=$(comm -13 <(grep -E '^\s*--- FAIL: ' "$vlog" | awk '{print $3}' | sort -u) \
                     <(grep -E '^\s*--- FAIL: ' "$rlog" | awk '{print $3}' | sort -u) | grep -c .)
if [ "$rstatus" -ne 0 ]; then
  echo "go test -race: FAILED ($race_only tests or subtests failing only under -race)"
  if [ "$race_only" -gt 0 ]; then
    failed=$((failed + race_only))
    passed=$((passed >= race_only ? passed - race_only : 0))
  elif [ "$failed" -eq 0 ]; then
    failed=1 # the race run failed without a failing test of its own (build error, panic)
  fi
else
  echo "go test -race: ok"
fi

echo "go: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
