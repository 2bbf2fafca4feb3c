#!/usr/bin/env bash
# The Rust suite: unit tests, integration tests (tests/it/: one binary, a module per area; the few
# in tests/*.rs change process-wide state and keep their own), doc tests, release profile; then
# the process suites once more through the run-time fallbacks.
#
# `tests/rust.sh portable`: the library's unit tests and the suites that run hooks, built with
# the `portable` feature (the OS layer's POSIX-only paths that a macOS or BSD build uses,
# src/os/fallback.rs); it reports its own `rust-portable:` line.
set -uo pipefail
cd "$(dirname "$0")/.."
suite=rust
[ "${1:-}" = portable ] && suite=rust-portable
command -v cargo >/dev/null || { echo "error: cargo not found"; echo "$suite: 0 passed, 1 failed"; exit 1; }
command -v python3 >/dev/null || { echo "error: python3 not found (tools/test-pool.py runs the test executables)"; echo "$suite: 0 passed, 1 failed"; exit 1; }
log=$(mktemp)
checks_passed=0 checks_failed=0
if [ "$suite" = rust-portable ]; then
  # Only the binaries that start, wait for, signal and cancel hook processes: the rest of the
  # crate does not touch the OS layer, and each binary here is one more link of the crate.
  python3 tools/test-pool.py -- --release --locked --features portable --lib --test direct_exec --test hardening_process \
    --test persistent --test fallbacks --test lifecycle --test emfile --test emfile_fd0 --test hardening_host 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
else
  # `cargo test`, with the test executables run side by side (tools/test-pool.py: most of their
  # time is waiting for hooks), then the doc tests.
  python3 tools/test-pool.py -- --release --locked 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  cargo test --release --locked --doc 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  # The hook suites again through the fallbacks for systems older than the calls the engine
  # prefers (src/os/fallback.rs): fork + chdir + exec, no pidfd, no eventfd.
  echo "== the process suites with OH_HOOKS_FORCE_FALLBACK=all"
  python3 tools/test-pool.py --env OH_HOOKS_FORCE_FALLBACK=all -- --release --locked --test direct_exec \
    --test hardening_process --test persistent --test fallbacks 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  # Two checks of the source, one test each: the import graph of src/ (no cycle, no import from a
  # lower layer to a higher one, no dialect importing another: tools/layers.py, docs/layout.md)
  # and rustfmt (a missing rustfmt is a failure, not a skip).
  echo "== tools/layers.py"
  if python3 tools/layers.py; then checks_passed=$((checks_passed + 1)); else checks_failed=$((checks_failed + 1)); status=1; fi
  echo "== cargo fmt --check"
  if ! cargo fmt --version >/dev/null 2>&1; then
    echo "error: rustfmt not found (rustup component add rustfmt); cargo fmt --check cannot run"
    checks_failed=$((checks_failed + 1)); status=1
  elif cargo fmt --check; then checks_passed=$((checks_passed + 1)); else
    echo "error: cargo fmt --check: the files above are not rustfmt-clean (run cargo fmt)"
    checks_failed=$((checks_failed + 1)); status=1
  fi
fi
read -r passed failed < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed;?/) p += $i; if ($(i+1) ~ /^failed;?/) f += $i } } END { print p + 0, f + 0 }' "$log")
rm -f "$log"
passed=$(( ${passed:-0} + checks_passed )) failed=$(( ${failed:-0} + checks_failed ))
[ "$status" = 0 ] || [ "${failed:-0}" != 0 ] || failed=1
echo "$suite: ${passed:-0} passed, ${failed:-0} failed"
[ "$status" = 0 ]
