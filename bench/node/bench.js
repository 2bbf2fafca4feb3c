'use strict';
// Node part of `make bench`: per-call time of a fire through the binding.
//   node bench/node/bench.js ENVELOPE_FILE SAMPLES OUT_FILE
// Rows (interleaved, order shuffled each round): fireSync(object), fireSync(string),
// await fire(object) on an engine with no hook for preToolUse; and fireSync(object),
// await fire(object) on an engine whose one preToolUse hook is `callback: bench`, a JS function
// that answers at once with no decision; and, for comparison, openHarness's own route to its host:
// await fire(object) on an engine whose one hook is an HTTP hook posting to an http server in this
// process, answering `{}`; and, when BENCH_NODEFLOOR names bench/node/floor.c built as an addon,
// the floors of `await fire`: a promise resolved from a C thread through a threadsafe function
// (node.floor.tsfn, how fire() completed before) and through a pipe watched by a uv_poll_t
// (node.floor.pipe, the addon's route from an engine thread to JS now). One sample = a batch of
// calls, timed as a whole; ns per call is appended to OUT_FILE as `<row> <ns>` lines.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { Hooks } = require(path.join(__dirname, '..', '..', 'bindings', 'node'));

const [envFile, samplesArg, outFile] = process.argv.slice(2);
if (!envFile || !samplesArg || !outFile) {
  console.error('usage: node bench.js ENVELOPE_FILE SAMPLES OUT_FILE');
  process.exit(2);
}
const text = fs.readFileSync(envFile, 'utf8').trim();
const obj = JSON.parse(text);
const samples = Number(samplesArg);

const hooks = new Hooks({
  cwd: process.cwd(),
  trusted: true,
  config: { hooks: { postToolUse: [{ command: 'true' }] } },
});

const cbHooks = new Hooks({
  cwd: process.cwd(),
  trusted: true,
  config: { hooks: { [obj.event]: [{ callback: 'bench' }] } },
});
let cbCalls = 0;
cbHooks.register('bench', () => {
  cbCalls++;
  return null;
});

// openHarness's route: the host serves its callback over loopback HTTP and the hook posts to it.
const server = http.createServer({ keepAlive: true }, (req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
});
let httpHooks;

function check(out, hooks = 0) {
  if (!out || out.allowed !== true || !Array.isArray(out.hooks) || out.hooks.length !== hooks || out.error ||
      (hooks && out.hooks[0].type !== 'callback' && out.hooks[0].status !== 200)) {
    console.error(`error: node bench: unexpected outcome ${JSON.stringify(out)}`);
    process.exit(1);
  }
}

const SYNC_BATCH = 1000;
const ASYNC_BATCH = 200;
const rows = {
  'node.fireSync': () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < SYNC_BATCH; i++) hooks.fireSync(obj);
    return Number(process.hrtime.bigint() - t0) / SYNC_BATCH;
  },
  'node.fireSync.str': () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < SYNC_BATCH; i++) hooks.fireSync(text);
    return Number(process.hrtime.bigint() - t0) / SYNC_BATCH;
  },
  'node.fire': async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ASYNC_BATCH; i++) await hooks.fire(obj);
    return Number(process.hrtime.bigint() - t0) / ASYNC_BATCH;
  },
  'node.fireSync.cb': () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < SYNC_BATCH; i++) cbHooks.fireSync(obj);
    return Number(process.hrtime.bigint() - t0) / SYNC_BATCH;
  },
  'node.fire.cb': async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ASYNC_BATCH; i++) await cbHooks.fire(obj);
    return Number(process.hrtime.bigint() - t0) / ASYNC_BATCH;
  },
  'node.fire.http': async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ASYNC_BATCH; i++) await httpHooks.fire(obj);
    return Number(process.hrtime.bigint() - t0) / ASYNC_BATCH;
  },
};

if (process.env.BENCH_NODEFLOOR) {
  const floor = require(process.env.BENCH_NODEFLOOR);
  let wake = null;
  floor.start(() => wake());
  floor.startPipe(() => wake());
  rows['node.floor.tsfn'] = async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ASYNC_BATCH; i++) {
      await new Promise((resolve) => {
        wake = resolve;
        floor.kick();
      });
    }
    return Number(process.hrtime.bigint() - t0) / ASYNC_BATCH;
  };
  // The route `await fire` takes now: a record on a pipe watched by a uv_poll_t.
  rows['node.floor.pipe'] = async () => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ASYNC_BATCH; i++) {
      await new Promise((resolve) => {
        wake = resolve;
        floor.kickPipe();
      });
    }
    return Number(process.hrtime.bigint() - t0) / ASYNC_BATCH;
  };
}

(async () => {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  httpHooks = new Hooks({
    cwd: process.cwd(),
    trusted: true,
    config: { hooks: { [obj.event]: [{ http: `http://127.0.0.1:${server.address().port}/can_use_tool` }] } },
  });
  check(await httpHooks.fire(obj), 1);
  check(hooks.fireSync(obj));
  check(hooks.fireSync(text));
  check(await hooks.fire(obj));
  check(cbHooks.fireSync(obj), 1);
  check(await cbHooks.fire(obj), 1);
  if (cbCalls !== 2) {
    console.error(`error: node bench: the callback ran ${cbCalls} times, not 2`);
    process.exit(1);
  }
  const names = Object.keys(rows);
  for (let w = 0; w < 2; w++) for (const n of names) await rows[n]();
  const lines = [];
  for (let s = 0; s < samples; s++) {
    for (let i = names.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [names[i], names[j]] = [names[j], names[i]];
    }
    for (const n of names) lines.push(`${n} ${(await rows[n]()).toFixed(1)}`);
  }
  hooks.closeSync();
  cbHooks.closeSync();
  await httpHooks.close();
  server.close();
  fs.appendFileSync(outFile, lines.join('\n') + '\n');
})().catch((e) => {
  console.error(`error: node bench: ${e.stack || e}`);
  process.exit(1);
});
