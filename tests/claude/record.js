#!/usr/bin/env node
// Appends one JSON line to the file named by argv[2]: the exact bytes this hook got on stdin,
// its argv and the variables a Claude Code hook is given, so tests can check both. Prints
// nothing and exits 0 (no decision).
const fs = require('fs');
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith('CLAUDE_') || k.startsWith('OH_')) env[k] = v;
  }
  const record = { stdin: Buffer.concat(chunks).toString('utf8'), argv: process.argv.slice(3), env, cwd: process.cwd() };
  fs.appendFileSync(process.argv[2], JSON.stringify(record) + '\n');
});
