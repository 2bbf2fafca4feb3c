'use strict';
// fire() runs on the libuv pool: the event loop never blocks.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { inline, withHooks, OhHooksError } = require('./helpers');

const slow = (ms) => ({
  hooks: { preToolUse: [{ command: `sleep ${ms / 1000}; test "$OH_TOOL_NAME" != Bash` }] },
});

test('a 10 ms interval keeps ticking during a 300 ms hook fired with fire()', { timeout: 30000 }, () =>
  withHooks(inline(slow(300)), async (h) => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      const out = await h.fire({ event: 'preToolUse', toolName: 'Read' });
      assert.equal(out.allowed, true, JSON.stringify(out));
      assert.ok(out.hooks[0].durationMs >= 250, `durationMs ${out.hooks[0].durationMs}`);
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks >= 15, `the interval ticked ${ticks} times during the fire (expected >= 15)`);
  }));

test('several concurrent fire() calls run in parallel and each gets its own outcome', { timeout: 30000 }, () =>
  withHooks(inline(slow(400)), async (h) => {
    const tools = ['Bash', 'Read', 'Bash', 'Edit'];
    const started = Date.now();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    let outs;
    try {
      const promises = tools.map((toolName) => h.fire({ event: 'preToolUse', toolName }));
      assert.equal(h.pendingFires, tools.length);
      outs = await Promise.all(promises);
    } finally {
      clearInterval(timer);
    }
    const elapsed = Date.now() - started;
    assert.deepEqual(
      outs.map((o) => o.allowed),
      tools.map((t) => t !== 'Bash'),
    );
    for (const o of outs) assert.equal(o.hooks.length, 1);
    // Run one after another they would take >= 1600 ms.
    assert.ok(elapsed < 1200, `4 concurrent 400 ms fires took ${elapsed} ms`);
    assert.ok(ticks >= 20, `ticked ${ticks} times`);
    assert.equal(h.pendingFires, 0);
  }));

test('fireSync works while fire() calls are in flight', { timeout: 30000 }, () =>
  withHooks(inline(slow(300)), async (h) => {
    const pending = h.fire({ event: 'preToolUse', toolName: 'Bash' });
    const sync = h.fireSync({ event: 'preToolUse', toolName: 'Read' });
    assert.equal(sync.allowed, true);
    assert.equal((await pending).allowed, false);
  }));

test('close() with fires in flight: closed for new calls, pending fires still resolve', { timeout: 30000 }, async () => {
  const h = inline(slow(300));
  const p1 = h.fire({ event: 'preToolUse', toolName: 'Read' });
  const p2 = h.fire({ event: 'preToolUse', toolName: 'Bash' });
  h.close();
  assert.equal(h.closed, true);
  assert.equal(h.pendingFires, 2);
  assert.throws(() => h.fireSync({ event: 'preToolUse' }), (e) => e instanceof OhHooksError && e.code === 'closed');
  await assert.rejects(h.fire({ event: 'preToolUse' }), (e) => e instanceof OhHooksError && e.code === 'closed');
  h.close(); // still idempotent
  const [o1, o2] = await Promise.all([p1, p2]);
  assert.equal(o1.allowed, true);
  assert.equal(o2.allowed, false);
  assert.equal(h.pendingFires, 0);
});

test('an unreferenced instance is kept alive by its pending fire, and finalized safely by GC', { timeout: 30000 }, () => {
  // Run in a child with --expose-gc so gc() can be forced mid-fire.
  const script = `
    const { Hooks } = require(${JSON.stringify(path.join(__dirname, '..'))});
    const os = require('node:os');
    const opts = (cmd) => ({ cwd: os.tmpdir(), home: os.tmpdir(), trusted: true,
      config: { hooks: { preToolUse: [{ command: cmd }] } } });
    (async () => {
      // No reference kept to the instance: only the queued work holds it.
      const p = new Hooks(opts('sleep 0.3; exit 1')).fire({ event: 'preToolUse', toolName: 'Bash' });
      for (let i = 0; i < 10; i++) { gc(); await new Promise((r) => setTimeout(r, 20)); }
      const out = await p;
      // Instances dropped without close(): the finalizer frees them.
      for (let i = 0; i < 20; i++) new Hooks(opts('true')).fireSync({ event: 'preToolUse', toolName: 'x' });
      for (let i = 0; i < 5; i++) { gc(); await new Promise((r) => setTimeout(r, 10)); }
      process.stdout.write(JSON.stringify(out));
    })().catch((e) => { console.error(e); process.exit(1); });
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 20000 });
  assert.equal(r.status, 0, `child exited ${r.status} (signal ${r.signal}): ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  assert.equal(out.allowed, false);
  assert.equal(out.reason, 'hook denied (exit code)');
});
