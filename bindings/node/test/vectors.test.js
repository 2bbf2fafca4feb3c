'use strict';
// Runs every shared vector in tests/vectors/*.json (format: tests/vectors/README.md).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Hooks, OhHooksError, stripDurations, tmpDir } = require('./helpers');

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
      for (const [i, fire] of (vector.fires || []).entries()) {
        let got;
        if (fire.raw !== undefined) {
          got = hooks.fireSync(String(fire.raw));
        } else {
          got = await hooks.fire(fire.envelope);
        }
        assert.deepStrictEqual(
          stripDurations(got),
          stripDurations(fire.outcome),
          `${file} fire #${i} (${fire.raw !== undefined ? 'raw ' + JSON.stringify(fire.raw) : JSON.stringify(fire.envelope)})`,
        );
      }
    } finally {
      hooks.close();
    }
  });
}
