#!/usr/bin/env node
// Stop hook, written for Codex: do not let the agent end its turn before it says the tests pass.
// `stop_hook_active` is true when the turn already continues because of a Stop hook; then it may
// stop, so the hook can never loop.
let text = '';
process.stdin.on('data', (c) => (text += c));
process.stdin.on('end', () => {
  const input = JSON.parse(text);
  if (input.stop_hook_active) return;
  if (!/tests pass/i.test(input.last_assistant_message || '')) {
    process.stdout.write(JSON.stringify({ decision: 'block', reason: 'Run `cargo test` and report the result before stopping.' }));
  }
});
