#!/usr/bin/env bash
# Every test suite, several at once (the lanes below). Each suite ends with its own `<suite>: N passed, N failed`
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

# The suites, in the order their logs and summary lines are printed.
suites=(rust rust-portable c-shared c-static c-valgrind c-asan dist install node go python)
declare -A cmd=(
  [rust]="tests/rust.sh" [rust-portable]="tests/rust.sh portable"
  [c-shared]="tests/c/run.sh shared" [c-static]="tests/c/run.sh static"
  [c-valgrind]="tests/c/run.sh valgrind" [c-asan]="tests/c/run.sh asan"
  [dist]="tests/dist.sh" [install]="tests/install.sh"
  [node]="bindings/node/test.sh" [go]="bindings/go/test.sh" [python]="bindings/python/test.sh"
)
# The suites run in three lanes at once (2 cores: most suites spend much of their time waiting
# for hooks, timeouts and links, so one after another left a core idle); a lane runs its suites
# one after another, and each suite's log is printed whole, in the order above, once it is
# complete. Why these lanes (docs/TESTING.md "How the suites share the machine"):
# - dist, install: dist builds its own LTO build for another target (target/<triple>/dist, which
#   `cargo build --release` does not touch), so it starts at once, beside the build; install
#   repackages what dist built. Not at a lower priority: at about 450 s of CPU, mostly one LTO
#   codegen after another, dist is the longest chain of the run, and niced it waited behind every
#   other compile and finished last by minutes.
# - rust, rust-portable: both build the crate into target/release/deps (with other features for
#   the second), so they must not overlap. Neither rewrites the library `build` put in
#   target/release, which the third lane tests (cargo copies a library up there only for
#   `cargo build`).
# - the C programs and the bindings: they only read the library `build` made.
# OH_TEST_SERIAL=1 runs every suite one after another in the order above, the build first, to
# reproduce a failure without the others' load.
early=("dist install")
lanes=("rust rust-portable" "c-shared c-static c-asan c-valgrind node go python")
if [ "${OH_TEST_SERIAL:-0}" = 1 ]; then
  early=()
  lanes=("${suites[*]}")
fi
run_lane() { # the suites of one lane, each into its own log
  local name
  for name in $1; do
    # shellcheck disable=SC2086 # the commands are words without spaces
    timed "$name" ${cmd[$name]} >"$logs/$name.log" 2>&1 </dev/null
    echo $? >"$logs/$name.status"
  done
}
# Background jobs of a script ignore SIGINT: an interrupted or terminated run stops every lane.
trap 'trap - INT TERM; kill -TERM 0 2>/dev/null; exit 130' INT TERM
pids=()
for lane in "${early[@]}"; do
  run_lane "$lane" &
  pids+=($!)
done

echo "== build: cargo build --release --locked"
if ! timed build cargo build --release --locked; then
  [ ${#pids[@]} = 0 ] || kill -TERM "${pids[@]}" 2>/dev/null
  echo "build: 0 passed, 1 failed"
  exit 1
fi
for lane in "${lanes[@]}"; do
  run_lane "$lane" &
  pids+=($!)
done
# Each suite's log in the order above, as soon as it is complete.
lanes_running() { local p; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
for name in "${suites[@]}"; do
  echo
  echo "================ $name: ${cmd[$name]}"
  while [ ! -f "$logs/$name.status" ] && lanes_running; do sleep 1; done
  [ -f "$logs/$name.status" ] || echo none >"$logs/$name.status"
  cat "$logs/$name.log" 2>/dev/null
done
wait

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
  read -r w c <"$logs/$name.time" 2>/dev/null || { w='?'; c=0; }
  echo "time: $name $w s wall, $c s CPU"
  cpu_total=$((cpu_total + c))
done
echo "time: total $((($(date +%s%N) - t_start) / 1000000000)) s wall, $cpu_total s CPU on $(nproc) cores; load average $start_load at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "all: $total_pass passed, $total_fail failed"
exit $failed
