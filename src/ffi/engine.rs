//! The version-1 functions: creating an engine, firing synchronously, reloading, freeing, and
//! the strings the library hands out.

use super::{boundary, into_c_string, null_argument, null_engine, report};
use crate::engine::Engine;
use crate::error::{Error, ErrorCode};
use crate::outcome::Outcome;
use crate::quick;
use std::ffi::{c_char, c_int, CStr};

/// An oh-hooks engine: its options, its validated config and the hooks it runs in the
/// background. Created by `oh_hooks_new`, released by `oh_hooks_free`. Opaque.
pub struct OhHooks {
    pub(crate) engine: Engine,
}

/// Creates an engine from `options_json` (a JSON object; docs/options.md "Options"), reading and validating
/// every config file it names. Persistent hooks marked `"eager"` start their process here; the
/// others on their first matching fire (docs/config.md "Persistent hooks").
///
/// Ownership: `options_json` is borrowed for the call and may be NULL (all defaults). On
/// success the caller owns the returned engine and releases it with `oh_hooks_free`; on
/// failure it returns NULL. When `error_out` is not NULL it is always written: NULL on success,
/// and on failure an error JSON `{"code","message"[,"file","line","path"]}` that the caller
/// owns and frees with `oh_hooks_string_free`.
///
/// Errors (`code`): `invalid_options` (unknown key, wrong type, zero or negative number, `cwd`
/// not a directory, `config` together with `configPath` or `layers`, options not UTF-8 or not
/// JSON), `invalid_config` (a config file or the inline config fails validation: `file`, `line`
/// and `path` say where), `io_error` (a config file exists but cannot be read), `internal`.
///
/// Thread safety: may be called from any thread, concurrently with anything.
///
/// # Safety
/// `options_json` is NULL or a NUL-terminated string; `error_out` is NULL or points to a
/// writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_new(options_json: *const c_char, error_out: *mut *mut c_char) -> *mut OhHooks {
    let result = boundary(|| {
        let options = if options_json.is_null() {
            None
        } else {
            // SAFETY: the caller passes a NUL-terminated string that lives for the call.
            match unsafe { CStr::from_ptr(options_json) }.to_str() {
                Ok(s) => Some(s),
                Err(e) => {
                    return Err(Error::new(
                        ErrorCode::InvalidOptions,
                        format!("options are not valid UTF-8 ({e}); expected a UTF-8 JSON object"),
                    ))
                }
            }
        };
        Engine::new(options).map(|engine| Box::into_raw(Box::new(OhHooks { engine })))
    })
    .and_then(|r| r);
    // SAFETY: the caller passes a writable `char *` slot or NULL.
    unsafe { report(result, error_out) }.unwrap_or(std::ptr::null_mut())
}

/// Fires one event: `envelope_json` is a JSON object with `event` and context fields
/// (docs/envelope.md "The envelope"). Runs the matching hooks of a blocking event in order and returns the
/// merged outcome; starts those of a non-blocking event in the background and returns at once
/// (unless the engine has `waitNonBlocking`).
///
/// Ownership: `envelope_json` is borrowed for the call. Always returns an outcome JSON that the
/// caller owns and frees with `oh_hooks_string_free`, even for bad input; NULL only if memory
/// runs out. The outcome is the caller's to read or change in place (an in-situ JSON parser may
/// write into it).
///
/// Errors: reported inside the outcome, as `"error": {"code","message"}` with `allowed: false`:
/// `null_argument` (`hooks` or `envelope_json` is NULL), `invalid_utf8`, `invalid_envelope`
/// (not JSON, not an object, `event` missing or not a string, nested too deep),
/// `unknown_event`, `internal`. A failing hook is not an error: it is a deny (on a blocking
/// event) with its story in the outcome's `hooks` trace.
///
/// Thread safety: any number of threads may fire on the same engine at once. Blocks the
/// calling thread for as long as the hooks run (each bounded by its timeout, plus 0.5 s to
/// kill a hook that ignores SIGTERM; a persistent hook's fire is bounded by its timeout alone,
/// waiting for a free process included). A blocking event's callback hooks
/// (`oh_hooks_register`) are called on this thread, and so is the observer, before this
/// returns. May be called from inside a callback, an observer or a `done` (re-entrancy). Must
/// not race `oh_hooks_free` on the same engine.
///
/// # Safety
/// `hooks` is NULL or an engine from `oh_hooks_new` not yet freed; `envelope_json` is NULL or a
/// NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_fire(hooks: *const OhHooks, envelope_json: *const c_char) -> *mut c_char {
    // Small on purpose: the outcome travels as its JSON text, not as an `Outcome`.
    let outcome = boundary(|| {
        // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
        let Some(hooks) = (unsafe { hooks.as_ref() }) else {
            return Err(null_argument("hooks", "oh_hooks_fire").to_json());
        };
        if envelope_json.is_null() {
            return Err(null_argument("envelope_json", "oh_hooks_fire").to_json());
        }
        // SAFETY: the caller passes a NUL-terminated string that lives for the call.
        let envelope = unsafe { CStr::from_ptr(envelope_json) };
        // Nothing can run: the constant outcome, without building one (src/quick.rs, which
        // also checks the text is UTF-8).
        match hooks.engine.fire_bytes(envelope.to_bytes()) {
            None => Ok(()),
            Some(outcome) => Err(outcome.to_json()),
        }
    });
    match outcome {
        // A copy of the constant, never the constant itself: the caller owns what it gets and may
        // write into it (docs/decisions.md "The no-match outcome is a copy").
        Ok(Ok(())) => super::c_copy(quick::ALLOWED.to_bytes()),
        Ok(Err(json)) => into_c_string(json),
        Err(e) => into_c_string(Outcome::error(e).to_json()),
    }
}

/// Re-reads the engine's config files now, instead of waiting for a fire to notice a change
/// (and without waiting for a changed file to settle); with the option `watch: false` it is the
/// only way the files are read again. On success the new config is in force for every later
/// fire, and if a file changed its `configChange` hooks start in the background. On failure the
/// old config stays in force and is reported in each outcome's `warnings` until the files are
/// fixed. An engine with an inline `config` has nothing to re-read: success.
///
/// Returns 0 on success, -1 on failure.
///
/// Ownership: `hooks` is borrowed. When `error_out` is not NULL it is always written: NULL on
/// success, otherwise an error JSON that the caller owns and frees with `oh_hooks_string_free`.
///
/// Errors (`code`): as for `oh_hooks_new` (`invalid_config`, `io_error`), and `null_argument`
/// when `hooks` is NULL.
///
/// Thread safety: may run concurrently with fires on the same engine (each fire uses either the
/// old or the new config, never a mix). Must not race `oh_hooks_free`.
///
/// # Safety
/// `hooks` is NULL or an engine from `oh_hooks_new` not yet freed; `error_out` is NULL or points
/// to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_reload(hooks: *const OhHooks, error_out: *mut *mut c_char) -> c_int {
    let result = boundary(|| {
        // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
        match unsafe { hooks.as_ref() } {
            Some(hooks) => hooks.engine.reload(),
            None => Err(null_engine("oh_hooks_reload")),
        }
    })
    .and_then(|r| r);
    // SAFETY: the caller passes a writable `char *` slot or NULL.
    match unsafe { report(result, error_out) } {
        Some(()) => 0,
        None => -1,
    }
}

/// Releases an engine. From the moment it is called, fires on this engine (from its callbacks,
/// observer or `done`s) are refused: `oh_hooks_fire` returns and `oh_hooks_fire_async` calls
/// `done` with `error.code` `cancelled`, at once, and the observer gets their records. Then it
/// waits up to the option `shutdownTimeoutMs` (default 5000) for its asynchronous fires and its
/// hooks running or queued in the background (at most 8 at once). When the time is up, the
/// running ones are cancelled as by `oh_hooks_cancel` (process groups get SIGTERM, then SIGKILL
/// 500 ms later; pending callback calls are dropped), their `done` gets `cancelled`, and the
/// queued ones are not started (each counted in its fire's observer record). Then it runs the
/// `release` of every registration and of the observer, on this thread, stops the processes
/// of persistent hooks (closes their stdin, waits up to 500 ms for them to exit, then kills
/// their process groups and reaps them), and frees everything. It returns within
/// `shutdownTimeoutMs` plus about 0.5 s, unless a host callback, observer or `done` it waits
/// for does not return. Calls that were never answered are forgotten: answering them later is
/// ignored. No `done`, callback or observer call of this engine happens after it returns, and
/// no engine thread is left behind waiting for itself. NULL does nothing.
///
/// Ownership: takes back the engine that `oh_hooks_new` gave the caller.
///
/// Thread safety: the caller must ensure no other call is using `hooks` (no fire, reload,
/// registration or cancel in progress or started later, except from the callbacks, observer
/// and `done`s this call waits for); after it returns the pointer is dangling. Must not be
/// called from a callback, an observer, a `release` or a `done` of the same engine (it would
/// wait for itself).
///
/// # Safety
/// `hooks` is NULL or an engine from `oh_hooks_new`, freed only once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_free(hooks: *mut OhHooks) {
    if hooks.is_null() {
        return;
    }
    let _ = boundary(|| {
        // SAFETY: `hooks` comes from `oh_hooks_new` and ownership returns here exactly once.
        drop(unsafe { Box::from_raw(hooks) });
    });
}

/// Frees a string returned by this library (an outcome, or an error written to `error_out`).
/// NULL does nothing.
///
/// Ownership: takes back a string the caller owned. Strings from anywhere else must not be passed here, and these strings
/// must not be freed any other way.
///
/// Thread safety: any thread; each string is freed once.
///
/// # Safety
/// `s` is NULL or a string returned by this library, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_string_free(s: *mut c_char) {
    // SAFETY: `s` is NULL or was made by `c_copy` (src/ffi/mod.rs) with `malloc`, and is freed
    // once. No panic boundary: `free` cannot unwind.
    unsafe { libc::free(s.cast()) }
}

/// The library's version, e.g. "0.1.0": the same as the `OH_HOOKS_VERSION_*` macros of the
/// header it was built with. Static storage: never freed. Thread safety: any thread.
#[unsafe(no_mangle)]
pub extern "C" fn oh_hooks_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
