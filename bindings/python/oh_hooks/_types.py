"""Typed, frozen views of the outcome JSON (CONTRACT.md §4).

Every class keeps the JSON it was built from in ``raw``, so nothing the engine
reports is lost even if a later engine adds fields this module does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class HookTrace:
    """What one matching hook did (one entry of the outcome's ``hooks``)."""

    index: int
    """Position of the hook in the event's configured list."""
    type: str
    """``"command"``, ``"http"`` or ``"prompt"``."""
    result: str
    """``"allow"``, ``"deny"``, ``"ask"``, ``"none"`` or ``"skipped"``."""
    duration_ms: float
    json_io: bool = False
    exit_code: Optional[int] = None
    signal: Optional[int] = None
    status: Optional[int] = None
    timed_out: Optional[bool] = None
    reason: Optional[str] = None
    stderr: Optional[str] = None
    error: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "HookTrace":
        return cls(
            index=obj.get("index", -1),
            type=obj.get("type", ""),
            result=obj.get("result", ""),
            duration_ms=float(obj.get("durationMs", 0.0)),
            json_io=bool(obj.get("jsonIO", False)),
            exit_code=obj.get("exitCode"),
            signal=obj.get("signal"),
            status=obj.get("status"),
            timed_out=obj.get("timedOut"),
            reason=obj.get("reason"),
            stderr=obj.get("stderr"),
            error=obj.get("error"),
            raw=obj,
        )


@dataclass(frozen=True)
class OutcomeError:
    """Why the input of a fire was not processed (then ``allowed`` is false)."""

    code: str
    """``invalid_envelope``, ``unknown_event``, ``null_argument``, ``invalid_utf8`` or ``internal``."""
    message: str
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "OutcomeError":
        return cls(code=str(obj.get("code", "")), message=str(obj.get("message", "")), raw=obj)


@dataclass(frozen=True)
class Outcome:
    """The merged result of one fire.

    Optional fields are ``None`` when the engine left them out of the JSON
    (the contract omits every empty field); ``warnings`` is then ``[]``.
    """

    allowed: bool
    permission_decision: Optional[str] = None
    """``"allow"``, ``"deny"``, ``"ask"`` or ``None``."""
    reason: Optional[str] = None
    additional_context: Optional[str] = None
    hooks: List[HookTrace] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    error: Optional[OutcomeError] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The outcome JSON exactly as the engine returned it, parsed."""

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "Outcome":
        err = obj.get("error")
        return cls(
            allowed=bool(obj.get("allowed", False)),
            permission_decision=obj.get("permissionDecision"),
            reason=obj.get("reason"),
            additional_context=obj.get("additionalContext"),
            hooks=[HookTrace.from_json(t) for t in obj.get("hooks", [])],
            warnings=list(obj.get("warnings", [])),
            error=OutcomeError.from_json(err) if isinstance(err, dict) else None,
            raw=obj,
        )
