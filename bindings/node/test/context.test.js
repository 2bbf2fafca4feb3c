'use strict';
// jsonIO hooks: the envelope on stdin, additionalContext gathered in list order.
const test = require('node:test');
const assert = require('node:assert/strict');
const { inline, withHooks } = require('./helpers');

// A jsonIO hook written in Node: reads the envelope from stdin and answers
// with additionalContext quoting the prompt it saw.
const echoPrompt = `${JSON.stringify(process.execPath)} -e '
let d = "";
process.stdin.on("data", (c) => (d += c)).on("end", () => {
  const e = JSON.parse(d);
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { additionalContext: "saw " + e.event + ": " + e.prompt } }));
});'`;

test('userPromptSubmit: additionalContext from two jsonIO hooks, joined in order', () =>
  withHooks(
    inline({
      hooks: {
        userPromptSubmit: [
          { command: echoPrompt, jsonIO: true },
          { command: 'cat >/dev/null; true', jsonIO: true }, // blank stdout: no decision
          { command: `printf '%s' '{"hookSpecificOutput":{"additionalContext":"[system: be brief]"}}'`, jsonIO: true },
        ],
      },
    }),
    async (h) => {
      const out = await h.fire({ event: 'userPromptSubmit', prompt: 'hello world', sessionId: 's1' });
      assert.equal(out.allowed, true, JSON.stringify(out));
      assert.equal(out.additionalContext, 'saw userPromptSubmit: hello world\n\n[system: be brief]');
      assert.deepEqual(
        out.hooks.map((t) => [t.index, t.jsonIO, t.exitCode, t.result]),
        [
          [0, true, 0, 'none'],
          [1, true, 0, 'none'],
          [2, true, 0, 'none'],
        ],
      );
      assert.equal(out.reason, undefined);
    },
  ));

test('a deny after context drops the gathered context', () =>
  withHooks(
    inline({
      hooks: {
        userPromptSubmit: [
          { command: `printf '%s' '{"hookSpecificOutput":{"additionalContext":"ctx"}}'`, jsonIO: true },
          { command: `printf '%s' '{"decision":"deny","reason":"prompt blocked"}'`, jsonIO: true },
        ],
      },
    }),
    (h) => {
      const out = h.fireSync({ event: 'userPromptSubmit', prompt: 'secret' });
      assert.equal(out.allowed, false);
      assert.equal(out.reason, 'prompt blocked');
      assert.equal(out.additionalContext, undefined);
    },
  ));

test('stdin gets the envelope compactly, event first, unknown fields kept', () =>
  withHooks(
    inline({
      hooks: {
        userPromptSubmit: [
          {
            command: `${JSON.stringify(process.execPath)} -e '
let d = "";
process.stdin.on("data", (c) => (d += c)).on("end", () => {
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { additionalContext: d } }));
});'`,
            jsonIO: true,
          },
        ],
      },
    }),
    (h) => {
      const out = h.fireSync({ prompt: 'p', custom: { a: [1, 2] }, event: 'userPromptSubmit' });
      assert.equal(out.additionalContext, '{"event":"userPromptSubmit","prompt":"p","custom":{"a":[1,2]}}');
    },
  ));
