#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from the shared vectors and the examples (corpora are not
# committed: fuzz/corpus is in .gitignore). Idempotent: files are named by content hash.
set -euo pipefail
cd "$(dirname "$0")"
python3 - <<'PY'
import glob, hashlib, json, os, re

def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join("corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)

def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)

for path in sorted(glob.glob("../tests/vectors/*.json")):
    v = json.load(open(path))
    opts = v.get("options")
    if opts is not None:
        put("config", compact(opts))
        if isinstance(opts, dict) and isinstance(opts.get("config"), dict):
            put("config", compact(opts["config"]))
            for hooks in (opts["config"].get("hooks") or {}).values():
                for h in hooks or []:
                    cmd = h.get("command", "") if isinstance(h, dict) else ""
                    for m in re.findall(r"'(\{.*?\})'", cmd):
                        put("response", m)
    for f in v.get("fires", []):
        if "envelope" in f:
            put("envelope", compact(f["envelope"]))
        if "raw" in f:
            put("envelope", f["raw"])
        if "outcome" in f:
            put("response", compact(f["outcome"]))

for path in sorted(glob.glob("../examples/envelopes/*.json")):
    put("envelope", open(path, "rb").read())
for path in sorted(glob.glob("../examples/policy/.oh/*.yaml")):
    put("config", open(path, "rb").read())

for r in ['{"decision":"deny","reason":"no"}', '{"hookSpecificOutput":{"decision":"ask","additionalContext":"c","reason":"r"}}',
          '{"allowed":false}', '', ' \n', '[1]', '{nope', '{"decision":"allow","hookSpecificOutput":{"decision":"allow"}}']:
    put("response", r)
for c in ["hooks:\n  preToolUse:\n    - command: ./a.sh\n      match: Bash\n      timeout: 5000\n      jsonIO: true\n    - http: http://127.0.0.1:9/x\n    - prompt: ok?\n      match: /^mcp__/i\n  sessionStart: null\n",
          "disableAllHooks: true\n", "hooks:\n  PreToolUse:\n    - matcher: x\n", '{"cwd":"/tmp","layers":["user"],"env":{"A":"b"},"defaultTimeoutMs":5}']:
    put("config", c)
PY
for t in envelope config response; do echo "$t: $(ls corpus/$t | wc -l) seeds"; done
