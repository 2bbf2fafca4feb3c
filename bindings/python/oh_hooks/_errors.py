from __future__ import annotations

from typing import Any, Dict, Optional


class OhHooksError(Exception):
    """An error from the engine (creating it, reloading it) or from this binding.

    ``code`` is one of the contract's codes (``invalid_options``,
    ``invalid_config``, ``io_error``, ...) or one of the binding's own:
    ``closed`` (the engine was used after ``close()``), ``library_not_found``,
    ``unsupported`` (the loaded library lacks a function). ``file``, ``line``
    and ``path`` (the path inside the config, e.g.
    ``hooks.preToolUse[0].timeout``) are set when the engine knows them.
    ``raw`` is the engine's error JSON exactly as parsed (``{}`` for the
    binding's own errors).
    """

    def __init__(
        self,
        code: str,
        message: str,
        file: Optional[str] = None,
        line: Optional[int] = None,
        path: Optional[str] = None,
        raw: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.path = path
        self.raw: Dict[str, Any] = dict(raw) if raw is not None else {}

    @classmethod
    def from_json(cls, obj: Any) -> "OhHooksError":
        if not isinstance(obj, dict):
            return cls("internal", f"liboh_hooks returned a malformed error: {obj!r}")
        return cls(
            str(obj.get("code", "internal")),
            str(obj.get("message", "")),
            file=obj.get("file"),
            line=obj.get("line"),
            path=obj.get("path"),
            raw=obj,
        )

    def __str__(self) -> str:
        # The engine's messages usually name the file, line and path already ("invalid config in
        # <file> line 3 at `hooks...`: ..."): only what the message leaves out is appended.
        where = []
        if self.file is not None and self.file not in self.message:
            where.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.path is not None and self.path not in self.message:
            where.append(f"at {self.path}")
        suffix = f" ({' '.join(where)})" if where else ""
        return f"{self.code}: {self.message}{suffix}"

    def __repr__(self) -> str:
        return f"OhHooksError(code={self.code!r}, message={self.message!r}, file={self.file!r}, line={self.line!r}, path={self.path!r})"
