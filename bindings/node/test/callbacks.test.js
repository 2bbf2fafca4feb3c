'use strict';
// Host callbacks: register(name, fn), the prompt evaluator, onDecision, and fire() on the engine's
// own threads with AbortSignal cancellation.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { inline, tmpDir, withHooks, OhHooksError } = require('./helpers');

const cb = (name, extra = {}) => ({ callback: name, ...extra });
const pre = (...entries) => ({ hooks: { preToolUse: entries } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('fireSync calls a synchronous callback on the calling thread with the envelope', () =>
  withHooks(inline(pre(cb('canUseTool'))), (h) => {
    const seen = [];
    h.register('canUseTool', (env) => {
      seen.push(env);
      return env.toolName === 'Bash' ? { decision: 'deny', reason: 'no shell' } : null;
    });
    const denied = h.fireSync({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'ls', extra: { a: [1, 2] } });
    assert.equal(denied.allowed, false);
    assert.equal(denied.reason, 'no shell');
    assert.equal(denied.hooks.length, 1);
    assert.equal(denied.hooks[0].type, 'callback');
    assert.equal(denied.hooks[0].result, 'deny');
    const allowed = h.fireSync({ event: 'preToolUse', toolName: 'Read' });
    assert.equal(allowed.allowed, true);
    assert.equal(allowed.hooks[0].result, 'none');
    // What the function got is exactly the envelope, unknown fields included.
    assert.deepEqual(seen, [
      { event: 'preToolUse', toolName: 'Bash', toolArgs: 'ls', extra: { a: [1, 2] } },
      { event: 'preToolUse', toolName: 'Read' },
    ]);
  }));

test('a callback answer is read like a jsonIO response (permission decision, context)', () =>
  withHooks(inline(pre(cb('ctx'), cb('perm'))), (h) => {
    h.register('ctx', () => ({ hookSpecificOutput: { additionalContext: 'from ctx' } }));
    h.register('perm', (env) => ({
      hookSpecificOutput: { decision: env.toolName === 'Read' ? 'allow' : 'ask', additionalContext: 'from perm' },
    }));
    const a = h.fireSync({ event: 'preToolUse', toolName: 'Read' });
    assert.equal(a.allowed, true);
    assert.equal(a.permissionDecision, 'allow');
    assert.equal(a.additionalContext, 'from ctx\n\nfrom perm');
    const b = h.fireSync({ event: 'preToolUse', toolName: 'Edit' });
    assert.equal(b.permissionDecision, 'ask');
    assert.deepEqual(b.hooks.map((t) => t.result), ['none', 'ask']);
  }));

test('fire() awaits a callback that answers with a Promise', { timeout: 30000 }, () =>
  withHooks(inline(pre(cb('slow', { timeout: 5000 }))), async (h) => {
    h.register('slow', async (env) => {
      await sleep(50);
      return { decision: 'deny', reason: `async says no to ${env.toolName}` };
    });
    const out = await h.fire({ event: 'preToolUse', toolName: 'Bash' });
    assert.equal(out.allowed, false);
    assert.equal(out.reason, 'async says no to Bash');
    assert.ok(out.hooks[0].durationMs >= 40, `durationMs ${out.hooks[0].durationMs}`);
  }));

test('fire() with a synchronous callback, many at once', { timeout: 30000 }, () =>
  withHooks(inline(pre(cb('c'))), async (h) => {
    let calls = 0;
    h.register('c', (env) => {
      calls++;
      return env.n % 2 ? { decision: 'deny', reason: `odd ${env.n}` } : {};
    });
    const outs = await Promise.all(Array.from({ length: 50 }, (_, n) => h.fire({ event: 'preToolUse', n })));
    assert.deepEqual(outs.map((o) => o.allowed), Array.from({ length: 50 }, (_, n) => n % 2 === 0));
    assert.equal(outs[7].reason, 'odd 7');
    assert.equal(calls, 50);
    assert.equal(h.pendingFires, 0);
  }));

test('fireSync with a callback that returns a Promise throws a clear error instead of waiting', { timeout: 30000 }, () =>
  withHooks(inline(pre(cb('p', { timeout: 20000 }))), async (h) => {
    let unhandled = null;
    const onUnhandled = (e) => (unhandled = e);
    process.on('unhandledRejection', onUnhandled);
    try {
      h.register('p', async () => {
        throw new Error('never seen');
      });
      const started = Date.now();
      assert.throws(
        () => h.fireSync({ event: 'preToolUse', toolName: 'Bash' }),
        (e) => e instanceof OhHooksError && e.code === 'promise_in_fire_sync' && /"p" returned a Promise/.test(e.message) &&
          /await hooks\.fire\(\)/.test(e.message),
      );
      assert.ok(Date.now() - started < 5000, 'fireSync waited for the hook timeout');
      await sleep(20);
      assert.equal(unhandled, null, `unhandled rejection: ${unhandled}`);
      // The same function through fire() works, and the instance is still usable for fireSync.
      const out = await h.fire({ event: 'preToolUse', toolName: 'Bash' });
      assert.equal(out.allowed, false);
      assert.match(out.reason, /its Promise rejected with Error: never seen/);
      h.register('p', () => null);
      assert.equal(h.fireSync({ event: 'preToolUse' }).allowed, true);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }));

test('a callback that throws, rejects or returns a non-object fails the hook (deny, text in the trace)', { timeout: 30000 }, () =>
  withHooks(inline(pre(cb('bad'))), async (h) => {
    h.register('bad', () => {
      throw new TypeError('boom');
    });
    const s = h.fireSync({ event: 'preToolUse' });
    assert.equal(s.allowed, false);
    assert.equal(s.hooks[0].result, 'deny');
    assert.equal(s.reason, 'callback "bad" failed: it threw TypeError: boom');
    const a = await h.fire({ event: 'preToolUse' });
    assert.equal(a.reason, 'callback "bad" failed: it threw TypeError: boom');

    h.register('bad', () => Promise.reject(new RangeError('nope')));
    const r = await h.fire({ event: 'preToolUse' });
    assert.equal(r.allowed, false);
    assert.equal(r.reason, 'callback "bad" failed: its Promise rejected with RangeError: nope');

    for (const [value, what] of [['deny', 'string'], [42, 'number'], [[1], 'an array'], [true, 'boolean']]) {
      h.register('bad', () => value);
      const o = h.fireSync({ event: 'preToolUse' });
      assert.equal(o.allowed, false, `returning ${JSON.stringify(value)} must fail closed`);
      assert.match(o.reason, new RegExp(`it returned ${what}`));
    }
    const cyclic = {};
    cyclic.self = cyclic;
    h.register('bad', () => cyclic);
    assert.match(h.fireSync({ event: 'preToolUse' }).reason, /cannot be serialized to JSON/);
    h.register('bad', () => ({ decision: 1n }));
    assert.match(h.fireSync({ event: 'preToolUse' }).reason, /cannot be serialized to JSON/);
  }));

test('a callback that never answers fails like a timed-out hook, and a late answer is dropped', { timeout: 30000 }, () =>
  withHooks(inline(pre(cb('never', { timeout: 200 }))), async (h) => {
    let late;
    h.register('never', () => new Promise((resolve) => (late = resolve)));
    const started = Date.now();
    const out = await h.fire({ event: 'preToolUse', toolName: 'Bash' });
    const took = Date.now() - started;
    assert.equal(out.allowed, false);
    assert.equal(out.hooks[0].result, 'deny');
    assert.ok(took >= 180 && took < 3000, `took ${took} ms for a 200 ms timeout`);
    late({ hookSpecificOutput: { decision: 'allow' } }); // after the timeout: ignored, no crash
    await sleep(20);
    const again = await h.fire({ event: 'preToolUse' });
    assert.equal(again.allowed, false);
  }));

test('no registered function: the hook fails with "no callback registered for <name>"; null removes one', () =>
  withHooks(inline(pre(cb('missing'))), (h) => {
    const out = h.fireSync({ event: 'preToolUse' });
    assert.equal(out.allowed, false);
    assert.match(out.reason, /no callback registered for missing/);
    h.register('missing', () => ({ decision: 'allow' }));
    assert.equal(h.fireSync({ event: 'preToolUse' }).allowed, true);
    h.register('missing', null);
    assert.match(h.fireSync({ event: 'preToolUse' }).reason, /no callback registered for missing/);
    assert.throws(() => h.register('', () => null), TypeError);
    assert.throws(() => h.register('x', 'not a function'), TypeError);
    assert.throws(() => h.register('a\0b', () => null), TypeError);
  }));

test('register() replaces: the newest function answers', () =>
  withHooks(inline(pre(cb('c'))), (h) => {
    h.register('c', () => ({ decision: 'deny', reason: 'first' }));
    assert.equal(h.fireSync({ event: 'preToolUse' }).reason, 'first');
    h.register('c', () => ({ decision: 'deny', reason: 'second' }));
    assert.equal(h.fireSync({ event: 'preToolUse' }).reason, 'second');
  }));

test('the prompt evaluator: register("prompt", fn) answers prompt hooks', { timeout: 30000 }, () =>
  withHooks(inline(pre({ prompt: 'Is this command safe?' })), async (h) => {
    const noEval = h.fireSync({ event: 'preToolUse', toolName: 'Bash' });
    assert.equal(noEval.reason, 'prompt hook has no evaluator');
    const asked = [];
    h.register('prompt', async (req) => {
      asked.push(req);
      const safe = !/rm -rf/.test(req.envelope.toolArgs);
      return safe ? { decision: 'allow' } : { decision: 'deny', reason: `model: unsafe (${req.prompt})` };
    });
    const bad = await h.fire({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'rm -rf /' });
    assert.equal(bad.allowed, false);
    assert.equal(bad.reason, 'model: unsafe (Is this command safe?)');
    assert.equal(bad.hooks[0].type, 'prompt');
    const good = await h.fire({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'ls' });
    assert.equal(good.allowed, true);
    assert.deepEqual(asked[0], {
      prompt: 'Is this command safe?',
      envelope: { event: 'preToolUse', toolName: 'Bash', toolArgs: 'rm -rf /' },
    });
  }));

test('a callback may fire on the same engine (re-entrancy), sync and async', { timeout: 30000 }, () =>
  withHooks(inline({ hooks: { preToolUse: [cb('outer')], userPromptSubmit: [cb('inner')] } }), async (h) => {
    h.register('inner', (env) => (env.prompt === 'bad' ? { decision: 'deny', reason: 'inner' } : null));
    h.register('outer', (env) => {
      const o = h.fireSync({ event: 'userPromptSubmit', prompt: env.toolArgs });
      return o.allowed ? null : { decision: 'deny', reason: `outer saw: ${o.reason}` };
    });
    assert.equal(h.fireSync({ event: 'preToolUse', toolArgs: 'bad' }).reason, 'outer saw: inner');
    assert.equal((await h.fire({ event: 'preToolUse', toolArgs: 'bad' })).reason, 'outer saw: inner');
    h.register('outer', async (env) => {
      const o = await h.fire({ event: 'userPromptSubmit', prompt: env.toolArgs });
      return o.allowed ? null : { decision: 'deny', reason: `outer saw: ${o.reason}` };
    });
    assert.equal((await h.fire({ event: 'preToolUse', toolArgs: 'bad' })).reason, 'outer saw: inner');
    assert.equal((await h.fire({ event: 'preToolUse', toolArgs: 'ok' })).allowed, true);
  }));

test('AbortSignal cancels the fire in the engine: the running hook is killed', { timeout: 30000 }, () => {
  const dir = tmpDir();
  const marker = path.join(dir, 'finished');
  return withHooks(inline(pre({ command: `sleep 3; touch '${marker}'` })), async (h) => {
    const ac = new AbortController();
    const p = h.fire({ event: 'preToolUse', toolName: 'Bash' }, { signal: ac.signal });
    await sleep(150);
    const started = Date.now();
    ac.abort(new Error('user pressed stop'));
    await assert.rejects(p, (e) => {
      assert.equal(e.name, 'AbortError');
      assert.equal(e.code, 'ABORT_ERR');
      assert.equal(e.cause.message, 'user pressed stop');
      assert.equal(e.outcome.allowed, false);
      assert.equal(e.outcome.error.code, 'cancelled');
      return true;
    });
    assert.ok(Date.now() - started < 2000, `the abort took ${Date.now() - started} ms`);
    assert.equal(h.pendingFires, 0);
    await sleep(3500);
    assert.equal(fs.existsSync(marker), false, 'the cancelled hook kept running');
  });
});

test('AbortSignal: aborted before the call, after the answer, and while a callback is pending', { timeout: 30000 }, () =>
  withHooks(inline(pre(cb('never', { timeout: 20000 }))), async (h) => {
    let calls = 0;
    h.register('never', () => {
      calls++;
      return new Promise(() => {});
    });
    const pre = AbortSignal.abort();
    await assert.rejects(h.fire({ event: 'preToolUse' }, { signal: pre }), { name: 'AbortError' });
    assert.equal(calls, 0, 'an already-aborted fire must not run');

    const ac = new AbortController();
    const p = h.fire({ event: 'preToolUse' }, { signal: ac.signal });
    await sleep(50);
    assert.equal(calls, 1);
    const started = Date.now();
    ac.abort();
    await assert.rejects(p, { name: 'AbortError' });
    assert.ok(Date.now() - started < 2000, 'a pending callback held the cancel');

    h.register('never', () => ({ decision: 'deny', reason: 'quick' }));
    const ac2 = new AbortController();
    const out = await h.fire({ event: 'preToolUse' }, { signal: ac2.signal });
    ac2.abort(); // after the answer: nothing happens
    assert.equal(out.reason, 'quick');
    await assert.rejects(h.fire({ event: 'preToolUse' }, { signal: 'nope' }), TypeError);
  }));

test('onDecision gets one record per fire, background hooks included', { timeout: 30000 }, () =>
  withHooks(
    inline({ hooks: { preToolUse: [cb('c')], postToolUse: [{ command: 'sleep 0.2; exit 3' }, cb('bg')] } }),
    async (h) => {
      const records = [];
      let bgCalls = 0;
      h.register('c', (env) => (env.toolName === 'Bash' ? { decision: 'deny', reason: 'no' } : null));
      h.register('bg', async () => {
        bgCalls++;
        return { hookSpecificOutput: { additionalContext: 'bg ran' } };
      });
      h.onDecision((r) => records.push(r));
      const s = h.fireSync({ event: 'preToolUse', toolName: 'Bash' });
      assert.equal(records.length, 0, 'the observer never runs inside fireSync');
      const a = await h.fire({ event: 'preToolUse', toolName: 'Read' });
      const bg = await h.fire({ event: 'postToolUse', toolName: 'Read' });
      assert.deepEqual(bg.hooks, [], 'a non-blocking fire returns before its hooks ran');
      const deadline = Date.now() + 10000;
      while (records.length < 3 && Date.now() < deadline) await sleep(20);
      assert.equal(records.length, 3, JSON.stringify(records));
      const byEvent = (ev, tool) => records.find((r) => r.envelope.event === ev && r.envelope.toolName === tool);
      assert.deepEqual(byEvent('preToolUse', 'Bash').outcome, s);
      assert.deepEqual(byEvent('preToolUse', 'Read').outcome, a);
      const post = byEvent('postToolUse', 'Read');
      assert.equal(post.outcome.allowed, true);
      assert.deepEqual(post.outcome.hooks.map((t) => [t.type, t.result]), [['command', 'deny'], ['callback', 'none']]);
      assert.equal(post.outcome.hooks[0].exitCode, 3);
      assert.equal(bgCalls, 1);

      // An observer that throws does not break anything; null stops observing.
      const warnings = [];
      const onWarning = (w) => warnings.push(w);
      process.on('warning', onWarning);
      try {
        h.onDecision(() => {
          throw new Error('audit log full');
        });
        await h.fire({ event: 'preToolUse', toolName: 'Read' });
        await sleep(50);
        assert.ok(warnings.some((w) => /audit log full/.test(w.message)), warnings.map(String).join('; '));
      } finally {
        process.off('warning', onWarning);
      }
      h.onDecision(null);
      const before = records.length;
      await h.fire({ event: 'preToolUse', toolName: 'Read' });
      await sleep(50);
      assert.equal(records.length, before);
      assert.throws(() => h.onDecision('x'), TypeError);
    },
  ));

test('close() with fires in flight: their callbacks still answer, promises settle', { timeout: 30000 }, async () => {
  const h = inline(pre(cb('slow', { timeout: 5000 })));
  h.register('slow', async () => {
    await sleep(100);
    return { decision: 'deny', reason: 'late but in time' };
  });
  const p = h.fire({ event: 'preToolUse' });
  const closing = h.close();
  assert.equal(h.closed, true);
  assert.throws(() => h.register('x', () => null), (e) => e.code === 'closed');
  assert.throws(() => h.onDecision(() => {}), (e) => e.code === 'closed');
  const out = await p;
  assert.equal(out.reason, 'late but in time');
  await closing;
  assert.equal(h.pendingFires, 0);
});

for (const how of ['close', 'closeSync']) {
  test(`${how}() does not wait for a background callback that never answers`, { timeout: 30000 }, async () => {
    const h = inline({ hooks: { postToolUse: [cb('stuck', { timeout: 20000 })] } });
    let called = false;
    h.register('stuck', () => {
      called = true;
      return new Promise(() => {});
    });
    const records = [];
    h.onDecision((r) => records.push(r));
    await h.fire({ event: 'postToolUse' });
    const deadline = Date.now() + 5000;
    while (!called && Date.now() < deadline) await sleep(10);
    assert.ok(called);
    const started = Date.now();
    await h[how]();
    assert.ok(Date.now() - started < 3000, `${how}() took ${Date.now() - started} ms`);
    while (records.length < 1 && Date.now() < deadline) await sleep(10);
    // The record of that background hook still reaches the observer, with the failure.
    assert.equal(records.length, 1);
    assert.equal(records[0].outcome.hooks[0].type, 'callback');
    assert.match(records[0].outcome.hooks[0].reason ?? records[0].outcome.hooks[0].error ?? '', /closed/);
  });
}

test('closing from inside a fireSync callback: closeSync() is refused, close() happens after fireSync returns', () =>
  withHooks(inline(pre(cb('c'))), async (h) => {
    let err;
    h.register('c', () => {
      try {
        h.closeSync();
      } catch (e) {
        err = e;
      }
      return null;
    });
    assert.equal(h.fireSync({ event: 'preToolUse' }).allowed, true);
    assert.equal(err.code, 'closed_in_callback');
    assert.equal(h.closed, false);
    let closing;
    h.register('c', () => {
      closing = h.close();
      return { decision: 'deny', reason: 'closing' };
    });
    assert.equal(h.fireSync({ event: 'preToolUse' }).reason, 'closing');
    assert.equal(h.closed, true);
    await closing;
    assert.throws(() => h.fireSync({ event: 'preToolUse' }), (e) => e.code === 'closed');
  }));

test('registered callbacks and observers neither keep the process alive nor leak when never closed', { timeout: 30000 }, () => {
  const script = `
    const { Hooks } = require(${JSON.stringify(path.join(__dirname, '..'))});
    const os = require('node:os');
    const mk = () => new Hooks({ cwd: os.tmpdir(), home: os.tmpdir(), trusted: true,
      config: { hooks: { preToolUse: [{ callback: 'c' }], postToolUse: [{ callback: 'c' }] } } });
    (async () => {
      for (let i = 0; i < 30; i++) {
        const h = mk();
        h.register('c', (env) => (env.event === 'preToolUse' ? { decision: 'deny', reason: 'x' } : null));
        h.onDecision(() => {});
        if (h.fireSync({ event: 'preToolUse' }).allowed) throw new Error('not denied');
        if ((await h.fire({ event: 'preToolUse' })).allowed) throw new Error('not denied');
        await h.fire({ event: 'postToolUse' });
      }
      for (let i = 0; i < 5; i++) { gc(); await new Promise((r) => setTimeout(r, 20)); }
      const kept = mk();
      kept.register('c', () => null); // still registered, never closed: the process must exit anyway
      process.stdout.write('ok');
    })().catch((e) => { console.error(e); process.exit(1); });
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 20000 });
  assert.equal(r.status, 0, `child exited ${r.status} (signal ${r.signal}): ${r.stderr}`);
  assert.equal(r.stdout, 'ok');
});

test('RawResponse passes response text through unchanged (malformed text is malformed)', () =>
  withHooks(inline(pre(cb('raw')), { strict: true }), (h) => {
    const { RawResponse } = require('./helpers');
    h.register('raw', () => new RawResponse('{"decision":"deny","reason":"relayed"}'));
    assert.equal(h.fireSync({ event: 'preToolUse' }).reason, 'relayed');
    h.register('raw', () => new RawResponse('{"decision": '));
    const out = h.fireSync({ event: 'preToolUse' });
    assert.equal(out.allowed, false);
    assert.equal(out.reason, 'malformed hook response');
    h.register('raw', () => new RawResponse(''));
    assert.equal(h.fireSync({ event: 'preToolUse' }).allowed, true, 'blank text is no decision');
    h.register('raw', () => new RawResponse('a\0b'));
    assert.match(h.fireSync({ event: 'preToolUse' }).reason, /NUL/);
    assert.throws(() => new RawResponse(42), TypeError);
  }));

test('waitNonBlocking: fireSync of a non-blocking event serves its callback hooks, and so does fire()', { timeout: 30000 }, () =>
  withHooks(inline({ hooks: { postToolUse: [cb('audit', { timeout: 300 })] } }, { waitNonBlocking: true }), async (h) => {
    let calls = 0;
    h.register('audit', () => {
      calls++;
      return { hookSpecificOutput: { additionalContext: 'audited' } };
    });
    const s = h.fireSync({ event: 'postToolUse' });
    assert.equal(s.hooks[0].timedOut, false, JSON.stringify(s));
    assert.equal(s.additionalContext, 'audited');
    const a = await h.fire({ event: 'postToolUse' });
    assert.equal(a.hooks[0].timedOut, false, JSON.stringify(a));
    assert.equal(a.additionalContext, 'audited');
    assert.equal(calls, 2);
  }));
