// tests/dist.sh's Node harness (ES module): named imports of the installed package.
// argv: options JSON file, expected version, suite name.
import { readFileSync } from 'node:fs';
import { Hooks, OhHooksError, version } from 'oh-hooks';

const [optionsFile, expected, suite] = process.argv.slice(2);
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  ok ? passed++ : failed++;
};
check(version === expected, `import { version } is the packaged version (${version})`);
check(typeof OhHooksError === 'function', 'import { OhHooksError }');
// (`await using` is not syntax in Node 20; the TypeScript check covers it.)
const hooks = new Hooks(JSON.parse(readFileSync(optionsFile, 'utf8')));
const out = await hooks.fire({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'rm -rf /' });
check(!out.allowed, 'the hook denies `rm -rf /`');
await hooks[Symbol.asyncDispose]();
check(hooks.closed, 'await hooks[Symbol.asyncDispose]() closes it');
console.log(`${suite}: ${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
