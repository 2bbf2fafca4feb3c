'use strict';
// reload(), close(), use after close, version.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Hooks, OhHooksError, tmpDir, inline, version, headerVersion } = require('./helpers');

function projectDir(yaml) {
  const dir = tmpDir();
  fs.mkdirSync(path.join(dir, '.oh'));
  fs.writeFileSync(path.join(dir, '.oh', 'config.yaml'), yaml);
  return dir;
}

const denyBash = 'hooks:\n  preToolUse:\n    - command: "exit 1"\n      match: Bash\n';
const allowAll = 'hooks:\n  preToolUse:\n    - command: "exit 0"\n';

function isClosedError(e) {
  return e instanceof OhHooksError && e.code === 'closed' && typeof e.message === 'string';
}

test('reload() picks up a changed project config', () => {
  const dir = projectDir(denyBash);
  const h = new Hooks({ cwd: dir, home: dir, trusted: true });
  try {
    const bash = { event: 'preToolUse', toolName: 'Bash' };
    assert.equal(h.fireSync(bash).allowed, false);
    fs.writeFileSync(path.join(dir, '.oh', 'config.yaml'), allowAll);
    assert.equal(h.reload(), undefined);
    const out = h.fireSync(bash);
    assert.equal(out.allowed, true, JSON.stringify(out));
    assert.equal(out.hooks.length, 1);
  } finally {
    h.close();
  }
});

test('reload() of a broken config throws OhHooksError and keeps the old config', () => {
  const dir = projectDir(denyBash);
  const file = path.join(dir, '.oh', 'config.yaml');
  const h = new Hooks({ cwd: dir, home: dir, trusted: true });
  try {
    fs.writeFileSync(file, 'hooks:\n  preToolUse:\n    - command: "exit 0"\n      timeout: -5\n');
    let caught;
    assert.throws(() => h.reload(), (e) => ((caught = e), true));
    assert.ok(caught instanceof OhHooksError, String(caught));
    assert.equal(caught.code, 'invalid_config');
    assert.equal(caught.file, file);
    assert.equal(caught.line, 4);
    assert.equal(caught.path, 'hooks.preToolUse[0].timeout');
    const out = h.fireSync({ event: 'preToolUse', toolName: 'Bash' });
    assert.equal(out.allowed, false, `old config (deny Bash) stays in force: ${JSON.stringify(out)}`);
  } finally {
    h.close();
  }
});

test('close() twice is fine', () => {
  const h = inline({ hooks: {} });
  assert.equal(h.closed, false);
  h.close();
  h.close();
  assert.equal(h.closed, true);
});

test('use after close throws OhHooksError code closed', async () => {
  const h = inline({ hooks: { preToolUse: [{ command: 'true' }] } });
  h.close();
  assert.throws(() => h.fireSync({ event: 'preToolUse' }), isClosedError);
  assert.throws(() => h.fireSync('{bad'), isClosedError);
  assert.throws(() => h.reload(), isClosedError);
  await assert.rejects(h.fire({ event: 'preToolUse' }), isClosedError);
});

test('version and headerVersion agree', () => {
  assert.match(version, /^\d+\.\d+\.\d+/);
  assert.equal(headerVersion, version);
  const pkg = require('../package.json');
  assert.equal(pkg.version, version, 'package.json version follows the library');
});
