// The oracle: runs gemini-cli's own HookRunner (real `bash -c` processes) and HookAggregator
// on each recorded case of cases.json and writes what gemini-cli decides to expected.json.
// tests/gemini_oracle.rs checks oh-hooks' gemini dialect against expected.json.
//
//   npm ci && GEMINI_CLI_SRC=<gemini-cli checkout> node run.mjs
//
// The hooks print the recorded stdout and stderr and exit with the recorded code; in a
// sequential case each also saves the stdin it got, so the input each hook saw is compared too.
import { bundle } from './bundle.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const here = import.meta.dirname;
const src = process.env.GEMINI_CLI_SRC;
if (!src) throw new Error('set GEMINI_CLI_SRC to a gemini-cli checkout (the directory holding packages/core)');
const out = path.join(os.tmpdir(), `gemini-oracle-${process.pid}.mjs`);
await bundle(src, out);
const { HookRunner, HookAggregator, HookPlanner } = await import(out);

const config = {
  storage: { getPlansDir: () => '/tmp/plans' },
  sanitizationConfig: { enableEnvironmentVariableRedaction: false, allowedEnvironmentVariables: [], blockedEnvironmentVariables: [] },
  isTrustedFolder: () => true,
};
const runner = new HookRunner(config);
const aggregator = new HookAggregator();
const GATING = ['BeforeTool', 'AfterTool', 'BeforeAgent', 'AfterAgent', 'BeforeModel', 'AfterModel'];
const truthy = (v) => !!v;

// What the harness does with the merged answer, from the consumers of each event
// (scheduler/hook-utils.ts, core/coreToolHookTriggers.ts, core/client.ts, hooks/hookSystem.ts).
function project(event, final, outputs) {
  const p = { allowed: true };
  const messages = outputs.map((o) => o.systemMessage).filter(truthy);
  if (messages.length) p.systemMessage = messages.join('\n');
  if (!final) return p;
  const hso = final.hookSpecificOutput || {};
  if (['SessionStart', 'BeforeAgent', 'AfterTool'].includes(event) && typeof hso.additionalContext === 'string') {
    p.context = hso.additionalContext;
  }
  let refused = false;
  if (GATING.includes(event)) {
    if (final.shouldStopExecution()) {
      p.allowed = false; p.stop = true; p.reason = final.getEffectiveReason(); refused = true;
    } else if (final.getBlockingError().blocked) {
      p.allowed = false; p.reason = final.getEffectiveReason(); refused = true;
      if (event === 'BeforeModel' && truthy(hso.llm_response)) p.llmResponse = hso.llm_response;
    }
  }
  if (event === 'AfterAgent' && final.shouldClearContext()) p.clearContext = true;
  if (refused) return p;
  if (event === 'BeforeTool') {
    if (final.isAskDecision()) { p.ask = true; if (final.reason) p.reason = final.reason; }
    const input = final.getModifiedToolInput();
    if (input) p.toolInput = input;
  }
  if (event === 'AfterTool') {
    const tail = final.getTailToolCallRequest();
    if (tail) p.tailToolCallRequest = tail;
  }
  if (event === 'BeforeModel' && truthy(hso.llm_request)) p.llmRequest = hso.llm_request;
  if (event === 'AfterModel' && final.getModifiedResponse()) p.llmResponse = hso.llm_response;
  if (event === 'BeforeToolSelection' && hso.toolConfig) p.toolConfig = hso.toolConfig;
  return p;
}

const cases = JSON.parse(fs.readFileSync(path.join(here, 'cases.json'), 'utf8'));
const results = [];
for (const c of cases.cases) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gemini-case-'));
  const hooks = c.hooks.map((h, i) => {
    fs.writeFileSync(path.join(dir, `out${i}`), h.stdout ?? '');
    fs.writeFileSync(path.join(dir, `err${i}`), h.stderr ?? '');
    const save = c.sequential ? `cat > ${dir}/in${i}; ` : 'cat > /dev/null; ';
    return { type: 'command', command: `${save}cat ${dir}/out${i}; cat ${dir}/err${i} >&2; exit ${h.exit ?? 0}`, timeout: 20000 };
  });
  const input = { session_id: 's', transcript_path: '', cwd: dir, hook_event_name: c.event, timestamp: 't', ...(c.input || {}) };
  const ran = c.sequential
    ? await runner.executeHooksSequential(hooks, c.event, input)
    : await runner.executeHooksParallel(hooks, c.event, input);
  const agg = aggregator.aggregateResults(ran, c.event);
  const r = { name: c.name, expect: project(c.event, agg.finalOutput, agg.allOutputs) };
  if (c.sequential) {
    r.inputs = c.hooks.map((_, i) => { const s = JSON.parse(fs.readFileSync(path.join(dir, `in${i}`), 'utf8')); delete s.cwd; return s; });
  }
  results.push(r);
  fs.rmSync(dir, { recursive: true, force: true });
}
// Matching, dedup and sequential: gemini-cli's HookPlanner over a registry holding each
// case's groups in order.
const plans = [];
for (const c of cases.plans) {
  const entries = c.groups.flatMap((g) => g.hooks.map((config, i) => ({ config: { ...config, index: `${c.groups.indexOf(g)}.${i}` }, source: 'user', eventName: c.event, matcher: g.matcher, sequential: g.sequential, enabled: true })));
  const planner = new HookPlanner({ getHooksForEvent: () => entries });
  const plan = planner.createExecutionPlan(c.event, c.context ?? undefined);
  plans.push({ name: c.name, runs: plan ? plan.hookConfigs.map((h) => h.index) : [], sequential: plan ? plan.sequential : false });
}
fs.rmSync(out, { force: true });
fs.writeFileSync(path.join(here, 'expected.json'), JSON.stringify({
  note: 'written by run.mjs from gemini-cli\'s own hook code; do not edit by hand',
  geminiCli: process.env.GEMINI_CLI_COMMIT || 'unknown',
  results,
  plans,
}, null, 1) + '\n');
console.log(`${results.length} cases`);
