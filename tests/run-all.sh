#!/usr/bin/env bash
# Every test suite, one after another. Each suite ends with its own `<suite>: N passed, N failed`
# line; this script repeats them at the end and fails if any suite failed, could not run, or
# did not report. A missing toolchain is a failure, never a skip.
set -uo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# Debian packages the suites use. Installed from the package registry when missing and we may.
need_pkgs=()
command -v pkg-config >/dev/null || need_pkgs+=(pkg-config)
command -v valgrind >/dev/null || need_pkgs+=(valgrind)
command -v openssl >/dev/null || need_pkgs+=(openssl)   # the https test's certificate and server
command -v unzip >/dev/null || need_pkgs+=(unzip)       # the dist suite unpacks the Go module zip
command -v script >/dev/null || need_pkgs+=(bsdutils)   # the CLI test gives fire a terminal
if [ ${#need_pkgs[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing ${need_pkgs[*]} (Debian packages)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

for tool in cargo gcc; do
  if ! command -v "$tool" >/dev/null; then
    echo "error: $tool not found; it is needed to build oh-hooks"
    echo "build: 0 passed, 1 failed"
    exit 1
  fi
done

# timed NAME COMMAND...: runs COMMAND in a subshell and writes NAME's wall time and CPU time
# (user+sys of the subshell and every descendant it waited for, from bash's `times`) to
# $logs/NAME.time as "<wall> <cpu>" in seconds. CPU time is the figure that does not depend on how
# busy the machine is; the wall time does.
timed() {
  local name=$1 t0 t1 status
  shift
  t0=$(date +%s%N)
  ( "$@"; status=$?; times >"$logs/$name.times"; exit $status )
  status=$?
  t1=$(date +%s%N)
  awk -v w=$(((t1 - t0) / 1000000)) '{ for (i = 1; i <= NF; i++) { split($i, a, /[ms]/); c += a[1] * 60 + a[2] } }
    END { printf "%.0f %.0f\n", w / 1000, c }' "$logs/$name.times" >"$logs/$name.time"
  return $status
}
start_load=$(cut -d' ' -f1-3 /proc/loadavg)
t_start=$(date +%s%N)

echo "== build: cargo build --release --locked"
if ! timed build cargo build --release --locked; then
  echo "build: 0 passed, 1 failed"
  exit 1
fi

suites=()
run_suite() { # name command...
  local name=$1; shift
  suites+=("$name")
  echo
  echo "================ $name: $*"
  timed "$name" "$@" 2>&1 | tee "$logs/$name.log"
  local status=${PIPESTATUS[0]}
  echo "$status" > "$logs/$name.status"
}

run_suite rust tests/rust.sh
run_suite rust-portable tests/rust.sh portable
run_suite c-shared tests/c/run.sh shared
run_suite c-static tests/c/run.sh static
run_suite c-valgrind tests/c/run.sh valgrind
run_suite c-asan tests/c/run.sh asan
run_suite dist tests/dist.sh
run_suite install tests/install.sh
run_suite node bindings/node/test.sh
run_suite go bindings/go/test.sh
run_suite python bindings/python/test.sh

echo
echo "================ summary"
failed=0
for name in "${suites[@]}"; do
  status=$(cat "$logs/$name.status")
  line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$logs/$name.log" | tail -1)
  if [ -z "$line" ]; then
    line="$name: 0 passed, 1 failed"
    echo "$line   (the suite did not report; exit status $status)"
    failed=1
  else
    echo "$line$([ "$status" != 0 ] && echo "   (exit status $status)")"
  fi
  [ "$status" = 0 ] || failed=1
done
total_pass=0; total_fail=0
for name in "${suites[@]}"; do
  read -r p f < <(grep -E "^$name: [0-9]+ passed, [0-9]+ failed" "$logs/$name.log" | tail -1 | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/')
  total_pass=$((total_pass + ${p:-0})); total_fail=$((total_fail + ${f:-1}))
done
# Where the time went: wall and CPU seconds per step (not a result: CI reads the lines above).
cpu_total=0
for name in build "${suites[@]}"; do
  read -r w c <"$logs/$name.time"
  echo "time: $name $w s wall, $c s CPU"
  cpu_total=$((cpu_total + c))
done
echo "time: total $((($(date +%s%N) - t_start) / 1000000000)) s wall, $cpu_total s CPU on $(nproc) cores; load average $start_load at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "all: $total_pass passed, $total_fail failed"
exit $failed
