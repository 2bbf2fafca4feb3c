'use strict';
// new Hooks(options): option and config errors are thrown as OhHooksError.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Hooks, OhHooksError, tmpDir } = require('./helpers');

function expectError(options, code) {
  let caught;
  assert.throws(
    () => new Hooks(options),
    (e) => {
      caught = e;
      return true;
    },
  );
  assert.ok(caught instanceof OhHooksError, `expected OhHooksError, got ${caught && caught.constructor.name}: ${caught}`);
  assert.ok(caught instanceof Error);
  assert.equal(caught.name, 'OhHooksError');
  assert.equal(caught.code, code, `code for ${JSON.stringify(options)}: ${caught.message}`);
  assert.equal(typeof caught.message, 'string');
  assert.ok(caught.message.length > 0);
  assert.equal(caught.details.code, code);
  return caught;
}

test('defaults: no options, null options', () => {
  new Hooks().close();
  new Hooks(null).close();
});

test('unknown option key is invalid_options', () => {
  expectError({ bogus: 1 }, 'invalid_options');
});

test('wrong option type is invalid_options', () => {
  expectError({ trusted: 'yes' }, 'invalid_options');
  expectError({ env: { A: 1 } }, 'invalid_options');
});

test('zero or negative numbers are invalid_options', () => {
  expectError({ defaultTimeoutMs: 0 }, 'invalid_options');
  expectError({ maxOutputBytes: -1 }, 'invalid_options');
});

test('options that are not an object are invalid_options', () => {
  expectError(42, 'invalid_options');
  expectError([], 'invalid_options');
  expectError('a string', 'invalid_options');
});

test('cwd that is not a directory is invalid_options', () => {
  expectError({ cwd: '/nonexistent/oh-hooks/dir' }, 'invalid_options');
});

test('config together with configPath is invalid_options', () => {
  const dir = tmpDir();
  const file = path.join(dir, 'hooks.yaml');
  fs.writeFileSync(file, 'hooks: {}\n');
  expectError({ config: { hooks: {} }, configPath: file }, 'invalid_options');
  expectError({ config: { hooks: {} }, layers: ['user'] }, 'invalid_options');
});

test('unreadable configPath is io_error', () => {
  const dir = tmpDir();
  expectError({ configPath: path.join(dir, 'missing.yaml') }, 'io_error');
});

test('bad inline config is invalid_config with a path', () => {
  const e = expectError({ trusted: true, config: { hooks: { preToolUse: [{ command: 'true', timeout: 0 }] } } }, 'invalid_config');
  assert.equal(e.path, 'hooks.preToolUse[0].timeout');
});

test('bad config file: invalid_config with file, line and path', () => {
  const dir = tmpDir();
  const file = path.join(dir, 'hooks.yaml');
  fs.writeFileSync(file, ['hooks:', '  preToolUse:', '    - command: "true"', '      timeout: 0', ''].join('\n'));
  const e = expectError({ configPath: file, trusted: true }, 'invalid_config');
  assert.equal(e.file, file);
  assert.equal(e.line, 4);
  assert.equal(e.path, 'hooks.preToolUse[0].timeout');
  assert.deepEqual(e.details, { code: e.code, message: e.message, file: e.file, line: e.line, path: e.path });
});

test('project layer errors name the layer file', () => {
  const dir = tmpDir();
  fs.mkdirSync(path.join(dir, '.oh'));
  const file = path.join(dir, '.oh', 'config.yaml');
  fs.writeFileSync(file, 'hooks:\n  PreToolUse:\n    - command: "true"\n');
  const e = expectError({ cwd: dir, home: dir, trusted: true }, 'invalid_config');
  assert.equal(e.file, file);
  assert.match(e.message, /preToolUse/, 'suggests the camelCase event name');
});

test('unknown entry key suggests match for matcher', () => {
  const e = expectError({ trusted: true, config: { hooks: { preToolUse: [{ command: 'true', matcher: 'Bash' }] } } }, 'invalid_config');
  assert.match(e.message, /\bmatch\b/);
  assert.equal(e.path, 'hooks.preToolUse[0].matcher');
});

test('invalid regex is an error at load', () => {
  const e = expectError({ trusted: true, config: { hooks: { preToolUse: [{ command: 'true', match: '/(?=x)/' }] } } }, 'invalid_config');
  assert.equal(e.path, 'hooks.preToolUse[0].match');
});

test('entry with two handlers is invalid_config', () => {
  expectError({ trusted: true, config: { hooks: { preToolUse: [{ command: 'true', prompt: 'ok?' }] } } }, 'invalid_config');
});

test('options that cannot be serialized throw TypeError before reaching the engine', () => {
  assert.throws(() => new Hooks({ defaultTimeoutMs: 10n }), TypeError);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => new Hooks(cyclic), TypeError);
});
