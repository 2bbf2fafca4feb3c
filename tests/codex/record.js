#!/usr/bin/env node
// Appends one JSON line to the file named by argv[2]: the exact bytes this hook got on stdin,
// its argv, the variables a Codex plugin hook is given, and when it started and ended (ms since
// the epoch), so tests can check stdin byte for byte and that hooks ran at once. `record.js FILE
// TAG [SLEEP_MS]`. Prints nothing and exits 0 (no decision).
const fs = require('fs');
const started = Date.now();
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(CLAUDE_|PLUGIN_|OH_)/.test(k)) env[k] = v;
  }
  setTimeout(() => {
    const record = { stdin: Buffer.concat(chunks).toString('utf8'), argv: process.argv.slice(3), env,
      cwd: process.cwd(), started, ended: Date.now() };
    fs.appendFileSync(process.argv[2], JSON.stringify(record) + '\n');
  }, Number(process.argv[4] || 0));
});
