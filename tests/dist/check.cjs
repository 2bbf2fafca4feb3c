// tests/dist.sh's Node harness (CommonJS): run in a fresh app that installed the npm tarball.
// argv: options JSON file, expected version, suite name.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { Hooks, OhHooksError, version } = require('oh-hooks');

let passed = 0;
let failed = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (ok) passed++;
  else failed++;
}

(async () => {
  const [optionsFile, expected, suite] = process.argv.slice(2);
  const options = JSON.parse(fs.readFileSync(optionsFile, 'utf8'));
  check(version === expected, `version is the packaged version (${version})`);
  const pkgDir = path.dirname(require.resolve('oh-hooks/package.json'));
  check(pkgDir.startsWith(path.join(process.cwd(), 'node_modules')), `loaded from the app's node_modules (${pkgDir})`);
  check(!fs.existsSync(path.join(pkgDir, 'build')), 'no addon was built at install: the prebuild is used');
  const hooks = new Hooks(options);
  check((await hooks.fire({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'ls' })).allowed, 'the hook allows `ls`');
  const out = await hooks.fire({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'rm -rf /' });
  check(!out.allowed && out.hooks[0].result === 'deny', 'the hook denies `rm -rf /`');
  check(hooks.fireSync({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'ls' }).allowed, 'fireSync allows `ls`');
  const closing = hooks.close();
  check(closing instanceof Promise, 'close() returns a promise');
  await closing;
  check(hooks.closed, 'closed after await close()');
  try {
    new Hooks({ defaultTimeout: 5 });
    check(false, 'a misspelt option is refused');
  } catch (e) {
    check(e instanceof OhHooksError && /defaultTimeoutMs/.test(e.message), 'a misspelt option is refused with a suggestion');
  }
  console.log(`${suite}: ${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
})().catch((e) => {
  console.log(`FAIL ${e.stack}`);
  console.log(`${process.argv[4]}: ${passed} passed, ${failed + 1} failed`);
  process.exitCode = 1;
});
