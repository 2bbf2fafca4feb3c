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
