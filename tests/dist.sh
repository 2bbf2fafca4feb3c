#!/usr/bin/env bash
# The packages as a new user gets them: builds dist/ once (`make dist`, the LTO build), copies
# each artifact into a fresh temporary directory where the repository and its target/ are out of
# reach, and runs a small harness per language from there (tests/dist/):
#   C       pkg-config against the unpacked tarball, linked shared and static
#   Python  `pip install` of the wheel into a fresh venv (no index)
#   Node    `npm install` of the tarball into a fresh app: CommonJS, ESM, and `tsc --strict` of the
#           types when TypeScript installs from the npm registry
#   Go      `go build -race` of an app requiring the module through a `replace` to the unpacked
#           zip, no CGO_* variables; also vendored, from a GOPROXY, and with -tags ohhooks_system
# Every shipped binary (the .so, the CLI, the wheel's library, the npm prebuild) needs no glibc
# symbol version above the floor, 2.17 (docs/packaging.md); the static library links into a
# program built against glibc 2.17 (zig's stubs) and that program runs; the wheel is tagged
# manylinux_2_17 / manylinux2014 and `auditwheel show` agrees.
# Each package's own README (packaging/readme/) is checked to be the one it ships, and its "First
# program" is run exactly as written, extracted by tests/dist/readme_first.py.
# Each harness prints its own `dist-<lang>: N passed, N failed`; the last line sums everything as
# `dist: N passed, N failed`. Set DIST_SDIST=1 to also install the Python sdist (a cargo build).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
pass=0
fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
finish() { echo "dist: $pass passed, $fail failed"; [ "$fail" = 0 ]; exit $?; }
# harness NAME COMMAND...: runs a harness, echoes it, and adds its summary line to the totals.
harness() {
  local name=$1 out status line
  shift
  out=$("$@" 2>&1)
  status=$?
  echo "$out" | sed 's/^/    /'
  line=$(echo "$out" | grep -E "^$name: [0-9]+ passed, [0-9]+ failed$" | tail -1)
  if [ -z "$line" ]; then
    bad "$name printed no summary (exit status $status)"
    return
  fi
  read -r p f < <(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed/\1 \2/')
  pass=$((pass + p))
  fail=$((fail + f))
  [ "$status" = 0 ] || [ "$f" != 0 ] || bad "$name exited with status $status"
}
# first_program NAME README PROGRAM DIR: the package's own README, not the contributor one, and
# its "First program" run exactly as written (tests/dist/readme_first.py extracts the setup, the
# program and the run command) in the fresh directory DIR, with the environment the caller gives;
# the program's callback denies `rm -rf /`, so its output must carry that reason.
first_program() {
  local name=$1 readme=$2 program=$3 dir=$4 out
  if grep -q '^## First program$' "$readme" && ! grep -q 'make demo\|make test\|polyglot' "$readme"; then
    ok "$name: the package's README is its own (install, first program, docs)"
  else
    bad "$name: the package's README is its own, not the repository's contributor README"
  fi
  mkdir -p "$dir"
  if ! python3 "$h/readme_first.py" "$readme" "$dir" "$program"; then
    bad "$name: the package's README has a First program"
    return
  fi
  if out=$(cd "$dir" && sh setup.sh && sh run.sh 2>&1) && grep -q 'no rm -rf here' <<<"$out"; then
    ok "$name: the First program of the package's README runs as written"
  else
    echo "$out" | tail -20 | sed 's/^/    /'
    bad "$name: the First program of the package's README runs as written"
  fi
}
mib() { awk -v b="$(stat -Lc %s "$1")" 'BEGIN { printf "%.2f", b / 1048576 }'; }
# at_most FILE MIB WHAT
at_most() {
  local size
  size=$(mib "$1")
  if awk -v s="$size" -v m="$2" 'BEGIN { exit !(s <= m) }'; then ok "$3 is $size MiB (at most $2)"; else bad "$3 is $size MiB, over $2 MiB"; fi
}

for tool in cargo gcc pkg-config python3 node npm go readelf objdump objcopy unzip; do
  command -v "$tool" >/dev/null || { bad "$tool is installed (needed to build or check the packages)"; finish; }
done

echo "== make dist"
if make -s dist; then ok "make dist"; else bad "make dist"; finish; fi

# The floor: GLIBC_x.y symbol versions above it keep a binary from loading on older systems.
floor=2.17
# glibc_needed FILE: the newest GLIBC_x.y version FILE's dynamic symbols need ("none" if none).
glibc_needed() {
  objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -V | tail -1 | grep . || echo none
}
# at_floor FILE WHAT: FILE needs at most GLIBC_<floor>, and every symbol it must find at load time
# carries a version: a shared object may be linked with an undefined symbol the 2.17 stubs lack,
# which would then fail to load on an old glibc. Weak ones (std's gettid, statx, getrandom,
# __cxa_thread_atexit_impl, checked for null before use) and Node's N-API and libuv functions are
# expected: the node process exports both to its addons (the addon watches its completion pipe
# with a uv_poll_t on the loop napi_get_uv_event_loop gives it).
at_floor() {
  local need loose
  need=$(glibc_needed "$1")
  if [ "$need" != none ] && [ "$(printf '%s\n%s\n' "$need" "$floor" | sort -V | tail -1)" = "$floor" ]; then
    ok "$2 needs at most GLIBC_$floor (newest: GLIBC_$need)"
  else
    bad "$2 needs GLIBC_$need, above the floor GLIBC_$floor"
  fi
  loose=$(objdump -T "$1" | grep '\*UND\*' | grep -v '^[0-9a-f]* *w ' | grep -v '(GLIBC_[0-9.]*)\|(GCC_[0-9.]*)' |
    awk '{print $NF}' | grep -v '^napi_\|^node_api_\|^uv_' | tr '\n' ' ')
  [ -z "$loose" ] && ok "$2: every strong undefined symbol has a glibc version" || bad "$2: undefined without a version: $loose"
}
arch=$(uname -m)
c_name=oh-hooks-$version-linux-$arch
tarball=dist/$c_name.tar.gz
wheel=$(ls dist/python/oh_hooks-"$version"-py3-none-manylinux_*.whl 2>/dev/null | head -1)
zigcc=$root/target/dist-tools/zigcc-$arch-linux-gnu.$floor
sdist=dist/python/oh_hooks-$version.tar.gz
npm_tgz=dist/npm/oh-hooks-$version.tgz
go_zip=dist/go/github.com/oh-hooks/ohhooks@v$version.zip
for f in "$tarball" "$wheel" "$sdist" "$npm_tgz" "$go_zip"; do
  [ -n "$f" ] && [ -f "$f" ] && ok "built ${f:-the wheel}" || bad "built ${f:-a manylinux wheel in dist/python}"
done
[ "$fail" = 0 ] || finish
(cd dist && sha256sum --quiet -c SHA256SUMS) && ok "dist/SHA256SUMS matches the artifacts" || bad "dist/SHA256SUMS matches the artifacts"

# A wheel built where an old build/ lies around ships the library it is given, not the old one.
stale=$(mktemp -d)
cp -r bindings/python/. "$stale/"
# setuptools builds a non-pure package in build/lib.<platform>-<python>/ (and a pure one in build/lib/).
platlib=$(target/dist-tools/venv/bin/python -c 'import sys, sysconfig; print(f"lib.{sysconfig.get_platform()}-{sys.implementation.cache_tag}")')
for d in lib "$platlib"; do
  mkdir -p "$stale/build/$d/oh_hooks"
  for f in liboh_hooks.so liboh_hooks.so.0 liboh_hooks.dylib; do echo "stale library" >"$stale/build/$d/oh_hooks/$f"; done
done
lib=dist/c/$c_name/lib/liboh_hooks.so.$version
if OH_HOOKS_WHEEL_LIB=$root/$lib target/dist-tools/venv/bin/python -m build --no-isolation --wheel --outdir "$stale/out" "$stale" >"$stale/log" 2>&1 &&
  unzip -p "$stale"/out/*.whl oh_hooks/liboh_hooks.so | cmp -s - "$lib" &&
  [ "$(unzip -Z1 "$stale"/out/*.whl | grep -c 'liboh_hooks')" = 1 ]; then
  ok "a stale build/ does not leak its library into the wheel"
else
  tail -5 "$stale/log"
  bad "a stale build/ does not leak its library into the wheel"
fi
rm -rf "$stale"

# Everything from here runs in a directory outside the repository, with the artifacts copied in.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oh-hooks-dist.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/artifacts" "$tmp/harness"
cp "$tarball" "$wheel" "$sdist" "$npm_tgz" "$go_zip" "$tmp/artifacts/"
cp -r dist/go/proxy "$tmp/artifacts/goproxy"
cp tests/dist/* "$tmp/harness/"
art=$tmp/artifacts
h=$tmp/harness
cd "$tmp" || exit 1
# Nothing may point back at the build.
unset OH_HOOKS_LIB OH_HOOKS_LIB_DIR OH_HOOKS_INCLUDE_DIR CGO_CFLAGS CGO_LDFLAGS CGO_CPPFLAGS LD_LIBRARY_PATH \
  PKG_CONFIG_PATH PYTHONPATH NODE_PATH GOFLAGS
export GOTOOLCHAIN=local

echo "== C: tarball, pkg-config"
tar -C "$tmp" -xzf "$art/${tarball##*/}"
c=$tmp/$c_name
for f in include/oh_hooks.h lib/liboh_hooks.so.$version lib/liboh_hooks.a lib/pkgconfig/oh_hooks.pc bin/oh-hooks LICENSE-MIT LICENSE-APACHE; do
  [ -e "$c/$f" ] && ok "tarball has $f" || bad "tarball has $f"
done
[ "$(readlink "$c/lib/liboh_hooks.so")" = liboh_hooks.so.0 ] && [ "$(readlink "$c/lib/liboh_hooks.so.0")" = "liboh_hooks.so.$version" ] &&
  ok "symlinks liboh_hooks.so -> .so.0 -> .so.$version" || bad "symlinks liboh_hooks.so -> .so.0 -> .so.$version"
grep -q <<<"$(readelf -d "$c/lib/liboh_hooks.so.$version")" 'SONAME.*\[liboh_hooks.so.0\]' && ok "SONAME liboh_hooks.so.0" || bad "SONAME liboh_hooks.so.0"
for f in "lib/liboh_hooks.so.$version" bin/oh-hooks; do
  if grep -q <<<"$(readelf -S "$c/$f")" '\.debug_info\|\.symtab'; then bad "$f is stripped"; else ok "$f is stripped"; fi
done
at_most "$c/lib/liboh_hooks.so.$version" 6 "the stripped liboh_hooks.so"
at_floor "$c/lib/liboh_hooks.so.$version" "lib/liboh_hooks.so.$version"
at_floor "$c/bin/oh-hooks" "bin/oh-hooks"
export PKG_CONFIG_PATH=$c/lib/pkgconfig
[ "$(pkg-config --modversion oh_hooks)" = "$version" ] && ok "pkg-config --modversion oh_hooks is $version" || bad "pkg-config --modversion"
mkdir -p "$tmp/c-app" && cd "$tmp/c-app" || exit 1
libdir=$(pkg-config --variable=libdir oh_hooks)
# shellcheck disable=SC2046
if gcc -std=c11 -Wall -Wextra -Werror "$h/check.c" -o check-shared $(pkg-config --cflags --libs oh_hooks) -Wl,-rpath,"$libdir"; then
  ok "check.c builds with pkg-config --cflags --libs oh_hooks"
  grep -q <<<"$(readelf -d check-shared)" 'NEEDED.*\[liboh_hooks.so.0\]' && ok "the program needs liboh_hooks.so.0" || bad "the program needs liboh_hooks.so.0"
  harness dist-c-shared ./check-shared "$(cat "$h/options.json")" "$version" dist-c-shared
else
  bad "check.c builds with pkg-config (shared)"
fi
# shellcheck disable=SC2046
if gcc -std=c11 -Wall -Wextra -Werror "$h/check.c" -o check-static $(pkg-config --cflags oh_hooks) \
  $(pkg-config --static --libs oh_hooks | sed 's/-loh_hooks/-l:liboh_hooks.a/'); then
  ok "check.c links liboh_hooks.a with pkg-config --static --libs (Libs.private)"
  grep -q <<<"$(readelf -d check-static)" liboh_hooks && bad "the static program needs no liboh_hooks.so" || ok "the static program needs no liboh_hooks.so"
  harness dist-c-static ./check-static "$(cat "$h/options.json")" "$version" dist-c-static
else
  bad "check.c links statically"
fi
# The static library in a program linked against glibc 2.17 (zig cc's stubs, as make dist builds
# the addon): it links, needs nothing newer, and runs here. The archive by path (zig takes no
# -l:name); -lgcc_s is the unwinder Rust's std needs (cargo's native-static-libs list it; gcc adds
# it by itself, zig links its own libunwind for it).
# shellcheck disable=SC2046
if [ -x "$zigcc" ] && "$zigcc" -std=c11 -Wall -Wextra -Werror "$h/check.c" -o check-floor $(pkg-config --cflags oh_hooks) \
  $(pkg-config --static --libs oh_hooks | sed "s|-loh_hooks|$libdir/liboh_hooks.a|") -lgcc_s 2>&1; then
  ok "check.c links liboh_hooks.a against glibc $floor (zig cc -target $arch-linux-gnu.$floor)"
  at_floor check-floor "a program linking liboh_hooks.a for glibc $floor"
  harness dist-c-floor ./check-floor "$(cat "$h/options.json")" "$version" dist-c-floor
else
  bad "check.c links liboh_hooks.a against glibc $floor with $zigcc"
fi
grep -q Usage <<<"$("$c/bin/oh-hooks" --help)" && ok "bin/oh-hooks --help" || bad "bin/oh-hooks --help"
first_program dist-c "$c/README.md" first.c "$tmp/first-c"
unset PKG_CONFIG_PATH

echo "== Python: the wheel in a fresh venv"
case ${wheel##*/} in
  *-py3-none-manylinux_2_17_"$arch".manylinux2014_"$arch".whl) ok "wheel tag ${wheel##*/}" ;;
  *) bad "wheel tag ${wheel##*/} (expected py3-none-manylinux_2_17_$arch.manylinux2014_$arch)" ;;
esac
shown=$("$root/target/dist-tools/venv/bin/auditwheel" show "$art/${wheel##*/}" 2>&1)
if grep -q "consistent with the following platform tag: \"manylinux_2_17_$arch\"" <<<"$(tr '\n' ' ' <<<"$shown")"; then
  ok "auditwheel show: consistent with manylinux_2_17_$arch"
else
  echo "$shown"
  bad "auditwheel show agrees with manylinux_2_17_$arch"
fi
mkdir -p "$tmp/wheel" && unzip -q "$art/${wheel##*/}" -d "$tmp/wheel"
at_floor "$tmp/wheel/oh_hooks/liboh_hooks.so" "the wheel's oh_hooks/liboh_hooks.so"
at_most "$art/${wheel##*/}" 3 "the wheel"
python3 -m venv "$tmp/venv"
if "$tmp/venv/bin/pip" install -q --no-index --disable-pip-version-check "$art/${wheel##*/}"; then
  ok "pip install ${wheel##*/}"
  mkdir -p "$tmp/py-app" && cd "$tmp/py-app" || exit 1
  harness dist-python "$tmp/venv/bin/python" "$h/check.py" "$h/options.json" "$version" dist-python
  # The wheel's README is its description in the installed metadata.
  "$tmp/venv/bin/python" -c 'import importlib.metadata as m; d = m.metadata("oh-hooks"); print(d["Description"] or d.get_payload())' >"$tmp/python-README.md"
  PATH=$tmp/venv/bin:$PATH first_program dist-python "$tmp/python-README.md" first.py "$tmp/first-python"
  site=$("$tmp/venv/bin/python" -c 'import oh_hooks, os; print(os.path.dirname(oh_hooks.__file__))')
  for f in LICENSE-MIT LICENSE-APACHE; do
    ls "$site"/../oh_hooks-"$version".dist-info/licenses/"$f" >/dev/null 2>&1 ||
      ls "$site"/../oh_hooks-"$version".dist-info/"$f" >/dev/null 2>&1 && ok "the wheel ships $f" || bad "the wheel ships $f"
  done
  if "$tmp/venv/bin/pip" install -q --disable-pip-version-check 'mypy>=1.8' >/dev/null 2>&1; then
    if out=$("$tmp/venv/bin/python" -m mypy --strict --warn-unused-ignores --no-incremental "$h/check_types.py" 2>&1); then
      ok "mypy --strict: Options/Envelope TypedDicts catch misspelt keys (check_types.py)"
    else
      echo "$out"
      bad "mypy --strict check_types.py"
    fi
  else
    echo "   (mypy could not be installed from PyPI: type check not run)"
  fi
else
  bad "pip install the wheel"
fi
if [ "${DIST_SDIST:-0}" = 1 ]; then
  python3 -m venv "$tmp/venv-sdist"
  if "$tmp/venv-sdist/bin/pip" install -q --disable-pip-version-check "$art/${sdist##*/}"; then
    ok "pip install of the sdist (cargo build)"
    harness dist-python-sdist "$tmp/venv-sdist/bin/python" "$h/check.py" "$h/options.json" "$version" dist-python-sdist
  else
    bad "pip install of the sdist"
  fi
fi

echo "== Node: the npm tarball in a fresh app"
at_most "$art/${npm_tgz##*/}" 3 "the npm tarball"
mkdir -p "$tmp/node-app" && cd "$tmp/node-app" || exit 1
echo '{"name": "dist-check", "version": "1.0.0", "private": true}' >package.json
if npm install --silent --no-audit --no-fund --offline "$art/${npm_tgz##*/}" >npm.log 2>&1; then
  ok "npm install ${npm_tgz##*/}"
  cp "$h/check.cjs" "$h/check.mjs" "$h/check.ts" .
  for f in node_modules/oh-hooks/prebuilds/*/oh_hooks.node; do
    case $f in */linux-*) at_floor "$f" "the npm prebuild ${f#node_modules/oh-hooks/}" ;; esac
  done
  harness dist-node-cjs node check.cjs "$h/options.json" "$version" dist-node-cjs
  harness dist-node-esm node check.mjs "$h/options.json" "$version" dist-node-esm
  first_program dist-node node_modules/oh-hooks/README.md first.js "$tmp/node-app/first"
  # Every npm script names a file the package ships (the repository's `test` script does not).
  if node -e 'const fs = require("fs"), d = "node_modules/oh-hooks/";
    const s = JSON.parse(fs.readFileSync(d + "package.json")).scripts || {};
    const missing = Object.values(s).flatMap((c) => c.match(/\.\/[\w.\/-]+|\b[\w-]+\.(js|sh)\b/g) || []).filter((f) => !fs.existsSync(d + f));
    if (missing.length) { console.log("missing:", missing.join(" ")); process.exit(1); }'; then
    ok "the npm package's scripts name only files it ships"
  else
    bad "the npm package's scripts name only files it ships"
  fi
  for f in LICENSE-MIT LICENSE-APACHE; do [ -f "node_modules/oh-hooks/$f" ] && ok "the npm package ships $f" || bad "the npm package ships $f"; done
  # A platform without a prebuild: the error names it and says what to do.
  cp -r node_modules/oh-hooks "$tmp/no-prebuild" && rm -rf "$tmp/no-prebuild/prebuilds"
  msg=$(node -e "require('$tmp/no-prebuild')" 2>&1)
  if grep -q "no prebuilt addon for linux-" <<<"$msg" && grep -q 'cargo build --release' <<<"$msg"; then
    ok "no prebuild: the error names the platform and how to build from source"
  else
    bad "no prebuild error: $msg"
  fi
  # Building from source stays possible: the installed package's build.js against an installed
  # library (the C tarball's), with no prebuild left; build/ is then what loads.
  cp -r node_modules/oh-hooks "$tmp/from-source" && rm -rf "$tmp/from-source/prebuilds"
  if [ ! -f /usr/include/node/node_api.h ]; then
    (cd "$tmp/from-source" && npm install --silent --no-audit --no-fund --no-save node-api-headers >/dev/null 2>&1)
  fi
  if (cd "$tmp/from-source" && OH_HOOKS_LIB_DIR=$c/lib node build.js >/dev/null) &&
    [ "$(node -e "console.log(require('$tmp/from-source').version)")" = "$version" ]; then
    ok "npm run build in the installed package, against the C tarball's library, loads build/oh_hooks.node"
  else
    bad "building the addon from source in the installed package"
  fi
  if npm install --silent --no-audit --no-fund --no-save typescript@5 @types/node >>npm.log 2>&1; then
    if out=$(npx --no-install tsc --strict --noEmit --target es2022 --module nodenext --moduleResolution nodenext \
      --lib es2022,esnext.disposable --types node check.ts 2>&1); then
      ok "tsc --strict accepts check.ts against index.d.ts (using, await using, typos caught)"
      # A project with an old `lib` and no @types/node still compiles against the declarations.
      printf "import { Hooks } from 'oh-hooks';\nconst h = new Hooks({ config: {} });\nvoid h.fireSync({ event: 'sessionStart' }).allowed;\nvoid h.close();\n" >plain.ts
      printf '{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020", "module": "nodenext", "lib": ["es2020"], "types": []}, "files": ["plain.ts"]}\n' >tsconfig.json
      if out=$(npx --no-install tsc -p . 2>&1); then
        ok "tsc --strict with lib es2020 and no @types/node accepts the declarations"
      else
        echo "$out"
        bad "tsc with lib es2020 and no @types/node"
      fi
    else
      echo "$out"
      bad "tsc --strict check.ts"
    fi
  else
    echo "   (TypeScript could not be installed from the npm registry: tsc check not run)"
  fi
else
  cat npm.log
  bad "npm install the tarball"
fi

echo "== Go: the module zip through a replace"
mkdir -p "$tmp/gomod" && unzip -q "$art/${go_zip##*/}" -d "$tmp/gomod"
moddir=$tmp/gomod/github.com/oh-hooks/ohhooks@v$version
for f in LICENSE-MIT LICENSE-APACHE include/oh_hooks.h "lib/linux-$(go env GOARCH)/liboh_hooks.a"; do
  [ -f "$moddir/$f" ] && ok "the module has $f" || bad "the module has $f"
done
cmp -s "$moddir/lib/linux-$(go env GOARCH)/liboh_hooks.a" "$c/lib/liboh_hooks.a" &&
  ok "the module's liboh_hooks.a is the tarball's (linked against glibc $floor above)" || bad "the module's liboh_hooks.a is the tarball's"
mkdir -p "$tmp/go-app" && cd "$tmp/go-app" || exit 1
cp "$h/main.go" .
cat >go.mod <<EOF
module distcheck

go 1.22

require github.com/oh-hooks/ohhooks v$version

replace github.com/oh-hooks/ohhooks => $moddir
EOF
chmod -R a-w "$moddir" # the build must not write into the module
if GOPROXY=off go build -race -o app . 2>&1; then
  ok "go build -race (replace to the unpacked zip, no CGO_* variables)"
  harness dist-go ./app "$h/options.json" "$version" dist-go
  grep -q <<<"$(readelf -d app)" liboh_hooks && bad "the Go program links the engine statically" || ok "the Go program links the engine statically"
else
  bad "go build -race"
fi
if GOPROXY=off go mod vendor 2>&1 && [ -f "vendor/github.com/oh-hooks/ohhooks/lib/linux-$(go env GOARCH)/liboh_hooks.a" ] &&
  [ -f vendor/github.com/oh-hooks/ohhooks/include/oh_hooks.h ]; then
  ok "go mod vendor keeps the header and the static library"
  if GOPROXY=off go build -mod=vendor -o app-vendored . 2>&1; then
    harness dist-go-vendored ./app-vendored "$h/options.json" "$version" dist-go-vendored
  else
    bad "go build -mod=vendor"
  fi
else
  bad "go mod vendor keeps the header and the static library"
fi
rm -rf vendor
if CGO_LDFLAGS="-L$c/lib" GOPROXY=off go build -o app-redirected . 2>&1 && grep -q <<<"$(readelf -d app-redirected)" 'NEEDED.*liboh_hooks.so.0'; then
  ok "CGO_LDFLAGS=-L<dir> redirects the link (to the tarball's liboh_hooks.so)"
else
  bad "CGO_LDFLAGS=-L<dir> redirects the link"
fi
if PKG_CONFIG_PATH=$c/lib/pkgconfig GOPROXY=off go build -tags ohhooks_system -o app-system . 2>&1; then
  ok "go build -tags ohhooks_system (pkg-config oh_hooks)"
  harness dist-go-system env LD_LIBRARY_PATH="$c/lib" ./app-system "$h/options.json" "$version" dist-go-system
else
  bad "go build -tags ohhooks_system"
fi
# The module zip as the go command downloads it: from a GOPROXY, checked by `go mod download`.
mkdir -p "$tmp/go-proxy-app" && cd "$tmp/go-proxy-app" || exit 1
cp "$h/main.go" . && printf 'module distcheck\n\ngo 1.22\n' >go.mod
if GOPROXY=file://$art/goproxy GONOSUMDB=github.com/oh-hooks GOFLAGS=-mod=mod GOMODCACHE=$tmp/gomodcache \
  go get "github.com/oh-hooks/ohhooks@v$version" 2>&1 && GOMODCACHE=$tmp/gomodcache GOPROXY=off go build -o app . 2>&1; then
  ok "go get github.com/oh-hooks/ohhooks@v$version from a GOPROXY serving dist/go/proxy, and build"
else
  bad "go get from the GOPROXY tree"
fi
chmod -R u+w "$tmp/gomodcache" 2>/dev/null
GOPROXY=file://$art/goproxy GONOSUMDB=github.com/oh-hooks GOFLAGS=-mod=mod GOMODCACHE=$tmp/gomodcache \
  first_program dist-go "$moddir/README.md" main.go "$tmp/first-go"
chmod -R u+w "$tmp/gomodcache" 2>/dev/null
finish
