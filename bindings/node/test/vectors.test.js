'use strict';
// Runs every shared vector in tests/vectors/*.json (format: tests/vectors/README.md).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Hooks, OhHooksError, RawResponse, stripDurations, tmpDir } = require('./helpers');

const dir = path.resolve(__dirname, '..', '..', '..', 'tests', 'vectors');
const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort() : [];

test('shared vectors exist', () => {
  assert.ok(files.length > 0, `no *.json vectors in ${dir}`);
});

for (const file of files) {
  test(`vector ${file}`, { timeout: 60000 }, async () => {
    // @HOME@ and @CWD@ stand for a fresh home and cwd, where the vector's files go.
    const home = tmpDir('oh-vec-home-');
    const cwd = tmpDir('oh-vec-cwd-');
    const text = fs.readFileSync(path.join(dir, file), 'utf8').replaceAll('@HOME@', home).replaceAll('@CWD@', cwd);
    const vector = JSON.parse(text);
    for (const [target, content] of Object.entries(vector.files ?? {})) {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, content);
    }
    const options = vector.options ?? null;

    if (vector.newError !== undefined) {
      let caught;
      assert.throws(() => new Hooks(options), (e) => ((caught = e), true), 'oh_hooks_new must fail');
      assert.ok(caught instanceof OhHooksError, String(caught));
      assert.deepStrictEqual(caught.details, vector.newError);
      assert.equal(vector.fires, undefined, 'a newError vector has no fires');
      return;
    }

    const hooks = new Hooks(options);
    try {
      // The vector's host functions: each answers at once with its canned response (objects
      // through the ordinary object path, any other value as exact text) and records its requests.
      const requests = {};
      for (const [name, canned] of Object.entries(vector.callbacks || {})) {
        requests[name] = [];
        const answer =
          canned === null || (typeof canned === 'object' && !Array.isArray(canned))
            ? canned
            : new RawResponse(typeof canned === 'string' ? canned : JSON.stringify(canned));
        hooks.register(name, (req) => {
          requests[name].push(req);
          return answer;
        });
      }
      // With host functions, each envelope fire runs twice: through fire() (engine threads, the
      // functions reached through the event loop) and through fireSync() (the functions called
      // on this thread).
      const ways = vector.callbacks ? ['fire', 'fireSync'] : ['fire'];
      for (const [i, fire] of (vector.fires || []).entries()) {
        for (const way of fire.raw !== undefined ? ['raw'] : ways) {
          for (const name of Object.keys(requests)) requests[name] = [];
          let got;
          if (way === 'raw') {
            got = hooks.fireSync(String(fire.raw));
          } else if (way === 'fireSync') {
            got = hooks.fireSync(fire.envelope);
          } else {
            got = await hooks.fire(fire.envelope);
          }
          const label = `${file} fire #${i} ${way} (${fire.raw !== undefined ? 'raw ' + JSON.stringify(fire.raw) : JSON.stringify(fire.envelope)})`;
          if (fire.requests !== undefined) {
            for (const name of Object.keys(requests)) {
              assert.deepStrictEqual(requests[name], fire.requests[name] ?? [], `${label}: requests to ${name}`);
            }
          }
          assert.deepStrictEqual(stripDurations(got), stripDurations(fire.outcome), label);
        }
      }
    } finally {
      hooks.close();
    }
  });
}
