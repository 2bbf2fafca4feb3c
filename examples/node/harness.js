#!/usr/bin/env node
'use strict';
// A miniature agent harness loop driven by oh-hooks.
//
//   node examples/node/harness.js
//
// It uses the installed package `oh-hooks` when Node finds one (an `npm install`ed tarball, e.g. with
// NODE_PATH=<app>/node_modules), else the source tree's binding: build that first with
// `cargo build --release && (cd bindings/node && npm run build)`.
//
// The config is examples/harness.yaml: the project policy of examples/policy plus the harness's
// own hooks, which call back into this process:
//   - `callback: canUseTool` (permissionRequest): the harness's permission check, a JS function;
//   - `prompt: ...` (preToolUse on Bash): judged by the harness's "model", the function
//     registered as `prompt` (a stub here: a few rules and a pretend latency);
// and every decision is written to an audit log by the decision observer (onDecision).
//
// The "model" is scripted: one prompt, then a few tool calls. For each step the harness fires
// the matching hook event and prints what it does with the decision. Tools never really run.

const fs = require('node:fs');
const os = require('node:os');
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

const policyDir = path.resolve(__dirname, '..', 'policy');
const configPath = path.resolve(__dirname, '..', 'harness.yaml');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oh-hooks-harness-'));
const auditPath = path.join(tmp, 'decisions.jsonl');

const session = { sessionId: 'demo-session-1', model: 'anthropic/claude-opus-4-7', provider: 'anthropic', permissionMode: 'ask' };

const prompt = 'Tidy up the repository and tell me what is in the README.';
const toolCalls = [
  // examples/policy approves read-only tools at permissionRequest: runs without asking.
  { toolName: 'Read', input: { file_path: 'README.md' }, output: '# oh-hooks\nAn embeddable hook engine...' },
  // Falls through to an interactive ask; the (simulated) user says "yes, always for Bash".
  { toolName: 'Bash', input: { command: 'ls -la' }, output: 'README.md src/ tests/' },
  // canUseTool now allows Bash at once; the model (prompt evaluator) refuses a force-push.
  { toolName: 'Bash', input: { command: 'git push --force origin main' }, output: '' },
  // The model has no objection, but the project's guard-bash.sh refuses it.
  { toolName: 'Bash', input: { command: 'rm -rf /' }, output: '' },
  // Network tools are refused at permissionRequest: preToolUse is never reached.
  { toolName: 'WebFetch', input: { url: 'https://example.com' }, output: '<html>...</html>' },
];

// ---- the harness's own hook functions ---------------------------------------------------------

// Tools the user approved "always, for this session".
const approvedForSession = new Set();

// `callback: canUseTool`: allow what the user already approved; no opinion otherwise (null), so
// the project's permission policy decides.
function canUseTool(envelope) {
  if (approvedForSession.has(envelope.toolName)) {
    return { hookSpecificOutput: { decision: 'allow', reason: `${envelope.toolName} was approved for this session` } };
  }
  return null;
}

// The prompt evaluator: a stub "model" that answers the hook's question about the envelope.
// Asynchronous on purpose, as a real model call is: fire() waits for it without blocking the
// event loop.
async function model({ prompt: question, envelope }) {
  await new Promise((r) => setTimeout(r, 20)); // the model "thinks"
  const command = envelope.toolArgs || '';
  if (/git\s+push\s+(.*\s)?(--force|-f)\b/.test(command)) {
    return { decision: 'deny', reason: `model: a force-push rewrites shared history (asked: ${question})` };
  }
  return null; // no objection: the other hooks decide
}

// The decision observer: one JSON line per fire, once all its hooks (background ones included)
// have finished.
let audited = 0;
function audit(record) {
  const { envelope, outcome } = record;
  const line = {
    event: envelope && envelope.event,
    toolName: envelope && envelope.toolName,
    allowed: outcome.allowed,
    permissionDecision: outcome.permissionDecision,
    reason: outcome.reason,
    hooks: outcome.hooks.map((h) => `${h.type}:${h.result}`),
  };
  fs.appendFileSync(auditPath, JSON.stringify(line) + '\n');
  audited++;
}

// ---- the loop ---------------------------------------------------------------------------------

let fired = 0;
async function fire(hooks, envelope) {
  fired++;
  return hooks.fire(envelope);
}

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
  const perm = await fire(hooks, { event: 'permissionRequest', ...ctx, permissionAction: 'ask' });
  show('permissionRequest', perm);
  if (!perm.allowed || perm.permissionDecision === 'deny') {
    console.log(`[harness] permission denied by policy${perm.reason ? `: ${perm.reason}` : ''}; telling the model the tool was refused`);
    await fire(hooks, { event: 'permissionDenied', ...ctx, permissionAction: 'deny' });
    return;
  }
  if (perm.permissionDecision === 'allow') {
    console.log('[harness] permission granted by a hook; no need to ask the user');
  } else {
    console.log(`[harness] policy falls through to an interactive ask; the (simulated) user says "yes, always for ${call.toolName}"`);
    approvedForSession.add(call.toolName);
  }

  // 2. preToolUse: the last gate before the tool runs.
  const pre = await fire(hooks, { event: 'preToolUse', ...ctx });
  show('preToolUse', pre);
  if (!pre.allowed) {
    console.log(`[harness] tool blocked${pre.reason ? `: ${pre.reason}` : ''}; not running it, reporting the refusal to the model`);
    return;
  }
  if (pre.additionalContext) console.log(`[harness] adding to the tool result for the model: ${JSON.stringify(pre.additionalContext)}`);

  // 3. The tool "runs".
  console.log(`[tool] ${call.toolName} ${ctx.toolArgs}  -> ${JSON.stringify(call.output)}`);

  // 4. postToolUse: notify-only; returns at once, its hooks run in the background.
  const post = await fire(hooks, { event: 'postToolUse', ...ctx, toolOutput: call.output });
  show('postToolUse', post);
}

async function main() {
  let hooks;
  try {
    // trusted: true because this is our own example; a real harness leaves `trusted` out and
    // lets openHarness's trust store decide. `env` reaches every hook (audit-log.sh).
    hooks = new Hooks({ cwd: policyDir, configPath, trusted: true, env: { OH_HOOKS_AUDIT_LOG: path.join(tmp, 'tools.log') } });
  } catch (e) {
    if (e instanceof OhHooksError) {
      const where = [e.file, e.line, e.path].filter((x) => x !== undefined).join(':');
      console.error(`error: cannot load hooks (${e.code}${where ? ` at ${where}` : ''}): ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
  hooks.register('canUseTool', canUseTool);
  hooks.register('prompt', model);
  hooks.onDecision(audit);

  try {
    console.log(`loaded hooks from ${configPath} (hooks run in ${policyDir})`);
    await fire(hooks, { event: 'sessionStart', ...session });

    console.log(`\n[user] ${prompt}`);
    const submit = await fire(hooks, { event: 'userPromptSubmit', ...session, prompt });
    show('userPromptSubmit', submit);
    if (!submit.allowed) {
      console.log(`[harness] prompt blocked${submit.reason ? `: ${submit.reason}` : ''}; nothing is sent to the model`);
      return;
    }
    const sent = submit.additionalContext ? `${submit.additionalContext}\n\n${prompt}` : prompt;
    console.log(`[harness] sending to the model: ${JSON.stringify(sent)}`);

    for (const call of toolCalls) await runTool(hooks, call);

    await fire(hooks, { event: 'sessionEnd', ...session });
    console.log('\n[harness] session over');
  } finally {
    hooks.close(); // waits for background (non-blocking) hooks to finish
  }
  // The last records (background hooks) arrive on the event loop just after close().
  for (let i = 0; i < 500 && audited < fired; i++) await new Promise((r) => setTimeout(r, 10));
  console.log(`\n[audit] ${audited} decision(s) recorded by the observer in ${auditPath}:`);
  process.stdout.write(fs.readFileSync(auditPath, 'utf8'));
  if (audited !== fired) throw new Error(`the observer recorded ${audited} of ${fired} fires`);
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
