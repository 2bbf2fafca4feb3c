// The Node twin of policy.py: deny recursive force-deletes in Bash. Runs spawned (one envelope,
// then EOF) and persistent (one envelope per line).
const readline = require("node:readline");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const envelope = JSON.parse(line);
  const args = String(envelope.toolArgs ?? "");
  const deny = envelope.toolName === "Bash" && args.includes("rm -rf");
  const answer = deny ? { decision: "deny", reason: "recursive force-delete is blocked" } : {};
  process.stdout.write(JSON.stringify(answer) + "\n");
});
