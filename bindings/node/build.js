#!/usr/bin/env node
'use strict';
// Builds build/oh_hooks.node with gcc (no node-gyp: it would download headers).
//
//   node build.js            # or: npm run build
//   node build.js --static --lib-dir DIR --out FILE
//                            # links DIR/liboh_hooks.a into the addon (how `make dist` makes the
//                            # prebuild for prebuilds/<platform>-<arch>/): no library at run time
//
// Environment:
//   OH_HOOKS_LIB_DIR      directory holding liboh_hooks.so   (default: ../../target/release)
//   OH_HOOKS_INCLUDE_DIR  directory holding oh_hooks.h       (default: include/ in a package,
//                                                             else ../../include)
//   NODE_API_INCLUDE_DIR  directory holding node_api.h       (default: /usr/include/node,
//                         then the npm package node-api-headers if installed)
//   CC                    C compiler                          (default: gcc)
//
// The addon is linked against liboh_hooks.so with an rpath to the absolute
// library directory (and, as a fallback, the same directory relative to the
// addon via $ORIGIN), so no LD_LIBRARY_PATH is needed at run time.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const here = __dirname;

function fail(msg) {
  console.error(`error: ${msg}`);
  process.exit(1);
}

function findNodeApiHeaders() {
  const candidates = [];
  if (process.env.NODE_API_INCLUDE_DIR) candidates.push(process.env.NODE_API_INCLUDE_DIR);
  candidates.push('/usr/include/node');
  // Headers that ship with the running node, when installed from a tarball.
  candidates.push(path.resolve(path.dirname(process.execPath), '..', 'include', 'node'));
  try {
    candidates.push(require('node-api-headers').include_dir);
  } catch {
    /* optional fallback not installed */
  }
  for (const dir of candidates) {
    if (dir && fs.existsSync(path.join(dir, 'node_api.h'))) return dir;
  }
  fail(
    'node_api.h not found (looked in ' + candidates.join(', ') + '); ' +
      'set NODE_API_INCLUDE_DIR or run `npm install node-api-headers`',
  );
}

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
function value(name) {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  if (i + 1 >= argv.length) fail(`${name} needs a value`);
  return argv[i + 1];
}
for (const a of argv) {
  if (a.startsWith('--') && !['--static', '--lib-dir', '--out'].includes(a)) fail(`unknown option ${a}`);
}
const linkStatic = flag('--static');
const libDir = path.resolve(value('--lib-dir') || process.env.OH_HOOKS_LIB_DIR || path.join(here, '..', '..', 'target', 'release'));
const packagedInclude = path.join(here, 'include');
const includeDir = path.resolve(
  process.env.OH_HOOKS_INCLUDE_DIR ||
    (fs.existsSync(path.join(packagedInclude, 'oh_hooks.h')) ? packagedInclude : path.join(here, '..', '..', 'include')),
);
const cc = process.env.CC || 'gcc';
const libFile = path.join(libDir, linkStatic ? 'liboh_hooks.a' : 'liboh_hooks.so');

if (!fs.existsSync(libFile)) {
  fail(`${libFile} not found: run \`cargo build --release\` in the repository root, or set OH_HOOKS_LIB_DIR`);
}
if (!fs.existsSync(path.join(includeDir, 'oh_hooks.h'))) {
  fail(`${path.join(includeDir, 'oh_hooks.h')} not found: run \`cargo build --release\` in the repository root, or set OH_HOOKS_INCLUDE_DIR`);
}
const napiInclude = findNodeApiHeaders();

const out = path.resolve(value('--out') || path.join(here, 'build', 'oh_hooks.node'));
const outDir = path.dirname(out);
fs.mkdirSync(outDir, { recursive: true });
const tmp = out + '.tmp';
// Static: only the N-API entry points leave the addon; the engine's own symbols stay private to
// it. A version script rather than --exclude-libs, which `zig cc` (how `make dist` builds the
// prebuild for glibc 2.17) does not take.
const exportsMap = out + '.map';
if (linkStatic) {
  fs.writeFileSync(exportsMap, '{ global: napi_register_module_v1; node_api_module_get_api_version_v1; local: *; };\n');
}

// $ORIGIN-relative path from build/ to the library directory.
const originRel = path.relative(outDir, libDir);

const args = [
  '-std=gnu11',
  '-O2',
  '-g',
  '-Wall',
  '-Wextra',
  '-Werror',
  '-fPIC',
  '-shared',
  '-fvisibility=hidden',
  `-I${napiInclude}`,
  `-I${includeDir}`,
  path.join(here, 'src', 'addon.c'),
  ...(linkStatic
    ? // The engine inside the addon, its symbols kept private to it; unused code dropped.
      [libFile, '-lpthread', '-ldl', '-lm', '-lgcc_s', `-Wl,--version-script=${exportsMap}`, '-Wl,--gc-sections']
    : [`-L${libDir}`, '-loh_hooks', `-Wl,-rpath,${libDir}`, `-Wl,-rpath,$ORIGIN/${originRel}`]),
  '-o',
  tmp,
];

console.log([cc, ...args].map((a) => (/[\s$]/.test(a) ? `'${a}'` : a)).join(' '));
const r = spawnSync(cc, args, { stdio: 'inherit' });
if (linkStatic) fs.rmSync(exportsMap, { force: true });
if (r.error) fail(`could not run ${cc}: ${r.error.message}`);
if (r.status !== 0) fail(`${cc} exited with status ${r.status}`);
fs.renameSync(tmp, out); // atomic: a running test never loads a half-written addon
console.log(`built ${path.relative(process.cwd(), out) || out}`);
