"""tests/dist.sh's Python harness: run with the venv the wheel was installed into, from a
directory where the repository is out of reach. argv: options JSON file, expected version."""

import json
import sys
import sysconfig
from pathlib import Path

import oh_hooks
from oh_hooks import Hooks, OhHooksError

passed = failed = 0


def check(ok: bool, what: str) -> None:
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    if ok:
        passed += 1
    else:
        failed += 1


options = json.loads(Path(sys.argv[1]).read_text())
check(oh_hooks.version() == sys.argv[2], f"version() is the packaged version ({oh_hooks.version()})")
lib = Path(oh_hooks.library_path())
site = Path(sysconfig.get_paths()["purelib"])
check(site in lib.parents, f"the library is loaded from the installed wheel ({lib})")
with Hooks(options) as hooks:
    check(hooks.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls"}).allowed, "the hook allows `ls`")
    out = hooks.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "rm -rf /"})
    check(not out.allowed and out.hooks[0].result == "deny", "the hook denies `rm -rf /`")
    raw = hooks.fire('{"event":"preToolUse","toolName":"Bash","toolArgs":"rm -rf /"}')
    check(not raw.allowed and raw.error is None, "fire() with a str takes it as raw JSON")
try:
    Hooks({"defaultTimeout": 5})  # type: ignore[typeddict-unknown-key]
    check(False, "a misspelt option is refused")
except OhHooksError as e:
    check(e.code == "invalid_options" and "defaultTimeoutMs" in e.message, "a misspelt option is refused with a suggestion")
print(f"{sys.argv[3]}: {passed} passed, {failed} failed")
sys.exit(failed != 0)
