#!/usr/bin/env bash
# `make dist`: builds this machine's platform packages into dist/ from the cargo profile `dist`
# (LTO: one build for the shared library and the CLI, one for the static library), shipping
# stripped binaries and keeping their debug info in dist/debug/.
#
#   packaging/dist.sh [c|python|npm|go|all]...      (default: all)
#   packaging/dist.sh pack                           no build: the npm tarball and the Go module
#                                                    again from every platform's files in dist/
#
# dist/oh-hooks-<version>-<os>-<arch>.tar.gz        C: include/, lib/ (.so.<version> + symlinks, .a,
#                                                   pkgconfig/oh_hooks.pc), bin/oh-hooks, licences
# dist/c/oh-hooks-<version>-<os>-<arch>/            the same, unpacked (what `make install` copies)
# dist/python/oh_hooks-<version>-py3-none-<tag>.whl the platform wheel; <tag> from the glibc symbols
# dist/python/oh_hooks-<version>.tar.gz             the sdist (builds the library with cargo)
# dist/npm/oh-hooks-<version>.tgz                   every prebuild in dist/npm/prebuilds/
# dist/npm/prebuilds/<platform>-<arch>/oh_hooks.node  this platform's addon, engine linked in
# dist/go/ohhooks/                                  the Go module; lib/<goos>-<goarch>/liboh_hooks.a
# dist/go/github.com/oh-hooks/ohhooks@v<version>.zip  the module zip (and a GOPROXY layout in proxy/)
# dist/debug/<platform>/*.debug                     split-off debug info (not shipped)
# dist/SHA256SUMS                                   the checksums of the artifacts above
#
# Adding a platform is building on it: run `make dist` there with the other platforms' dist/
# copied in; npm/prebuilds/* and go/ohhooks/lib/* of every platform present are packed together.
# Tools: cargo, gcc, binutils, python3 (venv), node + npm, go. Python build tools come from PyPI
# into target/dist-tools/venv.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
major=${version%%.*}
out=$root/dist
stage=$root/target/dist-stage
export GOTOOLCHAIN=local

die() { echo "dist: error: $*" >&2; exit 1; }

os=$(uname -s | tr '[:upper:]' '[:lower:]')
arch=$(uname -m)
case $arch in
  x86_64) go_arch=amd64; node_arch=x64 ;;
  aarch64 | arm64) arch=aarch64; go_arch=arm64; node_arch=arm64 ;;
  *) die "no package names known for the architecture $arch: add it to packaging/dist.sh" ;;
esac
[ "$os" = linux ] || die "only Linux is packaged so far (this is $os): the .so/.a names and strip flags are ELF's"
c_plat=$os-$arch
go_plat=$os-$go_arch
node_plat=$os-$node_arch
# A Linux without glibc (musl) needs prebuilds of its own; index.js asks for <platform>-<arch>-musl.
case $(getconf GNU_LIBC_VERSION 2>/dev/null) in glibc*) ;; *) node_plat=$node_plat-musl ;; esac

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(all)
# `pack`: no build; repacks the npm tarball and the Go module from every platform's prebuild and
# library already in dist/ (the release workflow's last step, after copying in each platform's).
build=1
if [ "${parts[*]}" = pack ]; then
  build=0
  parts=(npm go)
fi
want() { local p; for p in "${parts[@]}"; do [ "$p" = all ] || [ "$p" = "$1" ] && return 0; done; return 1; }

if [ $build = 1 ]; then
# --- the build tools --------------------------------------------------------------------------
# Everything that ships is built against glibc 2.17 (docs/packaging.md, "The glibc floor"): the
# host's Rust toolchain links with zig (`cargo zigbuild --target <triple>.2.17`), whose glibc
# stubs carry only the symbol versions 2.17 has, and the Node addon is compiled by `zig cc` for
# the same floor. Both tools are wheels on PyPI, pinned here, in the venv of the build tools.
glibc_floor=2.17
zig_version=0.15.2
zigbuild_version=0.24.1
venv=$root/target/dist-tools/venv
tools_ok() {
  [ -x "$venv/bin/python" ] && [ -x "$venv/bin/cargo-zigbuild" ] &&
    "$venv/bin/python" -c "import build, setuptools, auditwheel, importlib.metadata as m
assert m.version('ziglang') == '$zig_version' and m.version('cargo-zigbuild') == '$zigbuild_version'" 2>/dev/null
}
if ! tools_ok; then
  echo "== build tools into target/dist-tools/venv (ziglang $zig_version, cargo-zigbuild $zigbuild_version)"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check 'build>=1' 'setuptools>=70.1' 'auditwheel>=6' \
    "ziglang==$zig_version" "cargo-zigbuild==$zigbuild_version"
  tools_ok || die "the build tools did not install into $venv"
fi
triple=$arch-unknown-linux-gnu
if [ "$(rustc -vV | sed -n 's/^host: //p')" != "$triple" ] && ! rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
  die "the Rust target $triple is not installed (rustup target add $triple)"
fi
# cargo-zigbuild runs zig as `python3 -m ziglang` from the venv.
zigbuild() { PATH=$venv/bin:$PATH "$venv/bin/cargo-zigbuild" "$@"; }
# `zig cc` for the floor, as one program (build.js takes CC as a single command).
zigcc=$root/target/dist-tools/zigcc-$arch-linux-gnu.$glibc_floor
printf '#!/bin/sh\nexec "%s" -m ziglang cc -target %s "$@"\n' "$venv/bin/python" "$arch-linux-gnu.$glibc_floor" >"$zigcc"
chmod 755 "$zigcc"

# --- the LTO builds ----------------------------------------------------------------------------
echo "== cargo zigbuild --profile dist --target $triple.$glibc_floor --locked (LTO; SONAME liboh_hooks.so.$major)"
OH_HOOKS_SONAME=1 zigbuild zigbuild --profile dist --locked --target "$triple.$glibc_floor"
built=$root/target/$triple/dist
grep -q <<<"$(readelf -d "$built/liboh_hooks.so")" "SONAME.*\[liboh_hooks.so.$major\]" ||
  die "$built/liboh_hooks.so has no SONAME liboh_hooks.so.$major (build.rs sets it when OH_HOOKS_SONAME=1)"

# The static library gets an LTO build of its own: cargo runs LTO only for a unit whose crate
# types all take it, and the lib target's list has `rlib` (the CLI and the tests link it), so the
# build above compiles the lib without LTO: its archive keeps every crate's objects un-optimised
# across crates (55 MiB stripped against 11 MiB), and its shared library is not LTO'd either (see
# docs/packaging.md, "The libraries"). In the same target dir, so the dependencies are compiled once for both: cargo names a
# `--crate-type staticlib` build's archive apart (a hash in deps/), so neither build invalidates
# the other. The same OH_HOOKS_SONAME, or build.rs would run again and dirty both. Cargo copies
# this build's archive to $built/liboh_hooks.a (over the first build's), where it is stripped
# below before any other cargo run.
echo "== cargo zigbuild rustc --profile dist --lib --crate-type staticlib --target $triple.$glibc_floor (LTO)"
OH_HOOKS_SONAME=1 zigbuild rustc --profile dist --locked --lib --crate-type staticlib --target "$triple.$glibc_floor"
static_built=$built/liboh_hooks.a

# glibc_needed FILE: the newest GLIBC_x.y symbol version an ELF file needs ("none" if none).
glibc_needed() {
  objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -1 | grep . || echo none
}
# at_floor FILE: dies when FILE needs a glibc newer than the floor.
at_floor() {
  local need
  need=$(glibc_needed "$1")
  [ "$need" = none ] || [ "$(printf '%s\n%s\n' "$need" "$glibc_floor" | sort -t. -k1,1n -k2,2n | tail -1)" = "$glibc_floor" ] ||
    die "$1 needs GLIBC_$need, newer than the floor $glibc_floor"
  echo "   ${1#"$root"/}: newest glibc symbol GLIBC_$need (floor $glibc_floor)"
}
at_floor "$built/liboh_hooks.so"
at_floor "$built/oh-hooks"
mkdir -p "$out" "$out/debug/$c_plat"
# strip_split SRC DEST: DEST is SRC stripped; the debug info goes to dist/debug/<platform>/.
strip_split() {
  local src=$1 dest=$2 dbg
  dbg=$out/debug/$c_plat/$(basename "$dest").debug
  objcopy --only-keep-debug "$src" "$dbg"
  strip --strip-unneeded -o "$dest" "$src"
  objcopy --add-gnu-debuglink="$dbg" "$dest"
}
static_lib=$stage/liboh_hooks.a # the static library stripped of debug info (symbols kept)
mkdir -p "$stage"
strip --strip-debug -o "$static_lib" "$static_built"
fi

# --- C ----------------------------------------------------------------------------------------------
c_name=oh-hooks-$version-$c_plat
c_dir=$out/c/$c_name
if want c || want python || want install; then
  echo "== C: $c_dir"
  rm -rf "$c_dir"
  mkdir -p "$c_dir/include" "$c_dir/lib/pkgconfig" "$c_dir/bin"
  install -m 644 include/oh_hooks.h "$c_dir/include/"
  strip_split "$built/liboh_hooks.so" "$c_dir/lib/liboh_hooks.so.$version"
  chmod 755 "$c_dir/lib/liboh_hooks.so.$version"
  ln -s "liboh_hooks.so.$version" "$c_dir/lib/liboh_hooks.so.$major"
  ln -s "liboh_hooks.so.$major" "$c_dir/lib/liboh_hooks.so"
  install -m 644 "$static_lib" "$c_dir/lib/liboh_hooks.a"
  # Relocatable: the prefix is wherever the tarball was unpacked. `make install` writes its own.
  sed -e 's|@PREFIX@|${pcfiledir}/../..|' -e "s|@VERSION@|$version|" oh_hooks.pc.in >"$c_dir/lib/pkgconfig/oh_hooks.pc"
  strip_split "$built/oh-hooks" "$c_dir/bin/oh-hooks"
  chmod 755 "$c_dir/bin/oh-hooks"
  install -m 644 LICENSE-MIT LICENSE-APACHE "$c_dir/"
  # Each package opens with its own README (install, a first program, where the docs are), not
  # the repository's contributor README (packaging/readme/; the dist suite runs its first program).
  install -m 644 packaging/readme/c.md "$c_dir/README.md"
  tar -C "$out/c" --owner=0 --group=0 --numeric-owner -czf "$out/$c_name.tar.gz" "$c_name"
fi

# --- Python ------------------------------------------------------------------------------------------
if want python; then
  echo "== Python: wheel and sdist"
  py=$stage/python
  rm -rf "$py" && mkdir -p "$py/rust"
  (cd bindings/python && tar --exclude=build --exclude='*.egg-info' --exclude=__pycache__ --exclude=tests \
    --exclude='liboh_hooks.*' -cf - .) | tar -C "$py" -xf -
  install -m 644 LICENSE-MIT LICENSE-APACHE "$py/"
  install -m 644 packaging/readme/python.md "$py/README.md" # the wheel's and sdist's description
  # The crate, for the sdist's build from source.
  tar --exclude=target -cf - Cargo.toml Cargo.lock build.rs cbindgen.toml rustfmt.toml src include \
    LICENSE-MIT LICENSE-APACHE | tar -C "$py/rust" -xf -
  # The floor is the tag: manylinux_2_17 (PEP 600), and its older name manylinux2014 for pip
  # before 20.3 (Ubuntu 20.04's). at_floor checked the library against it; auditwheel checks again.
  lib=$c_dir/lib/liboh_hooks.so.$version
  glibc=GLIBC_$(glibc_needed "$lib")
  tag=manylinux_2_${glibc_floor#2.}_$arch
  plat=$tag.manylinux2014_$arch
  rm -f "$out"/python/oh_hooks-"$version"*
  OH_HOOKS_WHEEL_LIB=$lib OH_HOOKS_WHEEL_PLAT=$plat \
    "$venv/bin/python" -m build --no-isolation --sdist --wheel --outdir "$out/python" "$py" >"$stage/python-build.log" 2>&1 ||
    { cat "$stage/python-build.log"; die "building the wheel failed"; }
  wheel=$out/python/oh_hooks-$version-py3-none-$plat.whl
  [ -f "$wheel" ] || die "expected $wheel; got: $(ls "$out/python")"
  # auditwheel reads the library's symbol versions and needed libraries itself; its verdict must
  # be the tag the wheel carries.
  shown=$("$venv/bin/auditwheel" show "$wheel" 2>&1) || { echo "$shown"; die "auditwheel show failed"; }
  grep -q "consistent with the following platform tag: \"$tag\"" <<<"$(tr '\n' ' ' <<<"$shown")" ||
    { echo "$shown"; die "auditwheel does not agree with the tag $tag"; }
  echo "   auditwheel: consistent with $tag (needs $glibc)"
fi

# --- npm ---------------------------------------------------------------------------------------------
if want npm; then
  echo "== npm: prebuild for $node_plat and the tarball"
  prebuild=$out/npm/prebuilds/$node_plat/oh_hooks.node
  if [ $build = 1 ]; then
    mkdir -p "$(dirname "$prebuild")"
    CC=$zigcc node bindings/node/build.js --static --lib-dir "$stage" --out "$stage/oh_hooks.node"
    at_floor "$stage/oh_hooks.node"
    strip --strip-unneeded -o "$prebuild" "$stage/oh_hooks.node"
  fi
  np=$stage/npm
  # The binding as it is (package.json's "files" picks what ships), plus the header, the licences
  # and every platform's prebuild.
  rm -rf "$np" && mkdir -p "$np"
  (cd bindings/node && tar --exclude=./node_modules --exclude=./build --exclude=./prebuilds -cf - .) | tar -C "$np" -xf -
  mkdir -p "$np/include" && install -m 644 include/oh_hooks.h "$np/include/"
  install -m 644 LICENSE-MIT LICENSE-APACHE "$np/"
  install -m 644 packaging/readme/npm.md "$np/README.md"
  # `npm test` runs the repository's test.sh, which the package does not ship: drop the script.
  node -e 'const f=process.argv[1], p=JSON.parse(require("fs").readFileSync(f)); delete p.scripts.test;
    require("fs").writeFileSync(f, JSON.stringify(p, null, 2) + "\n")' "$np/package.json"
  cp -r "$out/npm/prebuilds" "$np/"
  rm -f "$out"/npm/oh-hooks-*.tgz
  (cd "$np" && npm pack --silent --pack-destination "$out/npm" >/dev/null)
  [ -f "$out/npm/oh-hooks-$version.tgz" ] || die "npm pack did not write $out/npm/oh-hooks-$version.tgz"
fi

# --- Go ----------------------------------------------------------------------------------------------
if want go; then
  echo "== Go: module github.com/oh-hooks/ohhooks v$version with lib/$go_plat"
  mod=$out/go/ohhooks
  mkdir -p "$mod/lib/$go_plat"
  # Everything but the platform libraries is rewritten from the sources.
  find "$mod" -mindepth 1 -maxdepth 1 ! -name lib -exec rm -rf {} +
  [ $build = 0 ] || install -m 644 "$static_lib" "$mod/lib/$go_plat/liboh_hooks.a"
  for f in bindings/go/*.go bindings/go/*.c bindings/go/*.h; do
    [ -e "$f" ] || continue
    case $f in *_test.go | */link_repo_*.go) continue ;; esac
    install -m 644 "$f" "$mod/"
  done
  install -m 644 bindings/go/go.mod LICENSE-MIT LICENSE-APACHE "$mod/"
  install -m 644 packaging/readme/go.md "$mod/README.md"
  mkdir -p "$mod/include"
  install -m 644 include/oh_hooks.h "$mod/include/"
  packaging/go-module.sh "$mod" "$version"
fi

# --- checksums ---------------------------------------------------------------------------------------
# What a release publishes, with its SHA-256 (paths relative to dist/).
(cd "$out" && find . -maxdepth 4 -type f \( -name '*.tar.gz' -o -name '*.whl' -o -name '*.tgz' -o -name '*.zip' \) \
  ! -path './go/proxy/*' | sed 's|^\./||' | sort | xargs -r sha256sum >SHA256SUMS)

# --- sizes -------------------------------------------------------------------------------------------
echo "== sizes"
size() { [ -e "$1" ] && awk -v n="${1#"$root"/}" -v b="$(stat -Lc %s "$1")" 'BEGIN { printf "%-64s %8.2f MiB\n", n, b / 1048576 }'; }
size "$c_dir/lib/liboh_hooks.so.$version" || true
size "$c_dir/lib/liboh_hooks.a" || true
size "$c_dir/bin/oh-hooks" || true
size "$out/$c_name.tar.gz" || true
for f in "$out"/python/*.whl "$out"/python/*.tar.gz "$out"/npm/*.tgz "$out"/npm/prebuilds/*/oh_hooks.node "$out"/go/github.com/oh-hooks/*.zip; do
  size "$f" || true
done
