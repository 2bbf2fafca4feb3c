#!/usr/bin/env bash
# Python suite: runs the unittest tests of the binding (tests/*.py, including every shared
# vector in tests/vectors/) against the already-built library, and prints as its last line
#   python: N passed, N failed
# Exits non-zero when anything failed, or when python3 or the library is missing.
# The library is found as the binding finds it: $OH_HOOKS_LIB, oh_hooks/, ../../target/release.
set -u
case $0 in */*) cd "${0%/*}" || exit 1 ;; esac

summary() { echo "python: $1 passed, $2 failed"; }

if ! command -v python3 >/dev/null 2>&1; then
    echo "error: python3 not found on PATH (the Python suite needs Python >= 3.9)" >&2
    summary 0 1
    exit 1
fi
if ! python3 -c 'import sys, ctypes; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; then
    echo "error: $(python3 --version 2>&1) is too old or lacks ctypes (need Python >= 3.9)" >&2
    summary 0 1
    exit 1
fi
if [ -n "${OH_HOOKS_LIB:-}" ] && [ ! -f "$OH_HOOKS_LIB" ]; then
    echo "error: OH_HOOKS_LIB=$OH_HOOKS_LIB is not a file" >&2
    summary 0 1
    exit 1
fi
if [ -z "${OH_HOOKS_LIB:-}" ] && [ ! -f oh_hooks/liboh_hooks.so ] && [ ! -f ../../target/release/liboh_hooks.so ]; then
    echo "error: liboh_hooks.so not found in oh_hooks/ or ../../target/release: run 'cargo build --release' first, or set OH_HOOKS_LIB" >&2
    summary 0 1
    exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
runner=()
command -v timeout >/dev/null 2>&1 && runner=(timeout 900)

# -X faulthandler: a crash inside the library prints the Python stack instead of dying mute.
"${runner[@]}" python3 -X faulthandler -m unittest discover -v -s tests -p 'test_*.py' 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

ran=$(sed -n 's/^Ran \([0-9][0-9]*\) tests\{0,1\} in .*/\1/p' "$log" | tail -n 1)
if [ -z "$ran" ]; then
    # No summary: the interpreter crashed or was killed mid-run.
    passed=$(grep -c '\.\.\. ok$' "$log")
    echo "error: the unittest run did not finish (exit status $status)" >&2
    summary "$passed" 1
    exit 1
fi
result_line=$(grep -E '^(OK|FAILED)( \(.*\))?$' "$log" | tail -n 1)
count() { echo "$result_line" | sed -n "s/.*$1=\([0-9][0-9]*\).*/\1/p"; }
failures=$(count failures); errors=$(count errors); skipped=$(count skipped)
unexpected=$(count 'unexpected successes')
failures=${failures:-0}; errors=${errors:-0}; skipped=${skipped:-0}; unexpected=${unexpected:-0}

# A skipped test did not pass; count it as failed rather than hide it.
failed=$((failures + errors + skipped + unexpected))
passed=$((ran - failed))
echo "ran $ran: $failures failures, $errors errors, $skipped skipped, $unexpected unexpected successes"
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1   # unittest failed without counting it (e.g. an import error): never report green
fi
summary "$passed" "$failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
