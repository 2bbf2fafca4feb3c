"""``fire_async``'s completions through a pipe (``oh_hooks_fire_async_fd``).

The engine writes one 16-byte record per fire (its id, then its outcome's address) to a pipe
the event loop watches with ``add_reader``, so no Python code runs on an engine thread: the
``done`` callback it replaces took the GIL from a thread Python did not start (a thread state
made and dropped per call) and then woke the loop with ``call_soon_threadsafe`` (docs/performance.md).
One pipe per engine and event loop: fire ids are only unique within an engine.

No write to the pipe may ever wait: the engine writes a refused fire's record on the calling
thread, which here is the loop's own, the one thread that reads the pipe (issue 20: 20,000 fires
through ``asyncio.gather`` left the loop and every engine thread blocked in that write). Unread
records never outnumber the fires in flight, so ``fire_async`` never has more fires in flight
than the pipe holds: at that point it grows the pipe to 1 MiB where the system allows, else reads
the pipe itself, and only when neither makes room does it refuse the fire (docs/decisions.md, "An
event-loop host bounds its fires by what its pipe holds"). The pipe is grown only when needed:
each page of it counts against the user's pipe memory (/proc/sys/fs/pipe-user-pages-soft), past
which every new pipe of that user, the hooks' own included, is kept at a page or two.
"""
from __future__ import annotations

import asyncio
import os
import struct
import sys
from typing import Dict, Optional

from . import _ffi
from ._errors import OhHooksError

_RECORD = struct.Struct("=QQ")  # uint64_t fire id, uint64_t address of the outcome JSON
_BATCH = 256  # records read at once (a pipe read of a multiple of 16 returns whole records)
_NO_OUTCOME = b'{"allowed":false,"hooks":[],"error":{"code":"internal","message":"no outcome (out of memory)"}}'
_PIPE_BYTES = 1 << 20  # grown to (65,536 records); Linux's default /proc/sys/fs/pipe-max-size
_F_SETPIPE_SZ, _F_GETPIPE_SZ = 1031, 1032  # Linux's values (fcntl names them from Python 3.10)
_LINUX = sys.platform.startswith("linux")


def _records(fd: int, grow_to: int = 0) -> int:
    """The records the pipe ``fd`` holds, after asking (Linux only, best effort) for ``grow_to``
    bytes. Exact: each record is one write of 16 bytes, which fills a page to its end, and every
    read empties the pipe (``Completions._readable``), so no page is left part read."""
    if not _LINUX:
        return 16384 // _RECORD.size  # no way to ask; a pipe holds 16 KiB at least on macOS, the BSDs
    import fcntl

    if grow_to:
        try:
            fcntl.fcntl(fd, _F_SETPIPE_SZ, grow_to)
        except OSError:
            pass  # over pipe-max-size or the user's pipe memory (EPERM): it keeps its size
    try:
        return fcntl.fcntl(fd, _F_GETPIPE_SZ) // _RECORD.size
    except OSError:
        return 4096 // _RECORD.size  # one page: the least a pipe holds


class Completions:
    """The pipe of one engine and one event loop, and the futures waiting on it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.r, self.w = os.pipe()  # not inherited by the hooks' processes (PEP 446)
        # The loop's end must not block the loop; the engine's end may (the engine waits for
        # room rather than drop a record).
        os.set_blocking(self.r, False)
        # A fire's future is here from the fire until its record is read (cancelled ones too:
        # their records still come), so its size is the fires in flight.
        self.waiting: Dict[int, "asyncio.Future[bytes]"] = {}
        self.capacity = _records(self.w)
        self.grown = False
        self.engine_gone = False
        self.fds_closed = False
        try:
            loop.add_reader(self.r, self._readable)
        except BaseException:  # a loop without add_reader (NotImplementedError): not used
            self.close_fds(on_loop=False)
            raise

    def make_room(self) -> None:
        """Called on the loop's thread before each fire, so that the engine's write of its record
        can never wait: with as many fires in flight as the pipe holds, grows the pipe (once),
        then reads it, and raises ``OhHooksError`` if it is still full. After a read the fires in
        flight are at most the engine's (8 running, 4,096 queued), so only a pipe the system kept
        at or below 64 KiB can refuse, and only while the engine is that busy."""
        if len(self.waiting) < self.capacity:
            return
        if not self.grown and _PIPE_BYTES > self.capacity * _RECORD.size:
            self.grown = True
            self.capacity = _records(self.w, _PIPE_BYTES)
        if len(self.waiting) >= self.capacity:
            self._readable()
        if len(self.waiting) >= self.capacity:
            raise OhHooksError(
                "internal",
                f"{len(self.waiting)} fires are already in flight on this Hooks and event loop, as many "
                f"as its completion pipe holds ({self.capacity * _RECORD.size} bytes, all the system "
                f"allowed); await some before firing more",
            )

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
