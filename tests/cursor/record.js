#!/usr/bin/env node
// A Cursor hook that appends one JSON line to argv[2]: its tag (argv[3]), the stdin bytes as
// received (`raw`, so a test can check them byte for byte), the Cursor variables, and the
// directory it runs in. Prints nothing: no decision.
const fs = require('fs');
const raw = fs.readFileSync(0, 'utf8');
const env = {};
for (const k of Object.keys(process.env).sort()) {
  if (k.startsWith('CURSOR_') || k === 'CLAUDE_PROJECT_DIR' || k.startsWith('OH_TEST_')) env[k] = process.env[k];
}
fs.appendFileSync(process.argv[2], JSON.stringify({ tag: process.argv[3], raw, env, cwd: process.cwd() }) + '\n');
