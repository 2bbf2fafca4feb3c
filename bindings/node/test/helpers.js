'use strict';
// Shared helpers for the oh-hooks Node tests (not a test file itself).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const binding = require('..');

/** A fresh temporary directory, removed when the process exits. */
function tmpDir(prefix = 'oh-hooks-node-') {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An engine over an inline config, trusted, with its cwd and home in a temp dir. */
function inline(config, extra = {}) {
  const dir = tmpDir();
  return new binding.Hooks({ cwd: dir, home: dir, trusted: true, config, ...extra });
}

/** Copy of an outcome with durationMs removed from every hook trace. */
function stripDurations(outcome) {
  const copy = structuredClone(outcome);
  if (Array.isArray(copy.hooks)) for (const h of copy.hooks) delete h.durationMs;
  return copy;
}

/** Runs fn(hooks) and always closes hooks afterwards. */
async function withHooks(hooks, fn) {
  try {
    return await fn(hooks);
  } finally {
    hooks.close();
  }
}

module.exports = { ...binding, binding, tmpDir, inline, stripDurations, withHooks };
