"""The host side of the engine: registered functions, the decision observer, async fires.

The engine calls back through four C function pointers. Each is ONE module-level ctypes
trampoline that lives as long as the module, so no CFUNCTYPE object can be collected while the
engine may still call it; ``user_data`` is an integer key into a table here, removed when the
engine says it is done with it (``release``, or ``done``).

Threads. A callback runs on the thread that runs its hook: the caller of ``Hooks.fire`` for a
blocking event, an engine thread for ``fire_async`` and for background hooks. ctypes takes the
GIL for the duration of the Python code and gives it back when the trampoline returns; every
call into the library releases it. A coroutine function's answer is computed on the asyncio
loop the ``Hooks`` object is driven from (``run_coroutine_threadsafe``) and given to the engine
from there, so no thread waits for it.

Nothing raised by host code crosses into C: an exception becomes a failed hook (a deny with the
exception's text as its reason, which lands in the trace).
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
import threading
from typing import Any, Callable, Dict, Optional, Tuple, Union

from . import _ffi
from ._types import Record, Request

log = logging.getLogger("oh_hooks")

FAIL_CLOSED = b'{"decision":"deny","reason":"callback not answered: the Hooks object was closed"}'

_keys = itertools.count(1)  # next() on a count is atomic under the GIL


def failure(name: str, what: str) -> bytes:
    """A failed callback as the engine reads it: a deny whose reason says what went wrong."""
    return json.dumps({"decision": "deny", "reason": f"callback {name!r} failed: {what}"},
                      separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def _exc_text(e: BaseException) -> str:
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


class RawResponse:
    """A callback's answer given as response text, passed to the engine exactly as it is (read
    like a jsonIO hook's stdout: text that is not JSON is a malformed response). For hosts that
    already hold the answer as JSON, such as one relayed from another process."""

    __slots__ = ("data",)

    def __init__(self, text: Union[str, bytes]) -> None:
        if isinstance(text, str):
            text = text.encode("utf-8", "surrogatepass")
        if not isinstance(text, (bytes, bytearray)):
            raise TypeError(f"RawResponse(text): text must be str or bytes, not {type(text).__name__}")
        self.data = bytes(text)

    def __repr__(self) -> str:
        return f"RawResponse({self.data!r})"


# json.dumps with these arguments builds an encoder on every call; this one is built once.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def answer_json(name: str, value: Any) -> Optional[bytes]:
    """The response JSON for what a callback returned; None means no decision."""
    if value is None:
        return None
    if isinstance(value, RawResponse):
        if b"\0" in value.data:
            return failure(name, "its RawResponse contains a NUL byte")
        return value.data
    if not isinstance(value, dict):
        return failure(name, f"it returned {type(value).__name__}; return a dict such as "
                             '{"decision": "deny", "reason": "..."}, or None for no decision')
    try:
        return _COMPACT.encode(value).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError) as e:
        return failure(name, f"its response cannot be encoded as JSON ({_exc_text(e)})")


class Host:
    """What the trampolines need of one ``Hooks`` object (never the object itself, so the
    tables here do not keep a forgotten ``Hooks`` alive)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.closing = False
        self.loop: Optional[asyncio.AbstractEventLoop] = None
        self.observer: Optional[Callable[[Dict[str, Any]], Any]] = None
        # Calls a coroutine will answer: key -> the engine's call pointer, and the coroutine's
        # concurrent future (cancelled when the Hooks object closes).
        self.calls: Dict[int, int] = {}
        self.futures: Dict[int, Any] = {}

    def answer(self, key: int, response: Optional[bytes]) -> None:
        with self.lock:
            call = self.calls.pop(key, None)
            self.futures.pop(key, None)
        if call is not None:
            _ffi.lib().respond(call, response)

    def begin_closing(self) -> None:
        """Answer every call still waiting for a coroutine, and every later one at once, so
        that freeing the engine never waits for this (maybe blocked) loop."""
        with self.lock:
            self.closing = True
            calls, self.calls = self.calls, {}
            futures, self.futures = self.futures, {}
        respond = _ffi.lib().respond
        for call in calls.values():
            respond(call, FAIL_CLOSED)
        for fut in futures.values():
            fut.cancel()  # the coroutines stop at their next await


class Registration:
    __slots__ = ("host", "name", "fn")

    def __init__(self, host: Host, name: str, fn: Callable[..., Any]) -> None:
        self.host = host
        self.name = name
        self.fn = fn


registrations: Dict[int, Registration] = {}
observers: Dict[int, Host] = {}
# key -> (loop, future) of a fire_async waiting for its done.
fires: Dict[int, Tuple[asyncio.AbstractEventLoop, "asyncio.Future[bytes]"]] = {}


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _call_async(reg: Registration, awaitable: Any, call: int) -> None:
    host = reg.host
    loop = host.loop
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    problem = None
    if loop is None or loop.is_closed():
        problem = ("it is a coroutine, which needs the asyncio loop the Hooks object is driven from: "
                   "register it or fire with `await hooks.fire_async(...)` inside that loop")
    elif running is loop:
        problem = ("it is a coroutine, and the hook runs inside a synchronous fire() on the event loop's "
                   "own thread, which cannot run it; use `await hooks.fire_async(...)`")
    if problem is not None:
        if inspect.iscoroutine(awaitable):
            awaitable.close()  # never awaited on purpose: no "never awaited" warning
        _ffi.lib().respond(call, failure(reg.name, problem))
        return
    key = next(_keys)
    with host.lock:
        if host.closing:
            closing = True
        else:
            closing = False
            host.calls[key] = call
    if closing:
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        _ffi.lib().respond(call, FAIL_CLOSED)
        return

    def finished(f: "Any") -> None:
        if f.cancelled():
            host.answer(key, failure(reg.name, "its coroutine was cancelled"))
            return
        e = f.exception()
        if e is not None:
            host.answer(key, failure(reg.name, f"it raised {_exc_text(e)}"))
        else:
            host.answer(key, answer_json(reg.name, f.result()))

    try:
        cfut = asyncio.run_coroutine_threadsafe(_await(awaitable), loop)
    except RuntimeError as e:  # the loop closed in between
        host.answer(key, failure(reg.name, f"its event loop is gone ({e})"))
        return
    with host.lock:
        if key in host.calls:
            host.futures[key] = cfut
            stale = False
        else:  # answered already, or the Hooks object closed in between
            stale = host.closing
    if stale:
        cfut.cancel()
    cfut.add_done_callback(finished)


# json.loads of a str without its Python wrapper (JSONDecoder.decode and raw_decode): the C
# scanner of a decoder with json.loads's defaults, for the engine's compact request. What it does
# not take whole (leading or trailing text, an error) goes to json.loads, for its result or its
# exception.
_scan_once = json.JSONDecoder().scan_once


def _loads_text(text: str) -> Any:
    try:
        value, end = _scan_once(text, 0)
        if end == len(text):
            return value
    except (ValueError, StopIteration):  # (JSONDecodeError is a ValueError)
        pass
    return json.loads(text)


def _on_call(user_data: Optional[int], request: Optional[bytes], call: Optional[int]) -> None:
    if not call:
        return
    respond = _ffi.lib().respond
    try:
        reg = registrations.get(user_data or 0)
        if reg is None:
            respond(call, failure("?", "its registration is gone"))
            return
        try:
            req = _loads_text((request or b"null").decode("utf-8"))
            result = reg.fn(Request(req) if type(req) is dict else req)
        except BaseException as e:  # noqa: BLE001 - nothing may cross into C
            respond(call, failure(reg.name, f"it raised {_exc_text(e)}"))
            return
        # The common answers first: no decision, or a dict.
        if result is None:
            respond(call, None)
        elif type(result) is not dict and inspect.isawaitable(result):
            _call_async(reg, result, call)
        else:
            respond(call, answer_json(reg.name, result))
    except BaseException as e:  # noqa: BLE001 - last resort: answer, never leave the hook hanging
        try:
            respond(call, failure("?", f"the binding raised {_exc_text(e)}"))
        except BaseException:  # noqa: BLE001
            pass


def _on_release(user_data: Optional[int]) -> None:
    registrations.pop(user_data or 0, None)


def _on_record(user_data: Optional[int], record: Optional[bytes]) -> None:
    try:
        host = observers.get(user_data or 0)
        fn = host.observer if host is not None else None
        if fn is None:
            return
        rec = json.loads(record or b"null")
        fn(Record(rec) if type(rec) is dict else rec)
    except BaseException:  # noqa: BLE001 - an observer must not break the engine
        log.exception("oh_hooks: the on_decision observer raised")


def _on_observer_release(user_data: Optional[int]) -> None:
    observers.pop(user_data or 0, None)


def _settle(fut: "asyncio.Future[bytes]", raw: bytes) -> None:
    if not fut.done():
        fut.set_result(raw)


def _on_done(user_data: Optional[int], outcome: Optional[int]) -> None:
    try:
        raw = _ffi.lib().take_string(outcome)
    except MemoryError:
        raw = b'{"allowed":false,"hooks":[],"error":{"code":"internal","message":"no outcome (out of memory)"}}'
    entry = fires.pop(user_data or 0, None)
    if entry is None:
        return
    loop, fut = entry
    try:
        loop.call_soon_threadsafe(_settle, fut, raw)
    except RuntimeError:  # the loop is closed: nobody waits any more
        pass


# NULL function pointers (ctypes refuses None for a function-pointer argument).
NULL_CALLBACK = _ffi.CALLBACK()
NULL_RELEASE = _ffi.RELEASE()
NULL_OBSERVER = _ffi.OBSERVER()

CALL_TRAMPOLINE = _ffi.CALLBACK(_on_call)
RELEASE_TRAMPOLINE = _ffi.RELEASE(_on_release)
RECORD_TRAMPOLINE = _ffi.OBSERVER(_on_record)
OBSERVER_RELEASE_TRAMPOLINE = _ffi.RELEASE(_on_observer_release)
DONE_TRAMPOLINE = _ffi.DONE(_on_done)


def next_key() -> int:
    return next(_keys)
