"""Types of what goes in and out: ``Options`` and ``Envelope`` (TypedDicts, so a type checker
catches a misspelt key) and typed, frozen views of the outcome JSON (docs/envelope.md "The outcome").

Every outcome class keeps the JSON it was built from in ``raw``, so nothing the engine
reports is lost even if a later engine adds fields this module does not know.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Mapping, Optional, TypedDict, Type, TypeVar, Union

_T = TypeVar("_T")


def _frozen(cls: Type[_T], values: Dict[str, Any]) -> _T:
    """An instance of the frozen dataclass ``cls`` with these field values (every field, in
    order), as its ``__init__`` would build it. That ``__init__`` sets each field through
    ``object.__setattr__`` (frozen refuses plain assignment), which made building the typed
    outcome cost more than decoding its JSON; the fields go into the instance's dict at once
    instead. A subclass gets its own ``__init__`` (it may have a ``__post_init__``)."""
    o = object.__new__(cls)
    o.__dict__.update(values)
    return o


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
        get = obj.get
        values = {
            "index": get("index", -1),
            "type": get("type", ""),
            "result": get("result", ""),
            "duration_ms": float(get("durationMs", 0.0)),
            "json_io": bool(get("jsonIO", False)),
            "persistent": bool(get("persistent", False)),
            "exit_code": get("exitCode"),
            "signal": get("signal"),
            "status": get("status"),
            "timed_out": get("timedOut"),
            "reason": get("reason"),
            "stderr": get("stderr"),
            "error": get("error"),
            "dialect": get("dialect"),
            "source": get("source"),
            "failure": get("failure"),
            "raw": obj,
        }
        return _frozen(cls, values) if cls is HookTrace else cls(**values)


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
        get = obj.get
        err = get("error")
        values = {
            "allowed": bool(get("allowed", False)),
            "permission_decision": get("permissionDecision"),
            "reason": get("reason"),
            "additional_context": get("additionalContext"),
            "updated_input": get("updatedInput"),
            "updated_prompt": get("updatedPrompt"),
            "updated_permissions": get("updatedPermissions"),
            "interrupt": get("interrupt"),
            "continue_": get("continue"),
            "stop_reason": get("stopReason"),
            "system_message": get("systemMessage"),
            "hooks": [HookTrace.from_json(t) for t in get("hooks", [])],
            "warnings": list(get("warnings", [])),
            "error": OutcomeError.from_json(err) if isinstance(err, dict) else None,
            "raw": obj,
        }
        return _frozen(cls, values) if cls is Outcome else cls(**values)


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
