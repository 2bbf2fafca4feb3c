#!/usr/bin/env bash
# `make install` into a temporary prefix (it installs what the C tarball of `make dist` holds),
# then the C example of docs/abi.md "Using it from C" built exactly as it says, with pkg-config, and run.
set -uo pipefail
cd "$(dirname "$0")/.."
pass=0; fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
finish() { echo "install: $pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }
command -v pkg-config >/dev/null || { echo "error: pkg-config not found (Debian package pkg-config)"; bad "pkg-config present"; finish; }
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
if make -s install PREFIX="$prefix" >/dev/null; then ok "make install PREFIX=$prefix"; else bad "make install"; finish; fi
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
for f in include/oh_hooks.h lib/liboh_hooks.so lib/liboh_hooks.so.0 "lib/liboh_hooks.so.$version" lib/liboh_hooks.a \
  lib/pkgconfig/oh_hooks.pc bin/oh-hooks share/doc/oh-hooks/LICENSE-MIT share/doc/oh-hooks/LICENSE-APACHE; do
  [ -e "$prefix/$f" ] && ok "installed $f" || bad "installed $f"
done
grep -q <<<"$(readelf -d "$prefix/lib/liboh_hooks.so.$version")" 'SONAME.*\[liboh_hooks.so.0\]' && ok "SONAME liboh_hooks.so.0" || bad "SONAME liboh_hooks.so.0"
grep -q <<<"$(readelf -S "$prefix/lib/liboh_hooks.so.$version")" '\.debug_info' && bad "the installed library is stripped" || ok "the installed library is stripped"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[ "$(pkg-config --modversion oh_hooks)" = "$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)" ] && ok "pkg-config --modversion matches Cargo.toml" || bad "pkg-config version"
# shellcheck disable=SC2046
if gcc -std=c11 -Wall -Wextra -Werror examples/c/hello.c -o "$prefix/hello" $(pkg-config --cflags --libs oh_hooks) -Wl,-rpath,"$prefix/lib"; then
  ok "examples/c/hello.c builds with pkg-config --cflags --libs oh_hooks"
  if out=$("$prefix/hello"); then ok "hello runs: $(echo "$out" | tail -1)"; else bad "hello runs: $out"; fi
else
  bad "examples/c/hello.c builds with pkg-config"
fi
# shellcheck disable=SC2046
if gcc -std=c11 -Wall -Wextra -Werror examples/c/hello.c -o "$prefix/hello-static" $(pkg-config --cflags oh_hooks) "$prefix/lib/liboh_hooks.a" $(pkg-config --libs-only-l --static oh_hooks | sed 's/-loh_hooks//'); then
  ok "hello links statically (liboh_hooks.a -lpthread -ldl -lm)"
  "$prefix/hello-static" >/dev/null && ok "static hello runs" || bad "static hello runs"
else
  bad "static link"
fi
if make -s uninstall PREFIX="$prefix" >/dev/null; then
  left=$(cd "$prefix" && find . \( -type f -o -type l \) ! -name 'hello*' | sort)
  [ -z "$left" ] && ok "make uninstall removes every installed file" || bad "make uninstall left: $left"
else
  bad "make uninstall"
fi
finish
