'use strict';
// close() is awaitable and frees the engine off the event loop; closeSync() blocks; both
// dispose symbols; the loader's error for a platform without a prebuild.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Hooks, OhHooksError, inline, tmpDir } = require('./helpers');

// A non-blocking event whose hook runs in the background for `seconds`, touching `marker` at the end.
function background(seconds, marker) {
  return { hooks: { postToolUse: [{ command: `sleep ${seconds}; touch '${marker}'` }] } };
}

test('await close() waits for background hooks while the event loop keeps ticking', { timeout: 30000 }, async () => {
  const marker = path.join(tmpDir(), 'done');
  const h = inline(background(1, marker));
  const out = await h.fire({ event: 'postToolUse', toolName: 'Bash' });
  assert.equal(out.allowed, true);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const closing = h.close();
  assert.ok(closing instanceof Promise);
  assert.equal(h.closed, true, 'closed for new calls at once');
  assert.throws(() => h.fireSync({ event: 'preToolUse' }), (e) => e instanceof OhHooksError && e.code === 'closed');
  assert.equal(h.close(), closing, 'idempotent: the same promise');
  await closing;
  clearInterval(timer);
  assert.ok(fs.existsSync(marker), 'the background hook finished before close() resolved');
  // The hook sleeps 1 s: a blocked loop would have ticked ~0 times.
  assert.ok(ticks >= 20, `the event loop ran during close(): ${ticks} ticks`);
});

test('closeSync() frees at once, after which close() resolves', async () => {
  const marker = path.join(tmpDir(), 'done');
  const h = inline(background(0.2, marker));
  await h.fire({ event: 'postToolUse', toolName: 'Bash' });
  h.closeSync();
  assert.ok(fs.existsSync(marker), 'closeSync waited for the background hook');
  await h.close();
  h.closeSync(); // idempotent
});

test('close() with fires in flight lets them resolve first', { timeout: 30000 }, async () => {
  const h = inline({ hooks: { preToolUse: [{ command: 'sleep 0.3; exit 1', match: 'Bash' }] } });
  const p = h.fire({ event: 'preToolUse', toolName: 'Bash' });
  const closing = h.close();
  assert.equal((await p).allowed, false);
  await closing;
  assert.equal(h.pendingFires, 0);
});

test('Symbol.dispose and Symbol.asyncDispose close the instance', async () => {
  const a = inline({});
  a[Symbol.dispose]();
  assert.equal(a.closed, true);
  const b = inline({});
  await b[Symbol.asyncDispose]();
  assert.equal(b.closed, true);
});

test('no prebuild for this platform: the error names it and says how to build from source', () => {
  // A copy of the package with neither build/ nor prebuilds/ for this platform.
  const dir = tmpDir();
  const root = path.join(__dirname, '..');
  for (const f of ['index.js', 'package.json']) fs.copyFileSync(path.join(root, f), path.join(dir, f));
  fs.mkdirSync(path.join(dir, 'prebuilds', 'plan9-mips'), { recursive: true });
  const r = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(dir)})`], { encoding: 'utf8' });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, new RegExp(`no prebuilt addon for ${process.platform}-${process.arch}`));
  assert.match(r.stderr, /prebuilds for: plan9-mips/);
  assert.match(r.stderr, /cargo build --release/);
  assert.match(r.stderr, /ERR_OH_HOOKS_NO_PREBUILD/);
});
