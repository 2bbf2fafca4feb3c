"""The Hooks class: one engine, its fires, and the host functions registered on it."""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import dataclasses
import difflib
import json
import sys
import threading
import weakref
from typing import Any, Callable, Dict, Optional, Union

from . import _callbacks, _completions, _ffi
from ._errors import OhHooksError
from ._types import Envelope, Options, Outcome

# The engine's outcome when nothing ran and there is nothing to warn about: by far the most
# common one, decoded without json.loads (the same Outcome from_json would build).
_NOTHING_RAN = b'{"allowed":true,"hooks":[]}'


# Its fields: Outcome's defaults with allowed true. Built as from_json builds an outcome (its
# dict filled at once), not through the frozen dataclass's __init__, which sets each of its 16
# fields with object.__setattr__: 26,800 instructions, 16 times the engine's no-match fire; the lists
# and the raw dict are made fresh for every outcome, as the caller owns them.
# (Every field in order, so the instance's dict is the one __init__ would make.)
_NOTHING_RAN_FIELDS = {f.name: None if f.default is dataclasses.MISSING else f.default
                       for f in dataclasses.fields(Outcome)}


def _outcome(raw: bytes) -> Outcome:
    if raw == _NOTHING_RAN:
        o = object.__new__(Outcome)
        fields = o.__dict__
        fields.update(_NOTHING_RAN_FIELDS)
        fields["allowed"] = True  # (a field without a default: None in the template)
        fields["hooks"] = []
        fields["warnings"] = []
        fields["raw"] = {"allowed": True, "hooks": []}
        return o
    return Outcome.from_json(_loads(raw))


# json.loads without its Python wrapper (encoding detection, JSONDecoder.decode, raw_decode):
# the C scanner of a decoder with json.loads's defaults, on text the engine wrote (compact UTF-8
# JSON, no BOM). Anything it does not take whole, or any error, goes to json.loads, for its
# result or its exception.
_scan_once = json.JSONDecoder().scan_once


def _loads(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8", "surrogatepass")
        value, end = _scan_once(text, 0)
        if end == len(text):
            return value
    except (ValueError, StopIteration):  # (JSONDecodeError and UnicodeDecodeError are ValueErrors)
        pass
    return json.loads(raw)


# What json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False) builds on
# every call (only the default arguments share a cached encoder): built once, same output.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# What _COMPACT.encode(value) runs, without the Python around it (JSONEncoder.encode and
# iterencode, which define a closure per call: 4,500 instructions a call): the C encoder
# as iterencode makes it for these settings (Python 3.9 to 3.13), with its own markers dict,
# so a circular value is still a ValueError. None where the C encoder is missing (then encode).
_c_make_encoder = json.encoder.c_make_encoder
_encode_str = json.encoder.encode_basestring
_default = _COMPACT.default


def _dumps(value: Any) -> bytes:
    """Compact JSON as UTF-8. NaN/Infinity are refused (they are not JSON)."""
    try:
        if _c_make_encoder is not None:
            text = "".join(_c_make_encoder({}, _default, _encode_str, None, ":", ",", False, False, False)(value, 0))
        else:
            text = _COMPACT.encode(value)
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate in a str: let \\uXXXX escapes carry it and the engine judge it.
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode("ascii")


def _encode_raw(text: Union[str, bytes]) -> bytes:
    if isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            # Surrogates (e.g. from surrogateescape) pass through as the bytes they stand
            # for, so malformed UTF-8 reaches the engine, which reports invalid_utf8.
            try:
                data = text.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                data = text.encode("utf-8", "surrogatepass")
    elif isinstance(text, (bytes, bytearray, memoryview)):
        data = bytes(text)
    else:
        raise TypeError(f"raw envelope JSON must be str or bytes, not {type(text).__name__}")
    if b"\0" in data:
        raise ValueError("embedded NUL byte: a C string cannot carry it")
    return data


# ``Hooks(default_timeout_ms=...)``: each keyword option and the engine's key it sets (docs/options.md
# "Options"; tests/it/option_lists.rs keeps this list equal to what the engine accepts).
_KEYWORDS = {
    "cwd": "cwd",
    "home": "home",
    "layers": "layers",
    "config_path": "configPath",
    "config": "config",
    "trusted": "trusted",
    "default_timeout_ms": "defaultTimeoutMs",
    "env": "env",
    "strict": "strict",
    "max_output_bytes": "maxOutputBytes",
    "wait_non_blocking": "waitNonBlocking",
    "watch": "watch",
    "http_proxy": "httpProxy",
    "claude": "claude",
    "claude_plugins": "claudePlugins",
    "gemini": "gemini",
    "claude_project_dir": "claudeProjectDir",
    "codex": "codex",
    "cursor": "cursor",
    "copilot": "copilot",
    "shutdown_timeout_ms": "shutdownTimeoutMs",
    "tools": "tools",
}
_CAMEL_TO_KEYWORD = {camel: kw for kw, camel in _KEYWORDS.items()}


def _options(options: Optional[Options], keywords: Dict[str, Any]) -> Any:
    """The options dict and the keyword options as one engine options object. A keyword set to
    ``None`` is left out (the engine's default); an unknown keyword, or one the dict also sets,
    is a ``TypeError`` naming it."""
    if not keywords:
        return options  # whatever it is: the engine judges it (a list is invalid_options)
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"Hooks() options must be a dict to combine with keyword options, not {type(options).__name__}")
    merged: Dict[str, Any] = dict(options or {})
    for kw, value in keywords.items():
        key = _KEYWORDS.get(kw)
        if key is None:
            hint = _CAMEL_TO_KEYWORD.get(kw) or next(iter(difflib.get_close_matches(kw, _KEYWORDS, n=1)), None)
            also = f" (did you mean {hint!r}?)" if hint else ""
            raise TypeError(
                f"Hooks() got an unexpected keyword option {kw!r}{also}; "
                f"the keyword options are {', '.join(_KEYWORDS)}"
            )
        if key in merged:
            raise TypeError(f"Hooks() got option {key!r} twice: in the options dict and as the keyword {kw!r}")
        if value is not None:
            merged[key] = value
    return merged


# Calls enter and leave the engine (Hooks._enter/_leave) without taking the lock when the GIL
# makes each of their steps atomic; it was a third of a no-match fire(dict) (round 6). A
# free-threaded build (3.13t) running without its GIL takes the lock, as before. The GIL, once
# on, stays on (importing an extension can only turn it on), so reading this once is enough.
_LOCK_FREE = bool(getattr(sys, "_is_gil_enabled", lambda: True)())
_get_ident = threading.get_ident


# Engines still open. At interpreter exit they are closed while Python still runs, so that no
# engine thread calls a registered function (or the observer) into a finalizing interpreter.
_open: "weakref.WeakSet[Hooks]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for hooks in list(_open):
        try:
            hooks.close()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


class Hooks:
    """One hook engine: its config, its trust decision, its running hooks.

    ``Hooks(options)`` loads and validates the config at once and raises
    ``OhHooksError`` (``code`` ``invalid_options``, ``invalid_config`` or
    ``io_error``, with ``file``/``line``/``path`` when known) on any problem.

    Threads: ``fire``, ``fire_json`` and ``reload`` may be called from many
    threads at once; the GIL is released while the engine works. ``close()``
    first marks the engine closed (every later call raises ``OhHooksError``
    with code ``closed``), then waits until every call already inside the
    engine has returned, and only then frees it. So ``close()`` can block for
    as long as the slowest hook in flight, plus the background hooks the
    engine drains when freed (each bounded by its timeout). ``close()`` is
    idempotent; a second concurrent ``close()`` returns at once. Called from
    a thread that is itself inside a call (a signal handler interrupting
    ``fire``), it cannot wait for that call: it marks the engine closed and
    the call frees the engine as it returns.

    Use it as a context manager, or call ``close()``; ``__del__`` frees an
    engine that was forgotten, as a safety net only.

    Host functions (``register``, ``on_decision``) run on the thread that runs
    their hook: the caller of ``fire`` for a blocking event, an engine thread
    for ``fire_async`` and for background hooks; the GIL is held only while
    Python code runs. ``close()`` answers callbacks still waiting for a
    coroutine with a failure, so it never waits for a blocked event loop.
    """

    def __init__(self, options: Optional[Options] = None, **keywords: Any) -> None:
        """``options`` is the engine's options dict (camelCase keys, as in docs/options.md
        "Options"); keyword options in snake_case set the same keys
        (``Hooks(cwd="../project", default_timeout_ms=5000)``) and may be combined with it."""
        # Set first, so __del__ is safe even if the constructor raises.
        self._handle: Optional[int] = None
        # Reentrant, so that close() from a signal handler that interrupted this very
        # thread inside _enter/_leave cannot deadlock on it.
        self._cv = threading.Condition(threading.RLock())
        # Calls inside the engine right now, per thread ident. Each change is a single
        # store, so a signal handler running close() between two bytecodes always sees
        # a consistent picture.
        self._inside: Dict[int, int] = {}
        self._deferred: Optional[int] = None  # a handle the last call out must free
        self._host = _callbacks.Host()
        self._observer_key = 0
        # fire_async's pipes, one per event loop (oh_hooks_fire_async_fd).
        self._completions: Dict[asyncio.AbstractEventLoop, Optional[_completions.Completions]] = {}
        self._lib = _ffi.lib()

        merged = _options(options, keywords)
        options_json = None if merged is None else _dumps(merged)
        err = ctypes.c_void_p()
        handle = self._lib.new(options_json, ctypes.byref(err))
        if not handle:
            if not err.value:
                raise OhHooksError("internal", "oh_hooks_new failed without an error message")
            raise OhHooksError.from_json(json.loads(self._lib.take_string(err.value)))
        if err.value:  # the contract says NULL on success; never leak it if not
            self._lib.string_free(err.value)
        self._handle = handle
        _open.add(self)

    # -- the handle's lifetime -------------------------------------------------

    def _enter(self, what: str) -> int:
        if not _LOCK_FREE:
            with self._cv:
                return self._enter_locked(what)
        # Without the lock (with the GIL, each step below is atomic and they happen in this
        # order for every thread): counted first, then _handle read. close() sets _handle to
        # None first, then looks at _inside, so either this call reads None and leaves, or
        # close() sees it counted and waits for it (or, from a signal handler that interrupted
        # this very thread, defers the free to it).
        inside = self._inside
        tid = _get_ident()
        inside[tid] = inside.get(tid, 0) + 1
        handle = self._handle
        if handle is None:
            self._leave()
            raise OhHooksError("closed", f"{what}() called after close(): create a new Hooks")
        return handle

    def _enter_locked(self, what: str) -> int:
        tid = _get_ident()
        self._inside[tid] = self._inside.get(tid, 0) + 1  # counted first ...
        handle = self._handle  # ... then read: a close() in between defers the free
        if handle is None:
            self._leave()
            raise OhHooksError("closed", f"{what}() called after close(): create a new Hooks")
        return handle

    def _leave(self) -> None:
        if not _LOCK_FREE:
            with self._cv:
                self._count_out()
        else:
            inside = self._inside  # as _count_out (kept inline: this runs on every call)
            tid = _get_ident()
            n = inside[tid]
            if n == 1:
                del inside[tid]
            else:
                inside[tid] = n - 1
        if self._handle is not None:
            return  # not closing: nobody waits, nothing was deferred
        # Closing. close() waits (on _cv) for _inside to empty, having set _handle to None
        # before it looked; this call's count was out before _handle was read here, so if
        # close() saw it counted, this call sees None and wakes it. The lock orders the rest.
        deferred = None
        with self._cv:
            if not self._inside:
                self._cv.notify_all()
                deferred, self._deferred = self._deferred, None
        if deferred:
            self._lib.free(deferred)
            self._freed()

    def _count_out(self) -> None:
        tid = _get_ident()
        n = self._inside[tid]
        if n == 1:
            del self._inside[tid]
        else:
            self._inside[tid] = n - 1

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Free the engine, after every call in flight has returned. Idempotent.

        Pending ``fire_async`` calls complete first (the engine waits for them); a
        callback still waiting for a coroutine is answered with a failure (deny)."""
        with self._cv:
            handle, self._handle = self._handle, None
            if handle is None:
                return
            self._host.begin_closing()
            if self._inside.get(threading.get_ident()):
                # Called from this very thread while one of its calls is still inside
                # (a signal handler, say): waiting would deadlock, so the last call
                # to leave the engine frees it.
                self._deferred = handle
                return
            while self._inside:
                self._cv.wait()
        # Outside the lock: freeing drains background hooks, which may take a while.
        self._lib.free(handle)
        self._freed()

    def _freed(self) -> None:
        # Every fire_async record is written by now: each loop reads its last ones, then closes.
        completions, self._completions = self._completions, {}
        for c in completions.values():
            if c is not None:
                c.engine_freed()

    def __enter__(self) -> "Hooks":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # Nothing else can be inside fire() here: that call would hold a reference.
        try:
            handle = self._handle
            self._handle = None
            if handle:
                self._host.begin_closing()
                self._lib.free(handle)
                self._freed()
        except Exception:  # interpreter shutdown: modules may already be gone
            pass

    def __repr__(self) -> str:
        return f"<oh_hooks.Hooks {'closed' if self.closed else 'open'}>"

    # -- calls -----------------------------------------------------------------

    def fire(self, envelope: Union[Envelope, str, bytes]) -> Outcome:
        """Fire one event; ``envelope`` is ``{"event": ..., **context}``.

        A ``str`` (or ``bytes``) is the envelope as raw JSON text, passed
        through unchanged as Node's ``fire`` does, so ``fire('{"event": ...}')``
        works and malformed text is reported by the engine.

        Bad input does not raise: the outcome then has ``error`` set and
        ``allowed`` false. Raises ``OhHooksError`` (code ``closed``) after
        ``close()``, and ``TypeError``/``ValueError`` for a value JSON cannot
        carry (an object that is not JSON, NaN) or a NUL byte in raw text.
        """
        if isinstance(envelope, (str, bytes, bytearray, memoryview)):
            data = _encode_raw(envelope)
        else:
            data = _dumps(envelope)
        return _outcome(self._fire(data, "fire"))

    def fire_json(self, envelope_json: Union[str, bytes]) -> str:
        """Fire with the envelope as raw JSON text, returning the outcome JSON text unchanged.

        The text is passed as it is, malformed or not (``str`` is encoded as
        UTF-8; ``bytes`` are passed untouched). A NUL byte raises
        ``ValueError``, as a C string cannot carry one.
        """
        return self._fire(_encode_raw(envelope_json), "fire_json").decode("utf-8", "surrogateescape")

    def _fire(self, data: bytes, what: str) -> bytes:
        handle = self._enter(what)
        try:
            return self._lib.take_owned(self._lib.fire(handle, data))
        finally:
            self._leave()

    # -- host callbacks ----------------------------------------------------------

    def _need_callbacks(self, what: str) -> None:
        if not self._lib.has_callbacks:
            raise OhHooksError("unsupported", f"{self._lib.path} has no host callbacks (oh_hooks_register, "
                                              f"oh_hooks_fire_async, ...), which {what}() needs: rebuild the library")

    def register(self, name: str, fn: Optional[Callable[[Dict[str, Any]], Any]]) -> None:
        """Register ``fn`` for the config's ``callback: <name>`` hooks, replacing any
        function registered under ``name``; ``None`` removes the registration.

        ``fn(request)`` gets the envelope as a dict (for ``name == "prompt"``, the
        evaluator of prompt hooks: ``{"prompt": question, "envelope": {...}}``) and
        returns a response dict such as ``{"decision": "deny", "reason": "..."}``
        (read like a jsonIO hook's output), or ``None`` for no decision. An
        exception fails the hook: it denies on a blocking event, with the
        exception's text as the reason in the trace.

        ``fn`` may be an ``async def`` function when this object is driven from
        asyncio: its coroutine runs on the loop that called ``register`` or, later,
        ``fire_async``, and the hook's ``timeout`` bounds it. A plain function runs
        on the hook's own thread (see the class documentation).
        """
        self._need_callbacks("register")
        if not isinstance(name, str) or not name:
            raise TypeError("register(name, fn): name must be a non-empty str")
        if "\0" in name:
            raise ValueError("register(name, fn): name contains a NUL character, which a C string cannot carry")
        if fn is not None and not callable(fn):
            raise TypeError("register(name, fn): fn must be callable or None")
        try:
            self._host.loop = asyncio.get_running_loop()
        except RuntimeError:
            pass
        key = 0
        if fn is not None:
            key = _callbacks.next_key()
            _callbacks.registrations[key] = _callbacks.Registration(self._host, name, fn)
        handle = self._enter("register")
        try:
            err = ctypes.c_void_p()
            if fn is None:
                rc = self._lib.register(handle, name.encode("utf-8"), _callbacks.NULL_CALLBACK, None,
                                        _callbacks.NULL_RELEASE, ctypes.byref(err))
            else:
                rc = self._lib.register(handle, name.encode("utf-8"), _callbacks.CALL_TRAMPOLINE, key,
                                        _callbacks.RELEASE_TRAMPOLINE, ctypes.byref(err))
            self._check(rc, err, "oh_hooks_register")
        except BaseException:
            _callbacks.registrations.pop(key, None)  # refused: the engine keeps nothing
            raise
        finally:
            self._leave()

    def on_decision(self, fn: Optional[Callable[[Dict[str, Any]], Any]]) -> None:
        """Call ``fn(record)`` once per fire, once all its hooks (background ones
        included) have finished: ``record`` is ``{"envelope": {...}, "outcome":
        {...}}`` with every hook's trace. It runs on the firing thread (a
        synchronous fire, before ``fire`` returns) or on an engine thread; keep it
        short, and hand off to a queue for slow work. An exception in it is
        logged (logger ``oh_hooks``) and otherwise ignored. ``None`` stops observing.
        """
        self._need_callbacks("on_decision")
        if fn is not None and not callable(fn):
            raise TypeError("on_decision(fn): fn must be callable or None")
        self._host.observer = fn
        want = fn is not None
        if want == bool(self._observer_key):
            return
        handle = self._enter("on_decision")
        try:
            err = ctypes.c_void_p()
            if want:
                key = _callbacks.next_key()
                _callbacks.observers[key] = self._host
                rc = self._lib.observe(handle, _callbacks.RECORD_TRAMPOLINE, key,
                                       _callbacks.OBSERVER_RELEASE_TRAMPOLINE, ctypes.byref(err))
                if rc != 0:
                    _callbacks.observers.pop(key, None)
                self._check(rc, err, "oh_hooks_observe")
                self._observer_key = key
            else:
                rc = self._lib.observe(handle, _callbacks.NULL_OBSERVER, None, _callbacks.NULL_RELEASE,
                                       ctypes.byref(err))
                self._check(rc, err, "oh_hooks_observe")
                self._observer_key = 0
        finally:
            self._leave()

    async def fire_async(self, envelope: Dict[str, Any]) -> Outcome:
        """Fire one event on the engine's threads and await its outcome; the event
        loop keeps running meanwhile (so ``async def`` callbacks can run on it).

        Cancelling the awaiting task (``task.cancel()``, ``asyncio.wait_for``
        timing out) cancels the fire in the engine: its running hooks are
        stopped (process groups killed, pending callbacks dropped) and
        ``CancelledError`` propagates. Errors are as for ``fire``.
        """
        self._need_callbacks("fire_async")
        loop = asyncio.get_running_loop()
        self._host.loop = loop
        data = _dumps(envelope)
        completions = None
        if self._lib.fire_async_fd is not None:
            handle = self._enter("fire_async")
            try:
                # Made inside the call: close() then waits for it, and gives its pipe back.
                completions = _completions.for_loop(self._completions, loop)
                if completions is not None:
                    completions.make_room()  # else the engine's write could block this thread
                    fire_id = self._lib.fire_async_fd(handle, data, completions.w)
                    if fire_id == 0:  # nothing fired, no record will come
                        raise OhHooksError("internal", "oh_hooks_fire_async_fd returned 0: no fire was started")
                    fut = completions.wait(fire_id)
            finally:
                self._leave()
        if completions is None:
            fut = loop.create_future()
            key = _callbacks.next_key()
            _callbacks.fires[key] = (loop, fut)
            try:
                handle = self._enter("fire_async")
            except BaseException:
                _callbacks.fires.pop(key, None)
                raise
            try:
                # done may run before this returns (on an engine thread, or on this one when the
                # engine refuses the fire); it only schedules _settle on the loop, so that is fine.
                fire_id = self._lib.fire_async(handle, data, _callbacks.DONE_TRAMPOLINE, key)
            finally:
                self._leave()
        try:
            raw = await fut
        except asyncio.CancelledError:
            self._cancel(fire_id)
            raise
        return _outcome(raw)

    def _cancel(self, fire_id: int) -> None:
        try:
            handle = self._enter("cancel")
        except OhHooksError:
            return  # closed: freeing the engine waited for the fire, nothing left to stop
        try:
            self._lib.cancel(handle, fire_id)
        finally:
            self._leave()

    def _check(self, rc: int, err: ctypes.c_void_p, what: str) -> None:
        if rc == 0:
            if err.value:
                self._lib.string_free(err.value)
            return
        if not err.value:
            raise OhHooksError("internal", f"{what} failed ({rc}) without an error message")
        raise OhHooksError.from_json(json.loads(self._lib.take_string(err.value)))

    def reload(self) -> None:
        """Re-read the config files now. On error raises ``OhHooksError`` and
        the config in force stays as it was."""
        if self._lib.reload is None:
            raise OhHooksError("unsupported", f"{self._lib.path} has no oh_hooks_reload: rebuild the library")
        handle = self._enter("reload")
        try:
            err = ctypes.c_void_p()
            rc = self._lib.reload(handle, ctypes.byref(err))
            if rc == 0:
                if err.value:
                    self._lib.string_free(err.value)
                return
            if not err.value:
                raise OhHooksError("internal", f"oh_hooks_reload failed ({rc}) without an error message")
            raise OhHooksError.from_json(json.loads(self._lib.take_string(err.value)))
        finally:
            self._leave()


def version() -> str:
    """The loaded library's version, e.g. ``"0.1.0"``."""
    return _ffi.lib().version().decode("utf-8")


def library_path() -> str:
    """The full path of the library this process loaded (loading it if needed)."""
    return str(_ffi.lib().path)
