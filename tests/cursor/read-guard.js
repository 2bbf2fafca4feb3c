#!/usr/bin/env node
// A beforeReadFile guard: refuses to let the agent read .env files.
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const path = input.file_path || '';
if (/(^|\/)\.env(\.|$)/.test(path)) {
  console.log(JSON.stringify({ permission: 'deny', user_message: `reading ${path} is not allowed` }));
} else {
  console.log(JSON.stringify({ permission: 'allow' }));
}
