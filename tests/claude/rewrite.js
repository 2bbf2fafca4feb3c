#!/usr/bin/env node
// A PreToolUse hook that rewrites the tool input (Claude Code's `updatedInput`): `npm install`
// becomes `npm ci`, approved, with every other field of tool_input kept, because updatedInput
// replaces the whole input. Anything else: no output, exit 0.
let text = '';
process.stdin.on('data', (c) => (text += c));
process.stdin.on('end', () => {
  const input = JSON.parse(text);
  const toolInput = input.tool_input || {};
  if (input.tool_name === 'Bash' && /^npm install\b/.test(toolInput.command || '')) {
    const updated = { ...toolInput, command: toolInput.command.replace(/^npm install/, 'npm ci') };
    process.stdout.write(JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'npm ci keeps the lockfile',
        updatedInput: updated,
      },
    }));
  }
});
