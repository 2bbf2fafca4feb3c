'use strict';
// Real allow/deny decisions through command hooks (env mode and jsonIO).
const test = require('node:test');
const assert = require('node:assert/strict');
const { inline, withHooks, stripDurations } = require('./helpers');

const gateBash = {
  hooks: {
    preToolUse: [{ command: 'test "$OH_TOOL_NAME" != Bash' }],
  },
};

test('env-mode preToolUse: exit 0 allows, exit 1 denies', () =>
  withHooks(inline(gateBash), async (h) => {
    const allowed = h.fireSync({ event: 'preToolUse', toolName: 'Read' });
    assert.deepEqual(stripDurations(allowed), {
      allowed: true,
      hooks: [{ index: 0, type: 'command', exitCode: 0, timedOut: false, result: 'none' }],
    });
    assert.equal(typeof allowed.hooks[0].durationMs, 'number');

    const denied = await h.fire({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'rm -rf /' });
    assert.deepEqual(stripDurations(denied), {
      allowed: false,
      reason: 'hook denied (exit code)',
      hooks: [{ index: 0, type: 'command', exitCode: 1, timedOut: false, result: 'deny', reason: 'hook denied (exit code)' }],
    });
  }));

test('fireSync and fire agree', () =>
  withHooks(inline(gateBash), async (h) => {
    for (const toolName of ['Bash', 'Read']) {
      const env = { event: 'preToolUse', toolName };
      assert.deepEqual(stripDurations(await h.fire(env)), stripDurations(h.fireSync(env)));
      assert.deepEqual(stripDurations(h.fireSync(JSON.stringify(env))), stripDurations(h.fireSync(env)));
    }
  }));

test('jsonIO deny with a reason, matched by tool name', () =>
  withHooks(
    inline({
      hooks: {
        preToolUse: [
          { command: `cat >/dev/null; printf '%s' '{"decision":"deny","reason":"rm is disabled"}'`, jsonIO: true, match: 'Bash' },
        ],
      },
    }),
    (h) => {
      const out = h.fireSync({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'rm -rf /' });
      assert.equal(out.allowed, false);
      assert.equal(out.reason, 'rm is disabled');
      assert.equal(out.permissionDecision, undefined);
      assert.equal(out.hooks.length, 1);
      assert.equal(out.hooks[0].jsonIO, true);
      assert.equal(out.hooks[0].result, 'deny');
      // Not matched: no hooks run at all.
      assert.deepEqual(h.fireSync({ event: 'preToolUse', toolName: 'Read' }), { allowed: true, hooks: [] });
    },
  ));

test('permissionRequest: exit 0 asks, non-zero denies', () =>
  withHooks(
    inline({ hooks: { permissionRequest: [{ command: 'test "$OH_PERMISSION_ACTION" = ask -a "$OH_TOOL_NAME" != Bash' }] } }),
    (h) => {
      const ask = h.fireSync({ event: 'permissionRequest', toolName: 'Edit', permissionAction: 'ask' });
      assert.equal(ask.allowed, true);
      assert.equal(ask.permissionDecision, 'ask');
      assert.equal(ask.hooks[0].result, 'ask');

      const deny = h.fireSync({ event: 'permissionRequest', toolName: 'Bash', permissionAction: 'ask' });
      assert.equal(deny.allowed, false);
      assert.equal(deny.permissionDecision, 'deny');
      assert.equal(deny.reason, 'hook denied (exit code)');
    },
  ));

test('permission allow short-circuits: later hooks do not run', () =>
  withHooks(
    inline({
      hooks: {
        permissionRequest: [
          { command: `printf '%s' '{"hookSpecificOutput":{"decision":"allow"}}'`, jsonIO: true },
          { command: 'exit 1' },
        ],
      },
    }),
    (h) => {
      const out = h.fireSync({ event: 'permissionRequest', toolName: 'Bash' });
      assert.equal(out.allowed, true);
      assert.equal(out.permissionDecision, 'allow');
      assert.equal(out.hooks.length, 1);
      assert.equal(out.hooks[0].result, 'allow');
    },
  ));

test('options.env reaches hooks', () =>
  withHooks(inline({ hooks: { preToolUse: [{ command: 'test "$OH_NODE_TEST" = hello' }] } }, { env: { OH_NODE_TEST: 'hello' } }), (h) => {
    assert.equal(h.fireSync({ event: 'preToolUse', toolName: 'x' }).allowed, true);
  }));

test('untrusted directory: the inline config is the host\'s own and still runs', () =>
  withHooks(inline(gateBash, { trusted: false }), (h) => {
    const out = h.fireSync({ event: 'preToolUse', toolName: 'Bash' });
    assert.equal(out.allowed, false);
    assert.equal(out.hooks.length, 1);
    assert.equal(out.hooks[0].result, 'deny');
  }));

test('non-blocking event returns allowed at once', () =>
  withHooks(inline({ hooks: { postToolUse: [{ command: 'exit 1' }] } }), async (h) => {
    assert.deepEqual(await h.fire({ event: 'postToolUse', toolName: 'Bash' }), { allowed: true, hooks: [] });
  }));
