"""Shared helpers: make the package importable from the source tree, small factories."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

PROJECT_DIR = Path(__file__).resolve().parent.parent  # bindings/python
REPO_DIR = PROJECT_DIR.parent.parent  # the repository root
if str(PROJECT_DIR) not in sys.path:
    sys.path.insert(0, str(PROJECT_DIR))

VECTORS_DIR = Path(os.environ.get("OH_HOOKS_VECTORS", REPO_DIR / "tests" / "vectors"))


def inline(hooks: Dict[str, List[Dict[str, Any]]], **options: Any) -> Dict[str, Any]:
    """Options for an engine with an inline config, trusted (so no trust store on the
    machine changes the result), running hooks in a neutral directory."""
    opts: Dict[str, Any] = {"trusted": True, "config": {"hooks": hooks}}
    opts.update(options)
    return opts


def strip_durations(outcome: Any) -> Any:
    """The outcome with ``durationMs`` deleted from every hook trace (vectors' rule)."""
    if isinstance(outcome, dict) and isinstance(outcome.get("hooks"), list):
        outcome = dict(outcome)
        outcome["hooks"] = [
            {k: v for k, v in t.items() if k != "durationMs"} if isinstance(t, dict) else t
            for t in outcome["hooks"]
        ]
    return outcome


def trace(outcome_raw: Dict[str, Any], i: int = 0) -> Dict[str, Any]:
    t = dict(outcome_raw["hooks"][i])
    t.pop("durationMs", None)
    return t


