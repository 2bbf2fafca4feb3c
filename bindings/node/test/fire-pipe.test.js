'use strict';
// await fire() completes through the engine's completion pipe (oh_hooks_fire_async_fd, watched
// by a uv_poll_t on the event loop): many fires at once, cancellation among them, more fires in
// one turn than the engine queues, the process exiting by itself, closing with fires in flight,
// and worker threads torn down mid-fire.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { inline, withHooks, OhHooksError } = require('./helpers');

const bindingDir = path.join(__dirname, '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Runs `script` in a fresh node (the binding's directory in `BINDING`); resolves with its exit
// code, signal, output and how long it ran. A child still running after `limitMs` is killed and
// reported as such (signal SIGKILL), so a process that cannot exit fails the test, not hangs it.
function runNode(script, limitMs = 15000, args = []) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [...args, '-e', `const BINDING = ${JSON.stringify(bindingDir)};\n${script}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

test('200 concurrent fire() calls each resolve to their own outcome', { timeout: 30000 }, () =>
  withHooks(inline({ hooks: { preToolUse: [{ callback: 'judge' }] } }), async (h) => {
    // The callback's answer names the fire, so a mixed-up completion shows.
    h.register('judge', async (env) => {
      await sleep(env.n % 7);
      return env.n % 3 === 0 ? { decision: 'deny', reason: `no ${env.n}` } : null;
    });
    const n = 200;
    const promises = [];
    for (let i = 0; i < n; i++) promises.push(h.fire({ event: 'preToolUse', toolName: `T${i}`, n: i }));
    assert.equal(h.pendingFires, n);
    const outs = await Promise.all(promises);
    outs.forEach((o, i) => {
      assert.equal(o.error, undefined, JSON.stringify(o));
      assert.equal(o.allowed, i % 3 !== 0, `fire ${i}: ${JSON.stringify(o)}`);
      if (i % 3 === 0) assert.equal(o.reason, `no ${i}`);
    });
    assert.equal(h.pendingFires, 0);
  }));

test('cancelling one of many concurrent fires rejects only that one with AbortError', { timeout: 30000 }, () =>
  withHooks(inline({ hooks: { preToolUse: [{ command: 'sleep 0.3; test "$OH_TOOL_NAME" != Bash' }] } }), async (h) => {
    const ac = new AbortController();
    const tools = ['Read', 'Bash', 'Edit', 'Bash', 'Read'];
    const promises = tools.map((toolName, i) =>
      h.fire({ event: 'preToolUse', toolName }, i === 2 ? { signal: ac.signal } : undefined),
    );
    await sleep(50);
    ac.abort();
    const settled = await Promise.allSettled(promises);
    settled.forEach((s, i) => {
      if (i === 2) {
        assert.equal(s.status, 'rejected');
        assert.equal(s.reason.name, 'AbortError');
        assert.equal(s.reason.outcome.error.code, 'cancelled');
      } else {
        assert.equal(s.status, 'fulfilled', `fire ${i}: ${s.reason}`);
        assert.equal(s.value.allowed, tools[i] !== 'Bash', `fire ${i}: ${JSON.stringify(s.value)}`);
      }
    });
    assert.equal(h.pendingFires, 0);
  }));

test('70,000 fires in one turn: all settle, those past the engine queue with its own error', { timeout: 60000 }, () =>
  // More records than a 1 MiB pipe holds, so fire() must drain the pipe itself: an engine thread
  // that waited on a full pipe would hold the JS thread (a refused fire's record is written on it).
  withHooks(inline({ hooks: { postToolUse: [{ command: 'true' }] } }), async (h) => {
    const n = 70000;
    const promises = new Array(n);
    for (let i = 0; i < n; i++) promises[i] = h.fire({ event: 'preToolUse', toolName: 'Read' });
    const outs = await Promise.all(promises);
    let ok = 0;
    let refused = 0;
    for (const o of outs) {
      if (o.error === undefined) {
        assert.equal(o.allowed, true);
        ok++;
      } else {
        assert.equal(o.error.code, 'internal', JSON.stringify(o));
        refused++;
      }
    }
    assert.equal(ok + refused, n);
    assert.ok(ok >= 4096, `only ${ok} fires ran`);
    assert.equal(h.pendingFires, 0);
    // Still usable afterwards.
    assert.equal((await h.fire({ event: 'preToolUse', toolName: 'Read' })).allowed, true);
  }));

test('the process exits by itself once no fire is pending (instances left open)', { timeout: 30000 }, async () => {
  const r = await runNode(`
    const { Hooks } = require(BINDING);
    const opts = { cwd: '/tmp', trusted: true, config: { hooks: { preToolUse: [{ command: 'sleep 0.3' }] } } };
    const h = new Hooks(opts);
    const idle = new Hooks(opts); // never fired
    // Registrations and an observer do not keep the process alive either.
    h.register('judge', () => null);
    h.onDecision(() => {});
    h.fire({ event: 'preToolUse', toolName: 'Read' }).then((o) => {
      process.stdout.write('resolved ' + o.allowed);
    });
  `);
  assert.equal(r.signal, null, `the child did not exit by itself (killed after ${r.ms} ms): ${r.stderr}`);
  assert.equal(r.code, 0, r.stderr);
  // The pending fire kept the process alive until it resolved.
  assert.equal(r.stdout, 'resolved true');
  assert.ok(r.ms < 10000, `the child took ${r.ms} ms to exit`);
});

test('closeSync() with fires in flight: they resolve, then the engine is released', { timeout: 30000 }, async () => {
  const h = inline({ hooks: { preToolUse: [{ command: 'sleep 0.2; test "$OH_TOOL_NAME" != Bash' }] } });
  const p1 = h.fire({ event: 'preToolUse', toolName: 'Read' });
  const p2 = h.fire({ event: 'preToolUse', toolName: 'Bash' });
  h.closeSync();
  assert.equal(h.closed, true);
  await assert.rejects(h.fire({ event: 'preToolUse' }), (e) => e instanceof OhHooksError && e.code === 'closed');
  assert.equal((await p1).allowed, true);
  assert.equal((await p2).allowed, false);
  assert.equal(h.pendingFires, 0);
});

test('worker threads: fires complete in a worker, and a worker terminated mid-fire tears down cleanly', { timeout: 30000 }, async () => {
  const r = await runNode(`
    const { Worker } = require('node:worker_threads');
    const body = \`
      const { parentPort } = require('node:worker_threads');
      const { Hooks } = require(\${JSON.stringify(BINDING)});
      const h = new Hooks({ cwd: '/tmp', trusted: true,
        config: { hooks: { preToolUse: [{ command: 'sleep 0.2; test "$OH_TOOL_NAME" != Bash' }] } } });
      (async () => {
        const a = await h.fire({ event: 'preToolUse', toolName: 'Bash' });
        parentPort.postMessage('first ' + a.allowed);
        // Left in flight: the worker is terminated (or ends) while these run.
        for (let i = 0; i < 5; i++) h.fire({ event: 'preToolUse', toolName: 'Read' });
        parentPort.postMessage('fired');
      })();
    \`;
    (async () => {
      for (const how of ['terminate', 'exit']) {
        const w = new Worker(body, { eval: true });
        const got = [];
        await new Promise((resolve, reject) => {
          w.on('message', (m) => {
            got.push(m);
            if (m === 'fired' && how === 'terminate') w.terminate();
          });
          w.on('error', reject);
          w.on('exit', resolve);
        });
        console.log(how, got.join(','));
      }
    })();
  `);
  assert.equal(r.signal, null, `the child was killed after ${r.ms} ms: ${r.stderr}`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'terminate first false,fired\nexit first false,fired\n');
});
