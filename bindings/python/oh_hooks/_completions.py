"""``fire_async``'s completions through a pipe (``oh_hooks_fire_async_fd``).

The engine writes one 16-byte record per fire (its id, then its outcome's address) to a pipe
the event loop watches with ``add_reader``, so no Python code runs on an engine thread: the
``done`` callback it replaces took the GIL from a thread Python did not start (a thread state
made and dropped per call) and then woke the loop with ``call_soon_threadsafe`` (docs/performance.md).
One pipe per engine and event loop: fire ids are only unique within an engine.
"""
from __future__ import annotations

import asyncio
import os
import struct
from typing import Dict, Optional

from . import _ffi

_RECORD = struct.Struct("=QQ")  # uint64_t fire id, uint64_t address of the outcome JSON
_BATCH = 256  # records read at once (a pipe read of a multiple of 16 returns whole records)
_NO_OUTCOME = b'{"allowed":false,"hooks":[],"error":{"code":"internal","message":"no outcome (out of memory)"}}'


class Completions:
    """The pipe of one engine and one event loop, and the futures waiting on it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.r, self.w = os.pipe()  # not inherited by the hooks' processes (PEP 446)
        # The loop's end must not block the loop; the engine's end may (the engine waits for
        # room rather than drop a record).
        os.set_blocking(self.r, False)
        self.waiting: Dict[int, "asyncio.Future[bytes]"] = {}
        self.engine_gone = False
        self.fds_closed = False
        try:
            loop.add_reader(self.r, self._readable)
        except BaseException:  # a loop without add_reader (NotImplementedError): not used
            self.close_fds(on_loop=False)
            raise

    def wait(self, fire_id: int) -> "asyncio.Future[bytes]":
        # Called on the loop's thread right after the fire: the reader runs on that same thread,
        # so the record cannot have been read before this future is there.
        fut: "asyncio.Future[bytes]" = self.loop.create_future()
        self.waiting[fire_id] = fut
        return fut

    def _readable(self) -> None:
        lib = _ffi.lib()
        while True:
            try:
                data = os.read(self.r, _RECORD.size * _BATCH)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            for fire_id, address in _RECORD.iter_unpack(data):
                try:
                    raw = lib.take_string(address or None)
                except MemoryError:
                    raw = _NO_OUTCOME
                fut = self.waiting.pop(fire_id, None)
                if fut is not None and not fut.done():
                    fut.set_result(raw)
            if len(data) < _RECORD.size * _BATCH:
                break
        if self.engine_gone and not self.waiting:
            self.close_fds()

    def engine_freed(self) -> None:
        """The engine is freed: every record is in the pipe. Read them on the loop, then close."""
        self.engine_gone = True
        try:
            self.loop.call_soon_threadsafe(self._readable)
        except RuntimeError:  # the loop is closed: its selector, and the reader, are gone
            self.close_fds(on_loop=False)

    def close_fds(self, on_loop: bool = True) -> None:
        if self.fds_closed:
            return
        self.fds_closed = True
        if on_loop:
            self.loop.remove_reader(self.r)
        os.close(self.r)
        os.close(self.w)


def for_loop(table: Dict[asyncio.AbstractEventLoop, Optional[Completions]],
             loop: asyncio.AbstractEventLoop) -> Optional[Completions]:
    """This loop's completions in ``table`` (one engine's), made on first use; None for a loop
    that cannot watch a file descriptor (then ``fire_async`` uses ``done``). Loops closed since
    (``asyncio.run`` makes one per call) give their pipes back."""
    if loop in table:
        return table[loop]
    for old in [lp for lp in table if lp.is_closed()]:
        c = table.pop(old)
        if c is not None:
            c.close_fds(on_loop=False)
    try:
        table[loop] = Completions(loop)
    except NotImplementedError:
        table[loop] = None
    return table[loop]
