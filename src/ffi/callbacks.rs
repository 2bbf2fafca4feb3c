//! Host functions and the decision observer (docs/abi.md "Host callbacks"): `oh_hooks_register`,
//! `oh_hooks_respond`, `oh_hooks_observe`. The C function pointers are wrapped in small structs
//! that implement the engine's [`HostFunction`] and [`Observer`]; dropping one runs the host's
//! `release`.

use super::engine::OhHooks;
use super::{boundary, null_engine, report, text};
use crate::error::{Error, ErrorCode};
use crate::host::{self, HostFunction, Observer};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::Arc;

/// One pending callback invocation: what a callback answers with `oh_hooks_respond`. Opaque,
/// and not a pointer to memory: the engine looks it up, so answering twice, late, or after the
/// engine was freed is detected and ignored.
pub struct OhHooksCall {
    _opaque: [u8; 0],
}

/// The engine asks the host. `request_json` is borrowed for the duration of the call. The host
/// answers exactly once, now (before returning) or later, from any thread, with
/// `oh_hooks_respond(call, ...)`.
pub type OhHooksCallback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, request_json: *const c_char, call: *mut OhHooksCall)>;

/// Receives one decision record, `{"envelope": {...}, "outcome": {...}}`. `record_json` is
/// borrowed for the duration of the call.
pub type OhHooksObserver = Option<unsafe extern "C" fn(user_data: *mut c_void, record_json: *const c_char)>;

/// Runs when a registration ends (replaced, removed, or the engine freed).
type Release = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// The host's `user_data` and `release`, released exactly once when the registration is dropped.
struct UserData {
    data: *mut c_void,
    release: Release,
}

// SAFETY: the header makes the host promise that `user_data` may be used from any thread (the
// callback runs on firing threads and engine threads).
unsafe impl Send for UserData {}
// SAFETY: as above.
unsafe impl Sync for UserData {}

impl Drop for UserData {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: the host gave us `release` for this `user_data`; it runs once, here.
            unsafe { release(self.data) };
        }
    }
}

struct CFunction {
    f: unsafe extern "C" fn(*mut c_void, *const c_char, *mut OhHooksCall),
    user: UserData,
}

thread_local! {
    /// The NUL-terminated copy of a request, kept by each thread that calls host functions: a
    /// callback hook answered at once otherwise paid an allocation for it on every fire.
    static REQUEST: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl HostFunction for CFunction {
    fn call(&self, request: &str, call: u64) {
        // The request is JSON from serde, which escapes NUL: this cannot fail. Were it to, the
        // call would go unanswered and fail at the hook's timeout.
        if memchr::memchr(0, request.as_bytes()).is_some() {
            return;
        }
        let run = |text: &[u8]| {
            // SAFETY: the host registered `f` with `user_data`; `text` is NUL-terminated, has no
            // other NUL, and lives for the call.
            unsafe { (self.f)(self.user.data, text.as_ptr().cast(), call as usize as *mut OhHooksCall) };
        };
        let fill = |buf: &mut Vec<u8>| {
            buf.clear();
            buf.extend_from_slice(request.as_bytes());
            buf.push(0);
        };
        // A host function that fires again on this thread finds the buffer in use: its request
        // gets a buffer of its own. (The buffer is never borrowed across anything but the call.)
        let kept = REQUEST.try_with(|cell| {
            let Ok(mut buf) = cell.try_borrow_mut() else { return false };
            fill(&mut buf);
            run(&buf);
            // A rare huge request does not stay allocated for the thread's lifetime.
            if buf.capacity() > 64 * 1024 {
                *buf = Vec::new();
            }
            true
        });
        if kept != Ok(true) {
            let mut own = Vec::with_capacity(request.len() + 1);
            fill(&mut own);
            run(&own);
        }
    }
}

struct CObserver {
    f: unsafe extern "C" fn(*mut c_void, *const c_char),
    user: UserData,
}

impl Observer for CObserver {
    fn observe(&self, record: &str) {
        let Ok(record) = CString::new(record) else { return };
        // SAFETY: the host registered `f` with `user_data`; the record lives for the call.
        unsafe { (self.f)(self.user.data, record.as_ptr()) };
    }
}

/// Registers `fn` under `name` (replacing any registration of that name), for the config's
/// `callback: <name>` hooks; the name `prompt` is the evaluator of prompt hooks, which gets
/// `{"prompt": <question>, "envelope": {...}}`. A callback hook's request is the envelope as a
/// jsonIO hook reads it on stdin; the answer (`oh_hooks_respond`) is read like a jsonIO
/// response (docs/config.md "Callback hooks"). A NULL `fn` removes the registration.
///
/// Returns 0 on success, -1 on failure (`*error_out` set as for `oh_hooks_new`; `release` is
/// then not called and nothing is kept).
///
/// Ownership: `name` is borrowed for the call. `user_data` is the host's: the engine passes it
/// to `fn` and, when the registration ends, to `release` (if not NULL), exactly once. A
/// registration ends when it is replaced or removed, or when the engine is freed; `release` runs
/// once no call of the old `fn` is still running (on the thread that ended the last one, or in
/// `oh_hooks_register` / `oh_hooks_free` itself). With a NULL `fn`, the `user_data` and
/// `release` given are not used.
///
/// Threads: `fn` runs on the thread that runs the hook: the caller of `oh_hooks_fire` for a
/// blocking event, an engine thread for asynchronous fires and background hooks; so `user_data`
/// must be usable from any thread, and several calls may run at once. `fn` may answer before
/// returning or later from any thread; it may fire on the same engine (re-entrancy is bounded
/// only by the hooks' timeouts), register, observe and cancel; it must not call
/// `oh_hooks_free`. A call not answered within the hook's `timeout` fails like a timed-out
/// jsonIO hook (`hook failed (timeout or non-zero exit)` on a blocking event); its late answer is
/// accepted and dropped. The timeout bounds the wait for the answer, not `fn` itself: a `fn` that
/// blocks holds its thread (and, on a blocking event, the fire) until it returns, so a host that
/// must wait for something (a model, a user, another fire) returns at once and answers later.
/// May run concurrently with fires and other registrations.
///
/// Errors (`code`): `null_argument` (`hooks` or `name` is NULL), `invalid_utf8` (`name`),
/// `invalid_options` (`name` empty), `internal`.
///
/// # Safety
/// `hooks` is NULL or an engine not yet freed; `name` is NULL or a NUL-terminated string; `fn`
/// and `release` are NULL or functions safe to call as described with `user_data`; `error_out`
/// is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_register(
    hooks: *const OhHooks,
    name: *const c_char,
    r#fn: OhHooksCallback,
    user_data: *mut c_void,
    release: Option<unsafe extern "C" fn(user_data: *mut c_void)>,
    error_out: *mut *mut c_char,
) -> c_int {
    let result = boundary(|| {
        // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
        let Some(hooks) = (unsafe { hooks.as_ref() }) else { return Err(null_engine("oh_hooks_register")) };
        // SAFETY: the caller passes NULL or a NUL-terminated string.
        let name = unsafe { text(name, "name", "oh_hooks_register") }?;
        if name.is_empty() {
            return Err(Error::new(
                ErrorCode::InvalidOptions,
                "oh_hooks_register: `name` is empty; expected the name a `callback:` entry uses (or `prompt`)",
            ));
        }
        let f = r#fn.map(|f| Arc::new(CFunction { f, user: UserData { data: user_data, release } }) as Arc<_>);
        hooks.engine.register(name, f);
        Ok(())
    })
    .and_then(|r| r);
    // SAFETY: the caller passes a writable `char *` slot or NULL.
    match unsafe { report(result, error_out) } {
        Some(()) => 0,
        None => -1,
    }
}

/// Answers a call that a callback received. `response_json` is what a jsonIO hook would print:
/// a JSON object such as `{"decision": "deny", "reason": "..."}` (docs/config.md "Callback hooks");
/// NULL or blank text means "no decision"; text that is not JSON is a malformed response.
///
/// A call is answered once: the first answer counts, and any later one for the same call is
/// ignored. An answer after the hook's timeout, after the fire was cancelled or after the engine
/// was freed is accepted and dropped. A NULL `call` does nothing.
///
/// Ownership: `response_json` is borrowed for the call (copied). `call` is not memory the host
/// owns or frees.
///
/// Threads: any thread, including from inside the callback before it returns, concurrently with
/// anything.
///
/// # Safety
/// `response_json` is NULL or a NUL-terminated string. `call` is any value; values that no
/// callback received are ignored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_respond(call: *mut OhHooksCall, response_json: *const c_char) {
    if call.is_null() {
        return;
    }
    let _ = boundary(|| {
        let response = (!response_json.is_null())
            // SAFETY: the caller passes a NUL-terminated string that lives for the call.
            .then(|| unsafe { CStr::from_ptr(response_json) }.to_bytes().to_vec());
        host::answer(call as usize as u64, response);
    });
}

/// Sets the decision observer: `fn` receives one record per fire, `{"envelope": {...},
/// "outcome": {...}}`, once every hook of that fire has finished (the background hooks of a
/// non-blocking event included, with their traces). `envelope` is the compact envelope, or
/// `null` when the input was not a JSON object with an `event`. The outcome is the one the fire
/// returned, except for background hooks, whose record carries their traces and gathered
/// context. A NULL `fn` stops observing. Replaces any previous observer.
///
/// Returns 0 on success, -1 on failure (`*error_out` set as for `oh_hooks_new`).
///
/// Ownership: `user_data` and `release` as for `oh_hooks_register`: `release(user_data)` runs
/// once, when this observer is replaced or removed (after any record it is delivering) or when
/// the engine is freed.
///
/// Threads: `fn` runs on the firing thread after a synchronous fire's hooks finished (before
/// `oh_hooks_fire` returns), on an engine thread before an asynchronous fire's `done`, and on
/// the engine thread of the last background hook to finish; records of concurrent fires may
/// arrive concurrently. It may fire on the engine, register and cancel; it must not call
/// `oh_hooks_free`. May run concurrently with fires.
///
/// Errors (`code`): `null_argument` (`hooks` is NULL), `internal`.
///
/// # Safety
/// `hooks` is NULL or an engine not yet freed; `fn` and `release` are NULL or functions safe to
/// call as described with `user_data`; `error_out` is NULL or points to a writable `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_observe(
    hooks: *const OhHooks,
    r#fn: OhHooksObserver,
    user_data: *mut c_void,
    release: Option<unsafe extern "C" fn(user_data: *mut c_void)>,
    error_out: *mut *mut c_char,
) -> c_int {
    let result = boundary(|| {
        // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
        let Some(hooks) = (unsafe { hooks.as_ref() }) else { return Err(null_engine("oh_hooks_observe")) };
        let o = r#fn.map(|f| Arc::new(CObserver { f, user: UserData { data: user_data, release } }) as Arc<_>);
        hooks.engine.observe(o);
        Ok(())
    })
    .and_then(|r| r);
    // SAFETY: the caller passes a writable `char *` slot or NULL.
    match unsafe { report(result, error_out) } {
        Some(()) => 0,
        None => -1,
    }
}
