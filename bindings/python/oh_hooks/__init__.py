"""Python binding of oh-hooks, the openHarness hook engine (ctypes over its C ABI).

    from oh_hooks import Hooks

    with Hooks(cwd="/path/to/project") as hooks:     # or Hooks({"cwd": ...})
        outcome = hooks.fire({"event": "preToolUse", "toolName": "Bash", "toolArgs": "ls"})
        if not outcome.allowed:
            print("blocked:", outcome.reason)
"""

from ._callbacks import RawResponse
from ._errors import OhHooksError
from ._hooks import Hooks, library_path, version
from ._types import Envelope, HookTrace, Options, Outcome, OutcomeError, Record, Request

__all__ = [
    "Envelope",
    "Hooks",
    "HookTrace",
    "OhHooksError",
    "Options",
    "Outcome",
    "OutcomeError",
    "RawResponse",
    "Record",
    "Request",
    "library_path",
    "version",
]
__version__ = "0.1.0"
