"""Types of what goes in and out: ``Options`` and ``Envelope`` (TypedDicts, so a type checker
catches a misspelt key) and typed, frozen views of the outcome JSON (docs/envelope.md "The outcome").

Every outcome class keeps the JSON it was built from in ``raw``, so nothing the engine
reports is lost even if a later engine adds fields this module does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Mapping, Optional, TypedDict, Union


class Options(TypedDict, total=False):
    """Engine options (docs/options.md "Options"); every key is optional.

    The engine refuses an unknown key at run time with a "did you mean"; this type lets a type
    checker catch it before.
    """

    cwd: str
    """Directory the project layers are read from and hooks run in (default: the process's)."""
    home: str
    """Base of the user layer ``<home>/.oh/config.yaml`` and of the trust store: an absolute path
    (``~`` is not expanded). Default: $HOME, else the password database's home."""
    layers: List[Literal["user", "project", "local"]]
    configPath: str
    """Read this one YAML or JSON file instead of the layers."""
    config: Mapping[str, Any]
    """An inline config instead of any file (never watched)."""
    trusted: bool
    """Force trust on or off; absent: openHarness's trust store, which trusts every project when
    ``~/.oh/trusted-dirs.json`` does not exist (a harness embedding a security policy passes it)."""
    defaultTimeoutMs: int
    env: Dict[str, str]
    strict: bool
    maxOutputBytes: int
    waitNonBlocking: bool
    claude: bool
    """Also read Claude Code's settings files and run their hooks as Claude Code would."""
    claudePlugins: List[Union[str, Dict[str, str]]]
    """Plugin directories (or ``{"root": dir, "data": dir}``) whose ``hooks/hooks.json`` is read."""
    claudeProjectDir: str
    """``CLAUDE_PROJECT_DIR`` for Claude Code hooks (default: ``cwd``)."""
    codex: Union[bool, Dict[str, Any]]
    """Also run Codex's hooks as Codex would (docs/dialects/codex.md): ``True``, or
    ``{"files": [...], "plugins": [...]}``."""
    gemini: Union[bool, Dict[str, Any]]
    """Also run Gemini CLI's hooks: ``True``, or ``{"files": [...], "plugins": [extension dirs]}``."""
    cursor: Union[bool, Dict[str, Any]]
    """Also read Cursor's ``.cursor/hooks.json`` files and run their hooks as Cursor would: ``True``, or
    ``{"files": [...], "plugins": [...]}`` naming the host's own files and Cursor plugin directories besides."""
    copilot: Union[bool, Dict[str, Any]]
    """Also run GitHub Copilot's hooks as the Copilot CLI would (docs/dialects/copilot.md):
    ``True``, or ``{"files": [...], "plugins": [...]}``."""
    watch: bool
    """False: config files are not watched for changes (``reload()`` still re-reads them)."""
    httpProxy: str
    """Proxy URL for HTTP hooks (the ``*_proxy`` environment variables are never read)."""
    shutdownTimeoutMs: int
    """How long closing waits for background hooks and async fires before cancelling them (default 5000)."""
    tools: Dict[str, Union[str, Dict[str, Any]]]
    """The host's tools and their kinds, so other harnesses' hooks see them under their own names
    (docs/envelope.md "Host tools"): ``{"shell": {"kind": "shell", "fields": {"command": "cmd"}}}``."""


class _EnvelopeEvent(TypedDict):
    event: str


class Envelope(_EnvelopeEvent, total=False):
    """One event and its context (docs/envelope.md "The envelope"); only ``event`` is required.

    A field this type does not list still reaches the hooks: pass such an envelope as a plain
    ``Dict[str, Any]`` through ``typing.cast(Envelope, ...)``, or as JSON text.
    """

    toolName: str
    toolArgs: str
    toolOutput: str
    toolInputJson: str
    sessionId: str
    model: str
    provider: str
    permissionMode: str
    cost: Union[float, str]
    tokens: Union[int, str]
    filePath: str
    newCwd: str
    agentId: str
    message: str
    prompt: str
    toolError: str
    errorMessage: str
    permissionAction: str
    turnNumber: int
    turnReason: str
    worktreePath: str
    worktreeParent: str
    worktreeForced: bool
    elicitationServer: str
    elicitationMessage: str
    elicitationSchema: str
    elicitationAction: str
    elicitationContent: str
    effort: Dict[str, Any]
    toolInput: Dict[str, Any]
    """The tool's input as an object (Claude Code's ``tool_input``, also accepted under that name)."""
    tool_input: Dict[str, Any]


@dataclass(frozen=True)
class HookTrace:
    """What one matching hook did (one entry of the outcome's ``hooks``)."""

    index: int
    """Position of the hook in the event's configured list."""
    type: str
    """``"command"``, ``"http"`` or ``"prompt"``."""
    result: str
    """``"allow"``, ``"deny"``, ``"ask"``, ``"defer"`` (Claude Code hooks), ``"none"``, or
    ``"cancelled"`` (the fire was cancelled before this hook finished)."""
    duration_ms: float
    json_io: bool = False
    persistent: bool = False
    """True on persistent command hooks."""
    exit_code: Optional[int] = None
    signal: Optional[int] = None
    status: Optional[int] = None
    timed_out: Optional[bool] = None
    reason: Optional[str] = None
    stderr: Optional[str] = None
    error: Optional[str] = None
    dialect: Optional[str] = None
    """The hook's dialect: ``"claude"``, ``"codex"``, ``"cursor"``, ``"copilot"`` or ``"gemini"``; ``None`` on openHarness hooks."""
    source: Optional[str] = None
    """Claude Code hooks: the settings or plugin ``hooks.json`` file the hook came from."""
    failure: Optional[str] = None
    """Claude Code hooks: why a failure (exit 1, timeout, bad JSON, ...) let the action through."""
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "HookTrace":
        if cls is not HookTrace:
            return cls(**_fields_of(obj, _TRACE_KEYS, _TRACE_DEFAULTS))
        o = object.__new__(cls)
        values = o.__dict__
        _read_fields(values, obj, _TRACE_KEYS, _TRACE_DEFAULTS)
        values["duration_ms"] = float(values["duration_ms"])
        values["json_io"] = bool(values["json_io"])
        values["persistent"] = bool(values["persistent"])
        values["raw"] = obj
        return o


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
    """``"allow"``, ``"deny"``, ``"ask"``, ``"defer"`` (Claude Code hooks only) or ``None``."""
    reason: Optional[str] = None
    additional_context: Optional[str] = None
    updated_input: Optional[Dict[str, Any]] = None
    """The tool input to use instead of the one sent (preToolUse, permissionRequest)."""
    updated_prompt: Optional[str] = None
    """The prompt to use instead of the one sent (userPromptSubmit)."""
    updated_permissions: Optional[List[Any]] = None
    """Permission-rule updates a Claude Code PermissionRequest hook asked for."""
    interrupt: Optional[bool] = None
    """True when a Claude Code PermissionRequest deny asked to interrupt the agent."""
    continue_: Optional[bool] = None
    """``False`` when a hook asked the harness to stop the agent (``stop_reason`` says why);
    ``None`` otherwise. (The JSON key is ``continue``, a Python keyword.)"""
    stop_reason: Optional[str] = None
    system_message: Optional[str] = None
    """For the user, not the model: the hooks' messages joined by ``"\\n"``."""
    hooks: List[HookTrace] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    error: Optional[OutcomeError] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The outcome JSON exactly as the engine returned it, parsed."""

    @classmethod
    def from_json(cls, obj: Dict[str, Any]) -> "Outcome":
        if cls is not Outcome:
            return cls(**_fields_of(obj, _OUTCOME_KEYS, _OUTCOME_DEFAULTS))
        o = object.__new__(cls)
        values = o.__dict__
        _read_fields(values, obj, _OUTCOME_KEYS, _OUTCOME_DEFAULTS)
        _convert_outcome(values, obj)
        return o


# How from_json reads the JSON: each known key, the field it sets; and each field's value when
# its key is absent (in field order: the instance's dict is then the one __init__ makes).
_TRACE_KEYS = {
    "index": "index", "type": "type", "result": "result", "durationMs": "duration_ms", "jsonIO": "json_io",
    "persistent": "persistent", "exitCode": "exit_code", "signal": "signal", "status": "status",
    "timedOut": "timed_out", "reason": "reason", "stderr": "stderr", "error": "error", "dialect": "dialect",
    "source": "source", "failure": "failure",
}
_TRACE_DEFAULTS: Dict[str, Any] = {
    "index": -1, "type": "", "result": "", "duration_ms": 0.0, "json_io": False, "persistent": False,
    "exit_code": None, "signal": None, "status": None, "timed_out": None, "reason": None, "stderr": None,
    "error": None, "dialect": None, "source": None, "failure": None, "raw": None,
}
_OUTCOME_KEYS = {
    "allowed": "allowed", "permissionDecision": "permission_decision", "reason": "reason",
    "additionalContext": "additional_context", "updatedInput": "updated_input", "updatedPrompt": "updated_prompt",
    "updatedPermissions": "updated_permissions", "interrupt": "interrupt", "continue": "continue_",
    "stopReason": "stop_reason", "systemMessage": "system_message", "hooks": "hooks", "warnings": "warnings",
    "error": "error",
}
_OUTCOME_DEFAULTS: Dict[str, Any] = {
    "allowed": False, "permission_decision": None, "reason": None, "additional_context": None,
    "updated_input": None, "updated_prompt": None, "updated_permissions": None, "interrupt": None,
    "continue_": None, "stop_reason": None, "system_message": None, "hooks": (), "warnings": (), "error": None,
    "raw": None,
}


def _read_fields(values: Dict[str, Any], obj: Dict[str, Any], keys: Dict[str, str], defaults: Dict[str, Any]) -> None:
    """Fill ``values`` with every field: its key's value in ``obj`` when present (whatever it
    is, null included), else its default. The same as one ``obj.get(key, default)`` per field,
    for less: the frozen dataclasses' __init__ (16 object.__setattr__ calls) and then a get per
    field made the typed outcome cost more than decoding its JSON (round 6)."""
    values.update(defaults)
    for key, value in obj.items():
        name = keys.get(key)
        if name is not None:
            values[name] = value


def _convert_outcome(values: Dict[str, Any], obj: Dict[str, Any]) -> None:
    values["allowed"] = bool(values["allowed"])
    values["hooks"] = [HookTrace.from_json(t) for t in values["hooks"]]
    values["warnings"] = list(values["warnings"])
    err = values["error"]
    values["error"] = OutcomeError.from_json(err) if isinstance(err, dict) else None
    values["raw"] = obj


def _fields_of(obj: Dict[str, Any], keys: Dict[str, str], defaults: Dict[str, Any]) -> Dict[str, Any]:
    """The field values from_json gives a subclass's ``__init__`` (it may have a
    ``__post_init__``)."""
    values: Dict[str, Any] = {}
    _read_fields(values, obj, keys, defaults)
    if defaults is _TRACE_DEFAULTS:
        values["duration_ms"] = float(values["duration_ms"])
        values["json_io"] = bool(values["json_io"])
        values["persistent"] = bool(values["persistent"])
        values["raw"] = obj
    else:
        _convert_outcome(values, obj)
    return values


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


class Request(Dict[str, Any]):
    """What a registered function gets: the envelope (a ``callback:`` hook: exactly what a jsonIO
    hook reads on stdin), ``{"prompt", "envelope"}`` (the ``prompt`` evaluator) or ``{"hook",
    "input"}`` (a Claude Code ``prompt``/``agent``/``mcp_tool`` hook).

    It is the parsed JSON itself (a ``dict``: ``req["toolName"]``, ``req.get(...)`` work as
    before; ``raw`` is the same object as a plain dict) with the snake_case attributes of
    ``Outcome``: ``req.tool_name``, ``req.tool_input``, ``req.prompt``, ``req.envelope`` (a
    ``Request`` too), ... Any envelope field ``foo_bar`` reads the key ``fooBar`` (or
    ``foo_bar`` as sent); an absent field is ``None``.
    """

    __slots__ = ()

    @property
    def raw(self) -> Dict[str, Any]:
        return dict(self)

    def _field(self, snake: str) -> Any:
        camel = _camel(snake)
        if camel in self:
            return self[camel]
        return self.get(snake)

    @property
    def event(self) -> Optional[str]:
        return self.get("event")

    @property
    def tool_name(self) -> Optional[str]:
        return self._field("tool_name")

    @property
    def tool_args(self) -> Optional[str]:
        return self._field("tool_args")

    @property
    def tool_input(self) -> Optional[Dict[str, Any]]:
        return self._field("tool_input")

    @property
    def session_id(self) -> Optional[str]:
        return self._field("session_id")

    @property
    def prompt(self) -> Optional[str]:
        """The prompt evaluator's question, or a userPromptSubmit envelope's prompt."""
        return self.get("prompt")

    @property
    def envelope(self) -> Optional["Request"]:
        """The prompt evaluator's envelope (``None`` on a callback's request, which is one)."""
        env = self.get("envelope")
        return Request(env) if isinstance(env, dict) else None

    @property
    def hook(self) -> Optional[Dict[str, Any]]:
        """A Claude Code hook's own fields (its request is ``{"hook", "input"}``)."""
        return self.get("hook")

    @property
    def input(self) -> Optional[Dict[str, Any]]:
        """What Claude Code would give the hook on stdin (snake_case keys)."""
        return self.get("input")

    def __getattr__(self, name: str) -> Any:
        # Only called for names that are not attributes: envelope fields in snake_case.
        if name.startswith("_") or name != name.lower():
            raise AttributeError(name)
        return self._field(name)


class Record(Dict[str, Any]):
    """What the ``on_decision`` observer gets once per fire: ``record.envelope`` (a ``Request``;
    ``None`` when the input was not an envelope) and ``record.outcome`` (an ``Outcome``, as
    ``fire()`` returns). It is the parsed JSON too: ``record["outcome"]`` is the raw dict, and
    ``raw`` the whole record as a plain dict."""

    __slots__ = ()

    @property
    def raw(self) -> Dict[str, Any]:
        return dict(self)

    @property
    def envelope(self) -> Optional[Request]:
        env = self.get("envelope")
        return Request(env) if isinstance(env, dict) else None

    @property
    def outcome(self) -> Outcome:
        out = self.get("outcome")
        return Outcome.from_json(out if isinstance(out, dict) else {})
