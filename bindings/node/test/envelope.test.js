'use strict';
// Bad envelopes come back as outcomes with `error` set: data, not exceptions.
const test = require('node:test');
const assert = require('node:assert/strict');
const { inline, withHooks } = require('./helpers');

// A hook that would deny everything: it must never run for bad input.
const denyAll = { hooks: { preToolUse: [{ command: 'exit 1' }] } };

function assertErrorOutcome(outcome, code) {
  assert.deepEqual(Object.keys(outcome).sort(), ['allowed', 'error', 'hooks'], JSON.stringify(outcome));
  assert.equal(outcome.allowed, false);
  assert.deepEqual(outcome.hooks, []);
  assert.equal(outcome.error.code, code, JSON.stringify(outcome));
  assert.equal(typeof outcome.error.message, 'string');
  assert.ok(outcome.error.message.length > 0);
}

test('malformed JSON string is invalid_envelope (fireSync)', () =>
  withHooks(inline(denyAll), (h) => {
    assertErrorOutcome(h.fireSync('{not json'), 'invalid_envelope');
    assertErrorOutcome(h.fireSync(''), 'invalid_envelope');
  }));

test('malformed JSON string is invalid_envelope (fire resolves, does not reject)', () =>
  withHooks(inline(denyAll), async (h) => {
    assertErrorOutcome(await h.fire('{not json'), 'invalid_envelope');
  }));

test('missing or non-string event is invalid_envelope', () =>
  withHooks(inline(denyAll), async (h) => {
    assertErrorOutcome(h.fireSync({ toolName: 'Bash' }), 'invalid_envelope');
    assertErrorOutcome(h.fireSync({ event: 42 }), 'invalid_envelope');
    assertErrorOutcome(await h.fire({ event: null }), 'invalid_envelope');
  }));

test('envelope that is not an object is invalid_envelope', () =>
  withHooks(inline(denyAll), (h) => {
    assertErrorOutcome(h.fireSync([{ event: 'preToolUse' }]), 'invalid_envelope');
    assertErrorOutcome(h.fireSync('42'), 'invalid_envelope');
    assertErrorOutcome(h.fireSync(null), 'invalid_envelope');
    assertErrorOutcome(h.fireSync(undefined), 'invalid_envelope');
  }));

test('unknown event (wrong case) is unknown_event', () =>
  withHooks(inline(denyAll), async (h) => {
    assertErrorOutcome(h.fireSync({ event: 'PreToolUse', toolName: 'Bash' }), 'unknown_event');
    assertErrorOutcome(await h.fire({ event: 'noSuchEvent' }), 'unknown_event');
  }));

test('JSON nested past the recursion limit is invalid_envelope, not a crash', () =>
  withHooks(inline(denyAll), (h) => {
    const depth = 100000;
    const raw = '{"event":"preToolUse","x":' + '['.repeat(depth) + ']'.repeat(depth) + '}';
    assertErrorOutcome(h.fireSync(raw), 'invalid_envelope');
  }));

test('a raw string with a NUL character is refused before the C ABI', () =>
  withHooks(inline(denyAll), async (h) => {
    assert.throws(() => h.fireSync('{"event":"preToolUse"}\u0000garbage'), TypeError);
    await assert.rejects(h.fire('{"event":"preToolUse"}\u0000'), TypeError);
    // In an object the NUL is escaped by JSON.stringify and reaches the engine.
    const out = h.fireSync({ event: 'preToolUse', toolName: 'a\u0000b' });
    assert.equal(out.error, undefined, JSON.stringify(out));
    // docs/envelope.md "The envelope": the hook fails like a spawn failure and its trace names the NUL.
    assert.equal(out.allowed, false);
    assert.equal(out.reason, 'hook denied (exit code)');
    assert.match(out.hooks[0].error || '', /NUL/i, JSON.stringify(out));
  }));

test('an envelope that cannot be serialized rejects with TypeError', () =>
  withHooks(inline(denyAll), async (h) => {
    assert.throws(() => h.fireSync({ event: 'preToolUse', n: 1n }), TypeError);
    await assert.rejects(h.fire({ event: 'preToolUse', n: 1n }), TypeError);
  }));

// fireSync builds the no-match outcome itself (the addon does not hand it over as text): it must
// be what the engine's text parses to, and a new object each call.
test('the no-match outcome of fireSync is the engine\'s, a new object each time', () =>
  withHooks(inline({ hooks: { postToolUse: [{ command: 'true' }] } }), async (h) => {
    const a = h.fireSync({ event: 'preToolUse', toolName: 'Bash' });
    assert.deepEqual(a, JSON.parse('{"allowed":true,"hooks":[]}'));
    assert.deepEqual(Object.keys(a), ['allowed', 'hooks']);
    assert.deepEqual(a, await h.fire({ event: 'preToolUse', toolName: 'Bash' }));
    a.allowed = false;
    a.hooks.push(1);
    assert.deepEqual(h.fireSync('{"event":"preToolUse"}'), { allowed: true, hooks: [] });
  }));

// Envelopes are read into a 4 KiB buffer when they fit: text of every length around its end,
// with characters of 1 to 4 bytes in UTF-8 at the boundary, reaches the engine whole.
test('envelopes around the 4 KiB read buffer reach the engine whole', () => {
  const hooks = inline({ hooks: { preToolUse: [{ callback: 'echo' }] } });
  let seen = null;
  hooks.register('echo', (env) => {
    seen = env.prompt;
    return null;
  });
  return withHooks(hooks, () => {
    for (const ch of ['a', 'é', '✓', '😀', '\ud800']) {
      for (let len = 4060; len <= 4100; len++) {
        const head = '{"event":"preToolUse","prompt":"';
        const pad = Math.max(0, len - head.length - 2 - Buffer.byteLength(ch));
        const prompt = 'x'.repeat(pad) + ch;
        seen = null;
        const out = hooks.fireSync(head + prompt + '"}');
        assert.equal(out.hooks.length, 1, JSON.stringify(out));
        // A lone surrogate in raw text becomes U+FFFD in UTF-8; JSON.stringify escapes it.
        assert.ok(seen === (ch === '\ud800' ? 'x'.repeat(pad) + '\ufffd' : prompt), `length ${len}, ${ch}`);
        seen = null;
        hooks.fireSync({ event: 'preToolUse', prompt });
        assert.ok(seen === prompt, `length ${len}, ${ch} in an object`);
      }
    }
  });
});
