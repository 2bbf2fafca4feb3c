#!/usr/bin/env node
'use strict';
// A miniature agent harness loop driven by oh-hooks.
//
//   node examples/node/harness.js [policy-dir]
//
// policy-dir defaults to examples/policy (a directory with .oh/config.yaml).
// It uses the installed package `oh-hooks` when Node finds one (an `npm install`ed tarball, e.g. with
// NODE_PATH=<app>/node_modules), else the source tree's binding: build that first with
// `cargo build --release && (cd bindings/node && npm run build)`.
//
// The "model" is scripted: one prompt, then a few tool calls. For each step the
// harness fires the matching hook event and prints what it does with the
// decision. Tools never really run; they are only printed.

const fs = require('node:fs');
const path = require('node:path');
function loadBinding() {
  try {
    return require('oh-hooks');
  } catch (e) {
    if (e.code !== 'MODULE_NOT_FOUND') throw e;
    return require('../../bindings/node');
  }
}
const { Hooks, OhHooksError } = loadBinding();

const policyDir = path.resolve(process.argv[2] || path.join(__dirname, '..', 'policy'));
if (!fs.existsSync(path.join(policyDir, '.oh', 'config.yaml'))) {
  console.error(`error: ${path.join(policyDir, '.oh', 'config.yaml')} not found (pass a policy directory as the first argument)`);
  process.exit(1);
}

const session = { sessionId: 'demo-session-1', model: 'anthropic/claude-opus-4-7', provider: 'anthropic', permissionMode: 'ask' };

const prompt = 'Tidy up the repository and tell me what is in the README.';
const toolCalls = [
  // examples/policy approves read-only tools at permissionRequest: runs without asking.
  { toolName: 'Read', input: { file_path: 'README.md' }, output: '# oh-hooks\nAn embeddable hook engine...' },
  // Falls through to an interactive ask, then preToolUse's guard-bash.sh refuses it.
  { toolName: 'Bash', input: { command: 'rm -rf /' }, output: '' },
  // Network tools are refused at permissionRequest: preToolUse is never reached.
  { toolName: 'WebFetch', input: { url: 'https://example.com' }, output: '<html>...</html>' },
];

function show(label, outcome) {
  const bits = [`allowed=${outcome.allowed}`];
  if (outcome.permissionDecision) bits.push(`permissionDecision=${outcome.permissionDecision}`);
  if (outcome.reason) bits.push(`reason=${JSON.stringify(outcome.reason)}`);
  if (outcome.additionalContext) bits.push(`additionalContext=${JSON.stringify(outcome.additionalContext)}`);
  bits.push(`hooks=[${outcome.hooks.map((h) => `#${h.index} ${h.type}:${h.result}`).join(', ')}]`);
  console.log(`  ${label}: ${bits.join(' ')}`);
  for (const w of outcome.warnings || []) console.log(`  warning: ${w}`);
  if (outcome.error) {
    // Bad input is data, not an exception: a harness bug, so fail loudly.
    throw new Error(`hook engine rejected our envelope: ${outcome.error.code}: ${outcome.error.message}`);
  }
}

async function runTool(hooks, call) {
  const ctx = {
    ...session,
    toolName: call.toolName,
    toolArgs: call.input.command ?? call.input.file_path ?? call.input.url ?? '',
    toolInputJson: JSON.stringify(call.input),
  };
  console.log(`\n[model] wants to call ${call.toolName} ${ctx.toolInputJson}`);

  // 1. Our own permission check says "needs approval" in permissionMode "ask",
  //    so hooks get a say before we would prompt the user.
  const perm = await hooks.fire({ event: 'permissionRequest', ...ctx, permissionAction: 'ask' });
  show('permissionRequest', perm);
  if (!perm.allowed || perm.permissionDecision === 'deny') {
    console.log(`[harness] permission denied by policy${perm.reason ? `: ${perm.reason}` : ''}; telling the model the tool was refused`);
    await hooks.fire({ event: 'permissionDenied', ...ctx, permissionAction: 'deny' });
    return;
  }
  if (perm.permissionDecision === 'allow') {
    console.log('[harness] permission granted by policy; no need to ask the user');
  } else {
    console.log('[harness] policy falls through to an interactive ask; the (simulated) user says yes');
  }

  // 2. preToolUse: the last gate before the tool runs.
  const pre = await hooks.fire({ event: 'preToolUse', ...ctx });
  show('preToolUse', pre);
  if (!pre.allowed) {
    console.log(`[harness] tool blocked${pre.reason ? `: ${pre.reason}` : ''}; not running it, reporting the refusal to the model`);
    return;
  }
  if (pre.additionalContext) console.log(`[harness] adding to the tool result for the model: ${JSON.stringify(pre.additionalContext)}`);

  // 3. The tool "runs".
  console.log(`[tool] ${call.toolName} ${ctx.toolArgs}  -> ${JSON.stringify(call.output)}`);

  // 4. postToolUse: notify-only; returns at once, its hooks run in the background.
  const post = await hooks.fire({ event: 'postToolUse', ...ctx, toolOutput: call.output });
  show('postToolUse', post);
}

async function main() {
  let hooks;
  try {
    hooks = new Hooks({ cwd: policyDir, trusted: true });
  } catch (e) {
    if (e instanceof OhHooksError) {
      const where = [e.file, e.line, e.path].filter((x) => x !== undefined).join(':');
      console.error(`error: cannot load hooks (${e.code}${where ? ` at ${where}` : ''}): ${e.message}`);
      process.exit(1);
    }
    throw e;
  }

  try {
    console.log(`loaded hooks from ${path.join(policyDir, '.oh', 'config.yaml')}`);
    await hooks.fire({ event: 'sessionStart', ...session });

    console.log(`\n[user] ${prompt}`);
    const submit = await hooks.fire({ event: 'userPromptSubmit', ...session, prompt });
    show('userPromptSubmit', submit);
    if (!submit.allowed) {
      console.log(`[harness] prompt blocked${submit.reason ? `: ${submit.reason}` : ''}; nothing is sent to the model`);
      return;
    }
    const sent = submit.additionalContext ? `${submit.additionalContext}\n\n${prompt}` : prompt;
    console.log(`[harness] sending to the model: ${JSON.stringify(sent)}`);

    for (const call of toolCalls) await runTool(hooks, call);

    await hooks.fire({ event: 'sessionEnd', ...session });
    console.log('\n[harness] session over');
  } finally {
    hooks.close(); // waits for background (non-blocking) hooks to finish
  }
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
