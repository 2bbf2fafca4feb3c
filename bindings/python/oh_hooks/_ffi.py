"""Loading liboh_hooks and declaring its C ABI (version 1 and the 1.1 host callbacks) for ctypes.

Every function gets ``argtypes`` and ``restype``. Strings the library hands
over (``char *``) are declared as ``c_void_p`` so the pointer survives for
``oh_hooks_string_free``; ``c_char_p`` would convert it to ``bytes`` and lose
it. ``ctypes.CDLL`` releases the GIL for the duration of every call, so a
slow hook in one thread never stalls the others.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from pathlib import Path
from typing import List, Optional, Tuple

from ._errors import OhHooksError

ENV_VAR = "OH_HOOKS_LIB"

if sys.platform == "darwin":
    LIB_NAME = "liboh_hooks.dylib"
elif sys.platform == "win32":
    LIB_NAME = "oh_hooks.dll"
else:
    LIB_NAME = "liboh_hooks.so"

# oh_hooks/ (this package) and bindings/python/ (the project that holds it).
_PACKAGE_DIR = Path(__file__).resolve().parent
_PROJECT_DIR = _PACKAGE_DIR.parent


# The names the dynamic loader is asked for when the library is installed system-wide
# (`make install`, a distribution package): the SONAME first, then the development symlink.
_SYSTEM_NAMES = {
    "darwin": ["liboh_hooks.dylib"],
    "win32": ["oh_hooks.dll"],
}.get(sys.platform, ["liboh_hooks.so.0", "liboh_hooks.so"])


def candidates() -> List[Tuple[str, Path]]:
    """The places the library is looked for, in order, as (label, path).

    1. ``$OH_HOOKS_LIB`` (a full path to the library file), when set: then it
       is the only place tried, so a wrong override is an error, not a
       silent fallback to some other build.
    2. Next to this module: ``oh_hooks/liboh_hooks.so`` (a wheel ships it there).
    3. The source tree's build output: ``bindings/python/../../target/release``.
    4. The system library path, by name (``liboh_hooks.so.0``, then ``liboh_hooks.so``), as the
       dynamic loader searches it: ``LD_LIBRARY_PATH``, the ld.so cache, /lib and /usr/lib.
       These paths are bare file names, with no directory.
    """
    override = os.environ.get(ENV_VAR)
    if override:
        return [(f"${ENV_VAR}", Path(override))]
    return [
        ("next to the package", _PACKAGE_DIR / LIB_NAME),
        ("the build tree", (_PROJECT_DIR / ".." / ".." / "target" / "release" / LIB_NAME).resolve()),
    ] + [("the system library path", Path(name)) for name in _SYSTEM_NAMES]


class _Lib:
    """The loaded library with its prototypes declared."""

    def __init__(self, cdll: ctypes.CDLL, path: Path) -> None:
        self.path = path
        c_void_p, c_char_p, c_int = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        out_str = ctypes.POINTER(ctypes.c_void_p)

        # OhHooks *oh_hooks_new(const char *options_json, char **error_out);
        self.new = cdll.oh_hooks_new
        self.new.argtypes = [c_char_p, out_str]
        self.new.restype = c_void_p

        # char *oh_hooks_fire(const OhHooks *hooks, const char *envelope_json);
        # Returns an OwnedString (see there): the caller reads .value and frees it.
        self.fire = cdll.oh_hooks_fire
        self.fire.argtypes = [c_void_p, c_char_p]
        self.fire.restype = OwnedString

        # void oh_hooks_free(OhHooks *hooks);
        self.free = cdll.oh_hooks_free
        self.free.argtypes = [c_void_p]
        self.free.restype = None

        # void oh_hooks_string_free(char *s);
        self.string_free = cdll.oh_hooks_string_free
        self.string_free.argtypes = [c_void_p]
        self.string_free.restype = None

        # const char *oh_hooks_version(void);  -- static, never freed, so c_char_p is right here
        self.version = cdll.oh_hooks_version
        self.version.argtypes = []
        self.version.restype = c_char_p

        # int oh_hooks_reload(const OhHooks *hooks, char **error_out);  -- a later addition:
        # a library without it still loads, and Hooks.reload() says what is missing.
        self.reload = getattr(cdll, "oh_hooks_reload", None)
        if self.reload is not None:
            self.reload.argtypes = [c_void_p, out_str]
            self.reload.restype = c_int

        # Host callbacks (1.1): optional, so an older library still loads for plain fires and
        # the methods that need them say what is missing.
        self.register = getattr(cdll, "oh_hooks_register", None)
        self.respond = getattr(cdll, "oh_hooks_respond", None)
        self.observe = getattr(cdll, "oh_hooks_observe", None)
        self.fire_async = getattr(cdll, "oh_hooks_fire_async", None)
        self.cancel = getattr(cdll, "oh_hooks_cancel", None)
        self.has_callbacks = None not in (self.register, self.respond, self.observe, self.fire_async, self.cancel)
        if self.has_callbacks:
            # int oh_hooks_register(const OhHooks *, const char *name, OhHooksCallback fn,
            #                       void *user_data, void (*release)(void *), char **error_out);
            self.register.argtypes = [c_void_p, c_char_p, CALLBACK, c_void_p, RELEASE, out_str]
            self.register.restype = c_int
            # void oh_hooks_respond(OhHooksCall *call, const char *response_json);
            self.respond.argtypes = [c_void_p, c_char_p]
            self.respond.restype = None
            # int oh_hooks_observe(const OhHooks *, OhHooksObserver fn, void *user_data,
            #                      void (*release)(void *), char **error_out);
            self.observe.argtypes = [c_void_p, OBSERVER, c_void_p, RELEASE, out_str]
            self.observe.restype = c_int
            # uint64_t oh_hooks_fire_async(const OhHooks *, const char *envelope_json,
            #                              OhHooksDone done, void *user_data);
            self.fire_async.argtypes = [c_void_p, c_char_p, DONE, c_void_p]
            self.fire_async.restype = ctypes.c_uint64
            # int oh_hooks_cancel(const OhHooks *, uint64_t fire_id);
            self.cancel.argtypes = [c_void_p, ctypes.c_uint64]
            self.cancel.restype = c_int

        # uint64_t oh_hooks_fire_async_fd(const OhHooks *, const char *envelope_json, int fd);
        # (issue 20) optional: without it fire_async completes through `done` as before.
        self.fire_async_fd = getattr(cdll, "oh_hooks_fire_async_fd", None)
        if self.fire_async_fd is not None:
            self.fire_async_fd.argtypes = [c_void_p, c_char_p, c_int]
            self.fire_async_fd.restype = ctypes.c_uint64

        self._cdll = cdll  # keep the library mapped as long as this object lives

    def take_owned(self, s: "OwnedString") -> bytes:
        """``take_string`` for a function whose restype is ``OwnedString``: the bytes, then
        the string freed. No ``string_at`` call (a foreign call of its own through ctypes)."""
        try:
            raw = s.value
        finally:
            self.string_free(s)
        if raw is None:
            raise MemoryError("liboh_hooks returned NULL where a string was due (out of memory)")
        return raw

    def take_string(self, ptr: Optional[int]) -> bytes:
        """Copy an owned C string out and free it, whatever happens in between."""
        if not ptr:
            raise MemoryError("liboh_hooks returned NULL where a string was due (out of memory)")
        try:
            # (c_char_p's .value reads it with strlen; ctypes.string_at is a foreign call of its own)
            return ctypes.c_char_p(ptr).value  # type: ignore[return-value]
        finally:
            self.string_free(ptr)


class OwnedString(ctypes.c_char_p):
    """The restype of a function that returns a string the caller frees: a subclass of
    ``c_char_p``, so ctypes hands over the object itself rather than converting it to ``bytes``
    (ctypes converts only the fundamental types themselves). ``.value`` copies the text out
    (``None`` for NULL) and the object, passed where a ``c_void_p`` is declared, is the pointer
    to give to ``oh_hooks_string_free``."""


# The host-callback function types. Calls through them take the GIL for as long as the Python
# code runs (ctypes does that), from whatever thread the engine uses. The request and record are
# borrowed (c_char_p copies them into bytes); the outcome given to `done` is owned, so it stays a
# pointer (c_void_p) to be freed with oh_hooks_string_free.
# void (*OhHooksCallback)(void *user_data, const char *request_json, OhHooksCall *call);
CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
# void (*release)(void *user_data);
RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
# void (*OhHooksObserver)(void *user_data, const char *record_json);
OBSERVER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)
# void (*OhHooksDone)(void *user_data, char *outcome_json);
DONE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)

_lib: Optional[_Lib] = None
_lib_lock = threading.Lock()


def lib() -> _Lib:
    """The library, loaded on first use (so importing the package never fails)."""
    global _lib
    if _lib is not None:
        return _lib
    with _lib_lock:
        if _lib is None:
            _lib = _load()
        return _lib


def _mapped_file(name: str) -> Optional[Path]:
    """The file the dynamic loader mapped for a library just loaded by bare name, read from
    /proc/self/maps (Linux), so ``library_path()`` can say where it was found. No earlier
    oh-hooks library is mapped (this is the first one loaded), so the first match is it."""
    stem = name.split(".so")[0] + ".so"
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split(None, 5)
                if len(parts) == 6 and Path(parts[5].strip()).name.startswith(stem):
                    return Path(parts[5].strip())
    except OSError:
        pass
    return None


def _load() -> _Lib:
    tried = []
    for label, path in candidates():
        by_name = len(path.parts) == 1  # searched by the dynamic loader, not a file we can check
        if not by_name and not path.is_file():
            tried.append(f"{path} ({label}): not found")
            continue
        try:
            cdll = ctypes.CDLL(str(path))
        except OSError as e:
            tried.append(f"{path} ({label}): " + ("not found" if by_name else f"cannot load: {e}"))
            continue
        if by_name:
            path = _mapped_file(path.name) or path
        try:
            return _Lib(cdll, path)
        except AttributeError as e:
            tried.append(f"{path} ({label}): not an oh-hooks library: {e}")
    raise OhHooksError(
        "library_not_found",
        f"cannot find {LIB_NAME}; tried: " + "; ".join(tried)
        + f". Install the oh-hooks wheel for this platform, build the library with `cargo build --release`,"
        f" or set {ENV_VAR} to its full path.",
    )
