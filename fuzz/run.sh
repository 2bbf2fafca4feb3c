#!/usr/bin/env bash
# Runs every fuzz target one after another (the machine has 2 cores: one fuzzer at a time),
# each for SECONDS (default 600), after seeding the corpora. Logs go to fuzz/logs/<target>.log
# (ignored by git with the corpora and artifacts); the last line of each run is libFuzzer's
# "Done N runs" and the final stats line gives the corpus size.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
command -v cargo-fuzz >/dev/null || { echo "error: cargo-fuzz not found (cargo install cargo-fuzz)"; exit 1; }
rustup run nightly rustc --version >/dev/null 2>&1 || { echo "error: a nightly toolchain is needed (rustup toolchain install nightly)"; exit 1; }
./seed.sh
mkdir -p logs
status=0
for target in envelope config response answer_openharness answer_claude; do
  echo "== $target: $seconds s"
  if ! cargo +nightly fuzz run "$target" -O -- -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
      > "logs/$target.log" 2>&1; then
    echo "$target: FAILED (crash, timeout or OOM; see logs/$target.log and artifacts/$target/)"
    status=1
  fi
  grep -E '^#[0-9]+[[:space:]]+DONE' "logs/$target.log" | tail -1 || true
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "logs/$target.log" || true
  echo "corpus: $(ls "corpus/$target" | wc -l) files"
done
exit $status
