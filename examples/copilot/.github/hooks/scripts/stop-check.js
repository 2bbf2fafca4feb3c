#!/usr/bin/env node
// agentStop: keep the agent going until its last message says the tests pass. `stop_hook_active`
// is set when a stop hook already kept it going once (no endless loop).
const payload = JSON.parse(require("fs").readFileSync(0, "utf8"));
const said = payload.lastAssistantMessage || "";
if (!payload.stop_hook_active && !/tests pass/i.test(said)) {
  console.log(JSON.stringify({ decision: "block", reason: "Run the test suite and report the result before you stop." }));
}
