# A ten-line jsonIO policy hook, as people write them: deny recursive force-deletes in Bash.
# The same file runs spawned (one envelope, then EOF) and persistent (one envelope per line).
import json
import sys

for line in sys.stdin:
    envelope = json.loads(line)
    args = str(envelope.get("toolArgs", ""))
    if envelope.get("toolName") == "Bash" and "rm -rf" in args:
        answer = {"decision": "deny", "reason": "recursive force-delete is blocked"}
    else:
        answer = {}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
