#!/usr/bin/env bash
# oh-hooks performance bench (`make bench`): builds what it needs, runs the C bench and the
# binding benches, prints the machine and the table. Figures, not a test: it exits non-zero only
# when something does not run (a build fails, a toolchain is missing, a hook or spawn fails),
# never because a number is slow. See bench/README.md.
#
# Environment:
#   BENCH_ROUNDS=N          rounds of the C bench (default 100)
#   BENCH_BIND_ROUNDS=N     outer rounds of the binding benches (default 6)
#   BENCH_BIND_SAMPLES=N    samples per row and outer round in each binding process (default 8)
#   BENCH_LINK=shared|static   how bench.c links the engine (default shared)
#   BENCH_ONLY="id ..."     only the C rows whose id starts with one of these (for investigation)
#   BENCH_SKIP_BINDINGS=1   C rows only (the binding rows then show as not run, and it exits 1)
#   BENCH_BEFORE=DIR        also count instructions ([0]) with DIR's target/release (another
#                           checkout's build, e.g. main's), side by side
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
rel="$root/target/release"
out="$root/target/bench"
rounds=${BENCH_ROUNDS:-100}
bind_rounds=${BENCH_BIND_ROUNDS:-6}
bind_samples=${BENCH_BIND_SAMPLES:-8}
link_mode=${BENCH_LINK:-shared}

errors=0
err() {
    echo "error: $*" >&2
    errors=$((errors + 1))
}
fatal() {
    echo "error: $*" >&2
    exit 1
}

command -v gcc >/dev/null 2>&1 || fatal "gcc not found: the C bench needs gcc"
command -v cargo >/dev/null 2>&1 || fatal "cargo not found: the engine is built with cargo"

# The engine. `make bench` has just built it (target `lib`); run directly, this is the same step.
(cd "$root" && cargo build --release --locked --quiet) || fatal "cargo build --release failed"
[ -f "$rel/liboh_hooks.so" ] && [ -f "$rel/liboh_hooks.a" ] && [ -f "$root/include/oh_hooks.h" ] ||
    fatal "target/release/liboh_hooks.{so,a} or include/oh_hooks.h missing after cargo build"

mkdir -p "$out"
rm -f "$out"/*.samples

# The C bench, -O2.
case "$link_mode" in
shared) link=(-L"$rel" -loh_hooks -Wl,-rpath,"$rel") ;;
static) link=("$rel/liboh_hooks.a" -ldl) ;;
*) fatal "BENCH_LINK must be shared or static, not '$link_mode'" ;;
esac
gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -I"$root/include" "$here/bench.c" -o "$out/bench" \
    "${link[@]}" -lpthread -lm || fatal "bench/bench.c does not compile"
"$out/bench" envelope >"$out/envelope.json" || fatal "the bench program does not run"

# The bindings, each built as its own README says.
have_node=0 have_go=0 have_py=0 pyfloor= nodefloor=
if command -v node >/dev/null 2>&1; then
    addon="$root/bindings/node/build/oh_hooks.node"
    if [ ! -f "$addon" ] || [ "$rel/liboh_hooks.so" -nt "$addon" ] || [ "$root/bindings/node/src/addon.c" -nt "$addon" ] ||
        [ "$root/include/oh_hooks.h" -nt "$addon" ]; then
        (cd "$root/bindings/node" && node build.js >/dev/null) || err "the Node addon does not build (bindings/node: node build.js)"
    fi
    [ -f "$addon" ] && have_node=1
    # The floor of `await fire` (bench/node/floor.c): a C thread resolving a promise through a
    # threadsafe function.
    nodefloor="$out/nodefloor.node"
    napi_inc=${NODE_API_INCLUDE_DIR:-/usr/include/node}
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC -I"$napi_inc" "$here/node/floor.c" -o "$nodefloor" -lpthread ||
        { err "bench/node/floor.c does not compile (node_api.h in $napi_inc? set NODE_API_INCLUDE_DIR)"; nodefloor=; }
else
    err "node not found: the Node rows need node (>= 18)"
fi
if command -v go >/dev/null 2>&1; then
    build_id=$(cat "$root/include/oh_hooks.h" "$rel/liboh_hooks.a" | sha256sum | cut -c1-16)
    if (cd "$here/go" && GOTOOLCHAIN=local CGO_ENABLED=1 CC=gcc GOFLAGS=-mod=mod \
        CGO_CFLAGS="-O2 -DOH_HOOKS_BUILD_ID=$build_id" go build -o "$out/gobench" .); then
        have_go=1
    else
        err "the Go bench does not build (bench/go against bindings/go)"
    fi
else
    err "go not found: the Go rows need the Go toolchain (>= 1.22) with cgo"
fi
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import oh_hooks; oh_hooks.version()' \
        "$root/bindings/python" 2>/dev/null; then
        have_py=1
        # The floors of `await fire_async` (bench/python/floor.c): a C thread waking the loop.
        pyfloor="$out/pyfloor.so"
        gcc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC "$here/python/floor.c" -o "$pyfloor" -lpthread ||
            { err "bench/python/floor.c does not compile"; pyfloor=; }
    else
        err "the Python binding does not load (bindings/python)"
    fi
else
    err "python3 not found: the Python rows need Python >= 3.9"
fi
[ "${BENCH_SKIP_BINDINGS:-0}" = 1 ] && have_node=0 have_go=0 have_py=0

# The machine.
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mhz=$(sed -n 's/^cpu MHz[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "oh-hooks bench"
echo "  machine: nproc $(nproc), ${cpu:-unknown CPU}${mhz:+ (${mhz%%.*} MHz)}, $(uname -sr), $(uname -m)"
echo "  load average at start: $(cut -d' ' -f1-3 /proc/loadavg)   (other processes share these cores)"
echo "  engine: oh-hooks $(sed -n 's/^#define OH_HOOKS_VERSION "\(.*\)"/\1/p' "$root/include/oh_hooks.h"), git $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')$(cd "$root" && [ -n "$(git status --porcelain -- src Cargo.toml build.rs 2>/dev/null)" ] && echo ' + uncommitted changes in src/'), cargo --release"
echo "  C bench: gcc $(gcc -dumpversion) -O2, linked $link_mode ($( [ "$link_mode" = shared ] && echo target/release/liboh_hooks.so || echo target/release/liboh_hooks.a))"
echo "  /bin/sh is $(readlink -f /bin/sh); PATH has $(echo "$PATH" | tr ':' '\n' | grep -c .) entries; environment: $(env | wc -l) variables"
[ "$have_node" = 1 ] && echo "  node $(node --version)"
[ "$have_go" = 1 ] && echo "  $(go version | cut -d' ' -f3-)"
[ "$have_py" = 1 ] && echo "  $(python3 --version 2>&1)"
echo

start_s=$SECONDS
# 0. Instructions per no-match fire, counted by callgrind (bench/count.c): the same whatever
#    else the machine does, so a regression of the fire path shows as a number.
count_row() { # LIBDIR INCDIR ROW [FIRES] -> instructions per fire (FIRES fires + frees, default 1000)
    local bin="$out/count.$(echo "$1" | sha256sum | cut -c1-8)" fires=${4:-1000}
    [ -x "$bin" ] || gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$2" "$here/count.c" -o "$bin" -L"$1" -loh_hooks \
        -Wl,-rpath,"$1" || return 1
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=/dev/null "$bin" "$3" "$fires" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | awk -v n="$fires" '{ printf "%d", $1 / n }'
}
if command -v valgrind >/dev/null 2>&1 && [ -f /usr/include/valgrind/callgrind.h ]; then
    rm -f "$out"/count.*
    echo "[0] Instructions per no-match fire (callgrind, oh_hooks_fire + oh_hooks_string_free of the 278-byte envelope)"
    printf '    %-58s %12s %8s   %s\n' row instructions target "${BENCH_BEFORE:+before ($BENCH_BEFORE)}"
    for row in "none|no hook for the event|1500" "20|20 hooks on the event, none match (7/7/6)|2500" \
        "claude|Claude Code on too, its hooks on other events|2500" \
        "six|all six dialects on, their hooks on other events|2500"; do
        IFS='|' read -r id label target <<<"$row"
        n=$(count_row "$rel" "$root/include" "$id") || { err "bench/count.c ($id) did not run"; continue; }
        before=""
        [ -n "${BENCH_BEFORE:-}" ] && before=$(count_row "$BENCH_BEFORE/target/release" "$BENCH_BEFORE/include" "$id")
        verdict=meets
        [ "$n" -le "$target" ] || verdict=MISSES
        printf '    %-58s %12s %8s   %s\n' "$label" "$n" "<= $target: $verdict" "$before"
        [ "$id" = none ] && n_none=$n
    done
    # [3b]'s callback hooks (a C function answering at once, on the firing thread): the whole
    # fire, the host function and oh_hooks_respond included, and what it adds to the no-match fire.
    for row in "cb|callback hook answering {} (no match)" "cbmatch|callback hook, \`match: Bash\`, answering {}" \
        "cbreason|callback hook, \`match: Bash\`, reason+context"; do
        IFS='|' read -r id label <<<"$row"
        n=$(count_row "$rel" "$root/include" "$id") || { err "bench/count.c ($id) did not run"; continue; }
        before=""
        [ -n "${BENCH_BEFORE:-}" ] && before=$(count_row "$BENCH_BEFORE/target/release" "$BENCH_BEFORE/include" "$id")
        printf '    %-58s %12s %8s   %s\n' "$label" "$n" "${n_none:++$((n - n_none))}" "$before"
    done
    # The CLI's whole process (loader, start-up, config layers, the fire), beside /bin/true:
    # what a shell harness pays per tool call, counted without the load's noise. It runs in
    # bench.c's CLI project (a postToolUse hook only), created here the same way.
    cli_dir="$out/cli-project"
    mkdir -p "$cli_dir/.oh" && printf 'hooks:\n  postToolUse:\n    - command: "true"\n' >"$cli_dir/.oh/config.yaml"
    cli_count() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
            sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
    }
    n_true=$(cli_count /bin/true fire --cwd "$cli_dir" --trusted "$(cat "$out/envelope.json")")
    n_cli=$(cli_count "$rel/oh-hooks" fire --cwd "$cli_dir" --trusted "$(cat "$out/envelope.json")")
    if [ -n "$n_true" ] && [ -n "$n_cli" ]; then
        printf '    %-58s %12s %8s\n' "oh-hooks fire, no hook matches (whole process)" "$n_cli" \
            "$(awk -v a="$n_cli" -v b="$n_true" 'BEGIN { printf "%.2fx /bin/true (%d)", a / b, b }')"
    else
        err "callgrind could not count \`oh-hooks fire\` or /bin/true"
    fi
    # A Codex fire beside a Claude Code fire of the same hook (`true` on preToolUse, matcher
    # Bash): the engine's own instructions per fire (this process; the hook's process is not
    # counted), and the hook's own cost, which differs by the shell: Codex runs every command
    # in the user's shell (`$SHELL -c true`), Claude Code runs plain words directly.
    echo "[0c] One \`true\` hook as a Claude Code hook, as a Codex hook, and one of each of the six dialects in one fire, instructions per fire (200 fires)"
    printf '    %-58s %12s\n' row instructions
    for row in "claude1|Claude Code: .claude/settings.json, PreToolUse Bash, \`true\`" \
        "codex1|Codex: .codex/hooks.json, PreToolUse Bash, \`true\` (\$SHELL -c)" \
        "six1|all six dialects, one \`true\` hook each on preToolUse (the six-dialect fire)"; do
        IFS='|' read -r id label <<<"$row"
        n=$(count_row "$rel" "$root/include" "$id" 200) || { err "bench/count.c ($id) did not run"; continue; }
        printf '    %-58s %12s\n' "$label" "$n"
    done
    n_direct=$(cli_count /usr/bin/true)
    n_shell=$(cli_count "${SHELL:-/bin/sh}" -c true)
    [ -n "$n_direct" ] && [ -n "$n_shell" ] &&
        printf '    %-58s %12s\n' "the hook's own process: \`true\` run directly" "$n_direct" \
            "the hook's own process: \`${SHELL:-/bin/sh} -c true\`" "$n_shell"
    echo
    # The glibc 2.17 build that `make dist` ships beside the everyday build: the same rows,
    # counted the same way (docs/packaging.md: within 5 %). Only when dist/ has been built.
    dist_lib=$(ls -d "$root"/dist/c/oh-hooks-*/lib 2>/dev/null | head -1)
    if [ -n "$dist_lib" ]; then
        echo "[0b] The shipped glibc 2.17 build (${dist_lib#"$root"/}) beside the everyday build, instructions per fire"
        printf '    %-58s %12s %12s\n' row everyday "2.17 (dist)"
        for row in "none|no hook for the event|1000" "true1|one env-mode \`true\` hook (this process only)|200"; do
            IFS='|' read -r id label fires <<<"$row"
            a=$(count_row "$rel" "$root/include" "$id" "$fires") || { err "bench/count.c ($id) did not run"; continue; }
            b=$(count_row "$dist_lib" "${dist_lib%/lib}/include" "$id" "$fires") ||
                { err "bench/count.c ($id) against $dist_lib did not run"; continue; }
            printf '    %-58s %12s %12s   %s\n' "$label" "$a" "$b" \
                "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "2.17 build %+.1f%%", (b - a) * 100 / a }')"
        done
    else
        echo "[0b] the glibc 2.17 build: not measured (run \`make dist\` first)"
    fi
    # The same `true` preToolUse hook written for each dialect (bench/dialect.c): what the
    # engine does around a hook of each (view, selection, reader, spawn), this process only.
    dbin="$out/dialect"
    if gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$root/include" "$here/dialect.c" -o "$dbin" -L"$rel" -loh_hooks \
        -Wl,-rpath,"$rel"; then
        echo "[0d] One \`true\` preToolUse hook per dialect, instructions per fire in this process (the hook's own not counted)"
        for id in claude copilot copilot-pascal; do
            n=$(valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=/dev/null "$dbin" "$id" 50 2>&1 |
                sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
            [ -n "$n" ] && printf '    %-58s %12s\n' "$id" "$((n / 50))" || err "bench/dialect.c ($id) did not run"
        done
    else
        err "bench/dialect.c does not build"
    fi
    echo
else
    echo "[0] instruction counts: skipped (valgrind with callgrind.h not installed)"
    echo
fi
# 1. The C rows, interleaved (progress on stderr).
BENCH_CLI="$rel/oh-hooks" BENCH_DIR="$here" "$out/bench" run -o "$out/c.samples" -r "$rounds" || err "the C bench failed"

# 2. The binding rows: outer rounds, each running the C reference and every binding process in
#    turn (rotating the order), so that slow phases of the machine hit all of them.
procs=(cref)
[ "$have_node" = 1 ] && procs+=(node)
[ "$have_go" = 1 ] && procs+=(go)
[ "$have_py" = 1 ] && procs+=(python)
bind_file="$out/bind.samples"
if [ "${#procs[@]}" -gt 1 ]; then
    for ((r = 0; r < bind_rounds; r++)); do
        printf '\r  binding benches: round %d/%d' "$((r + 1))" "$bind_rounds" >&2
        n=${#procs[@]}
        for ((k = 0; k < n; k++)); do
            p=${procs[$(((k + r) % n))]}
            case "$p" in
            cref) "$out/bench" cref -o "$out/cref.$r.samples" -n "$bind_samples" || err "the C reference run failed" ;;
            node) BENCH_NODEFLOOR="$nodefloor" node "$here/node/bench.js" "$out/envelope.json" "$bind_samples" "$bind_file" || err "the Node bench failed" ;;
            go) "$out/gobench" "$out/envelope.json" "$bind_samples" "$bind_file" || err "the Go bench failed" ;;
            python) BENCH_PYFLOOR="$pyfloor" python3 "$here/python/bench.py" "$out/envelope.json" "$bind_samples" "$bind_file" || err "the Python bench failed" ;;
            esac
        done
    done
    echo >&2
fi

# 3. The table.
"$out/bench" report "$out/c.samples" "$out"/cref.*.samples "$bind_file" || errors=$((errors + 1))
echo

# 4. Live reload's change check (bench/watch.c).
if gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$root/include" "$here/watch.c" -o "$out/watch" "${link[@]}" -lpthread -lm; then
    "$out/watch" 200 || err "the reload-check bench failed"
else
    err "bench/watch.c does not compile"
fi
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); bench time $((SECONDS - start_s)) s"
if [ "$errors" -gt 0 ]; then
    echo "error: $errors problem(s) above: some rows did not run"
    exit 1
fi
echo "raw samples: target/bench/*.samples (one '<row> <ns>' line per sample)"
