#!/usr/bin/env node
// A Codex PreToolUse hook that rewrites a Bash command: `rewrite.js TAG [SLEEP_MS]` answers
// `allow` with `updatedInput` = the command plus ` # TAG`, after SLEEP_MS (so a test chooses
// which of several rewriting hooks finishes last).
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const answer = {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      updatedInput: { ...input.tool_input, command: `${input.tool_input.command} # ${process.argv[2]}` },
    },
  };
  setTimeout(() => process.stdout.write(JSON.stringify(answer)), Number(process.argv[3] || 0));
});
