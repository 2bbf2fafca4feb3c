#!/usr/bin/env bash
# C test suite of oh-hooks: builds every tests/c/test_*.c against the already-built
# target/release library and runs it.
#
#   tests/c/run.sh shared|static|valgrind|asan
#
#   shared    linked with -loh_hooks (rpath to target/release)
#   static    linked with target/release/liboh_hooks.a -lpthread -ldl -lm
#   valgrind  the shared build, each program run under valgrind (definite leaks and memory errors fail)
#   asan      a separate build with -fsanitize=address,undefined, linked with the static library
#
# Binaries go to target/ctest/<mode>/. Each program prints `<program>: N passed, N failed` last;
# this script sums them and prints `c-<mode>: N passed, N failed` as its last line. It exits
# non-zero on any failed check, on any program that crashed, hung or printed no summary, and on
# anything valgrind or the sanitizers flagged. Set OHT_KEEP=1 to keep the tests' temp dirs.
# OHT_LIB_DIR=<dir> tests another build of the library instead of target/release, e.g. the one
# `make dist` ships (dist/c/oh-hooks-<version>-linux-<arch>/lib, built against glibc 2.17).
set -u

mode=${1:-}
case "$mode" in
shared | static | valgrind | asan) ;;
*)
    echo "usage: $0 shared|static|valgrind|asan" >&2
    echo "error: unknown mode '${mode}'"
    exit 2
    ;;
esac
suite="c-$mode"

case "$0" in */*) here=${0%/*} ;; *) here=. ;; esac
here=$(cd "$here" && pwd)
root=$(cd "$here/../.." && pwd)
rel="${OHT_LIB_DIR:-$root/target/release}"
case $rel in /*) ;; *) rel=$PWD/$rel ;; esac # the rpath must be absolute
out="$root/target/ctest/$mode${OHT_LIB_DIR:+-libdir}"

fail_setup() {
    echo "error: $*"
    echo "$suite: 0 passed, 1 failed"
    exit 1
}

command -v gcc >/dev/null 2>&1 || fail_setup "gcc not found: the C tests need gcc (apt-get install gcc)"
if [ "$mode" = valgrind ]; then
    command -v valgrind >/dev/null 2>&1 || fail_setup "valgrind not found: mode valgrind needs it (apt-get install valgrind)"
fi
command -v timeout >/dev/null 2>&1 || fail_setup "timeout (coreutils) not found"
[ -f "$root/include/oh_hooks.h" ] || fail_setup "include/oh_hooks.h missing: run 'cargo build --release' in $root first"
case "$mode" in
shared | valgrind) [ -f "$rel/liboh_hooks.so" ] || fail_setup "$rel/liboh_hooks.so missing: run 'cargo build --release' first" ;;
*) [ -f "$rel/liboh_hooks.a" ] || fail_setup "$rel/liboh_hooks.a missing: run 'cargo build --release' first" ;;
esac

# The version the library must report: [package] version in Cargo.toml.
version=$(awk '/^\[package\]/{p=1;next} /^\[/{p=0} p && /^version *=/{gsub(/.*= *"|".*/,""); print; exit}' "$root/Cargo.toml")
[ -n "$version" ] || fail_setup "cannot read the package version from $root/Cargo.toml"

mkdir -p "$out"
cflags=(-std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -g -I"$root/include" -I"$here" "-DOHT_EXPECTED_VERSION=\"$version\"")
case "$mode" in
shared | valgrind) link=(-L"$rel" -loh_hooks -Wl,-rpath,"$rel" -lpthread) ;;
static) link=("$rel/liboh_hooks.a" -lpthread -ldl -lm) ;;
asan)
    cflags+=(-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    link=("$rel/liboh_hooks.a" -lpthread -ldl -lm)
    ;;
esac

programs=()
for src in "$here"/test_*.c; do
    name=$(basename "$src" .c)
    if ! gcc "${cflags[@]}" "$src" -o "$out/$name" "${link[@]}"; then
        echo "error: $name does not compile"
        echo "$suite: 0 passed, 1 failed"
        exit 1
    fi
    programs+=("$name")
done

# How each program is run, and how long it may take.
runner=()
limit=180
case "$mode" in
valgrind)
    runner=(valgrind --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite
        --error-exitcode=99 --trace-children=no --child-silent-after-fork=yes --quiet)
    limit=240
    # valgrind slows the engine down ~20x: widen the timing allowances (not the contract's bounds
    # themselves: those are still checked exactly in the other modes).
    export OHT_SLACK_MS=2000
    # tells test_fire that spawn errors look like plain exits under valgrind (see there)
    export OHT_VALGRIND=1
    ;;
asan)
    # LeakSanitizer runs at exit and needs ptrace-like access to stop the process's threads; it
    # works in this environment, so leaks are checked. (Where it does not — e.g. a container
    # without ptrace — it aborts with "LeakSanitizer has encountered a fatal error"; then run with
    # ASAN_OPTIONS=detect_leaks=0 and rely on the valgrind mode for leaks.)
    export ASAN_OPTIONS="${OHT_ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1:exitcode=98}"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    export OHT_SLACK_MS=300
    ;;
esac

total_pass=0
total_fail=0
bad=()
for name in "${programs[@]}"; do
    args=()
    [ "$name" = test_vectors ] && args=("$root/tests/vectors")
    log="$out/$name.log"
    echo "== $name"
    timeout -k 10 "$limit" "${runner[@]}" "$out/$name" "${args[@]}" >"$log" 2>&1
    rc=$?
    cat "$log"
    summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -n 1)
    if [ -z "$summary" ]; then
        echo "error: $name printed no summary (exit status $rc): it crashed or hung"
        total_fail=$((total_fail + 1))
        bad+=("$name")
        continue
    fi
    p=$(echo "$summary" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1/')
    f=$(echo "$summary" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\2/')
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    flagged=""
    case "$rc" in
    0) ;;
    1) [ "$f" -gt 0 ] || flagged="exit status 1 without a failed check" ;;
    99) flagged="valgrind reported errors or definite leaks" ;;
    124 | 137) flagged="timed out after ${limit}s" ;;
    *) flagged="exit status $rc" ;;
    esac
    if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|LeakSanitizer has encountered" "$log"; then
        flagged="${flagged:+$flagged; }sanitizer report"
    fi
    if [ -n "$flagged" ]; then
        echo "error: $name: $flagged"
        total_fail=$((total_fail + 1))
        bad+=("$name")
    elif [ "$f" -gt 0 ]; then
        bad+=("$name")
    fi
done

[ ${#bad[@]} -eq 0 ] || echo "failing programs: ${bad[*]}"
echo "$suite: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ ${#bad[@]} -eq 0 ]
