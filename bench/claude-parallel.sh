#!/usr/bin/env bash
# Claude Code hooks run in parallel: one fire with N hooks that each sleep 100 ms should take
# about 100 ms, not N x 100 ms. Prints the median of ROUNDS fires through the CLI (process start
# included) for 1 hook and for N hooks. A figure, not a test: it fails only when something does
# not run. Usage: bench/claude-parallel.sh [N=5] [ROUNDS=9]
set -u
n=${1:-5}
rounds=${2:-9}
root=$(cd "$(dirname "$0")/.." && pwd)
cli="$root/target/release/oh-hooks"
[ -x "$cli" ] || (cd "$root" && cargo build --release --locked --quiet) || { echo "error: cargo build failed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project() { # dir hooks
    mkdir -p "$1/.claude"
    handlers=""
    for i in $(seq 1 "$2"); do
        handlers="$handlers${handlers:+,}{\"type\":\"command\",\"command\":\"sleep 0.1; echo hook $i >&2\"}"
    done
    printf '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[%s]}]}}\n' "$handlers" >"$1/.claude/settings.json"
}
median_ms() { # dir
    opts="{\"home\":\"$work/home\",\"trusted\":true}"
    env='{"event":"preToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}'
    times=()
    for _ in $(seq 1 "$rounds"); do
        start=$(date +%s%N)
        out=$("$cli" fire --claude --cwd "$1" --options "$opts" "$env") || { echo "error: fire failed: $out" >&2; exit 1; }
        end=$(date +%s%N)
        times+=($(((end - start) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1000 }'
}
mkdir -p "$work/home"
project "$work/one" 1
project "$work/many" "$n"
one=$(median_ms "$work/one")
many=$(median_ms "$work/many")
printf 'claude parallel merge (median of %s fires via the CLI): 1 hook of 100 ms: %s ms; %s hooks of 100 ms: %s ms (sequential would be %s ms)\n' \
    "$rounds" "$one" "$n" "$many" "$((n * 100))"
