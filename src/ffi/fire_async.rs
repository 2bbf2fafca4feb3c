//! Asynchronous fire and cancellation (docs/abi.md "Host callbacks"): `oh_hooks_fire_async` hands the fire to
//! the engine's bounded pool of threads and calls `done` once from there; `oh_hooks_cancel`
//! stops it. Two ways to the same cancellable fire without a host function on an engine thread
//! (issue 20): a synchronous fire under a reserved id (`oh_hooks_reserve_fire`,
//! `oh_hooks_fire_reserved`), and an asynchronous one whose completion is a record on a pipe
//! (`oh_hooks_fire_async_fd`).

use super::engine::OhHooks;
use super::{boundary, null_engine, outcome_c_string, text};
use crate::outcome::Outcome;
use std::ffi::{c_char, c_int, c_void};

/// Receives an asynchronous fire's outcome. `outcome_json` is owned by the host, who frees it
/// with `oh_hooks_string_free`.
pub type OhHooksDone = Option<unsafe extern "C" fn(user_data: *mut c_void, outcome_json: *mut c_char)>;

/// The host's `done` and `user_data`, movable to an engine thread.
struct Done {
    f: OhHooksDone,
    data: *mut c_void,
}

// SAFETY: the header makes the host promise that `done` and `user_data` may be used from an
// engine thread.
unsafe impl Send for Done {}

impl Done {
    fn call(self, outcome: Outcome) {
        if let Some(f) = self.f {
            // SAFETY: the host gave us `done` for `user_data`; the outcome string becomes the
            // host's.
            unsafe { f(self.data, outcome_c_string(&outcome)) };
        }
    }
}

/// Fires one event on an engine thread: the same work as `oh_hooks_fire`, then `done(user_data,
/// outcome_json)` is called exactly once, from an engine thread (also for bad input, whose
/// outcome carries the `error`). Returns the fire's id (never 0), for `oh_hooks_cancel`.
///
/// The engine runs asynchronous fires on a bounded pool of threads (8 per engine); more wait in
/// a queue. When 4096 are already waiting, `done` is called at once, on the calling thread,
/// with an `internal` error, and the fire does not run. When `hooks` is NULL, `done` is called
/// at once on the calling thread with a `null_argument` outcome and 0 is returned. A NULL
/// `done` fires without reporting.
///
/// Ownership: `envelope_json` is borrowed for the call (copied). `user_data` is the host's; the
/// engine only passes it to `done`. `outcome_json` belongs to the host.
///
/// Threads: may be called from any thread, concurrently with anything but `oh_hooks_free`,
/// including from a callback, an observer or a `done`. `done` may fire, register, observe and
/// cancel, and must not call `oh_hooks_free`. `oh_hooks_free` completes every fire started
/// before it (cancelled when its `shutdownTimeoutMs` is up), so `done` is never left pending
/// and never runs after it returned; a fire made while it runs (from a callback, observer or
/// `done` of the engine) gets `done` at once, on the calling thread, with `cancelled`.
///
/// The observer (`oh_hooks_observe`) gets exactly one record per fire, refused and cancelled
/// ones included.
///
/// Errors: in the outcome, as for `oh_hooks_fire`, plus `cancelled` (the fire was cancelled;
/// `allowed` is false).
///
/// # Safety
/// `hooks` is NULL or an engine not yet freed; `envelope_json` is NULL or a NUL-terminated
/// string; `done` is NULL or a function safe to call with `user_data` from another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_fire_async(
    hooks: *const OhHooks,
    envelope_json: *const c_char,
    done: OhHooksDone,
    user_data: *mut c_void,
) -> u64 {
    let done = Done { f: done, data: user_data };
    // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
    let Some(hooks) = (unsafe { hooks.as_ref() }) else {
        done.call(Outcome::error(null_engine("oh_hooks_fire_async")));
        return 0;
    };
    // `done` moves into the engine only inside the boundary; a panic before that point still
    // reports through it.
    let mut done = Some(done);
    let fired = boundary(|| {
        // SAFETY: the caller passes NULL or a NUL-terminated string that lives for the call.
        let envelope = unsafe { text(envelope_json, "envelope_json", "oh_hooks_fire_async") }.map(str::to_string);
        let done = done.take().expect("taken once");
        hooks.engine.fire_async(envelope, Box::new(move |_, outcome| done.call(outcome)))
    });
    match fired {
        Ok(id) => id,
        Err(e) => {
            if let Some(done) = done {
                done.call(Outcome::error(e));
            }
            0
        }
    }
}

/// Cancels an asynchronous fire: its running hooks are stopped (command hooks' process groups
/// get SIGTERM, then SIGKILL 500 ms later, as on a timeout; pending callback calls are dropped,
/// their late answers ignored; a waiting HTTP request is abandoned; a persistent hook's worker
/// answering the fire is killed), no further hook starts, and the fire completes with an outcome
/// whose `error.code` is `cancelled` and `allowed` is false. `done` still runs exactly once, on
/// the engine thread, once the stopped hooks are reaped (at most about 0.5 s). Cancelling a fire
/// that has already completed (or an id that is not a fire of this engine) does nothing.
/// Background hooks of a non-blocking event outlive their fire and are not cancelled.
///
/// Returns 0 (also when there was nothing to cancel), -1 when `hooks` is NULL.
///
/// Threads: any thread, concurrently with anything but `oh_hooks_free`, including from a
/// callback or a `done`.
///
/// # Safety
/// `hooks` is NULL or an engine not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_cancel(hooks: *const OhHooks, fire_id: u64) -> c_int {
    // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
    let Some(hooks) = (unsafe { hooks.as_ref() }) else { return -1 };
    match boundary(|| hooks.engine.cancel(fire_id)) {
        Ok(_) => 0,
        Err(_) => -1,
    }
}

/// Reserves a fire id for `oh_hooks_fire_reserved`: a synchronous fire that another thread can
/// stop with `oh_hooks_cancel`, as it would an asynchronous one, without the thread hand-offs of
/// `oh_hooks_fire_async` (for a host whose caller can block but must stay cancellable, such as
/// Go's `Fire` with a context that can end). `oh_hooks_cancel` accepts the id from now on: a
/// cancel before the fire starts makes that fire complete with `cancelled` without running
/// anything.
///
/// Returns the id (never 0), or 0 when `hooks` is NULL.
///
/// Ownership: the engine holds the id (a few dozen bytes) until `oh_hooks_fire_reserved` uses
/// it or the engine is freed; reserve one id per fire and fire with each id once.
///
/// Threads: any thread, concurrently with anything but `oh_hooks_free`.
///
/// # Safety
/// `hooks` is NULL or an engine not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_reserve_fire(hooks: *const OhHooks) -> u64 {
    // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
    let Some(hooks) = (unsafe { hooks.as_ref() }) else { return 0 };
    boundary(|| hooks.engine.reserve_fire()).unwrap_or(0)
}

/// Fires one event on the calling thread, as `oh_hooks_fire` does, under `fire_id` from
/// `oh_hooks_reserve_fire`: `oh_hooks_cancel(hooks, fire_id)` from another thread (or from a
/// callback of this fire) stops it exactly as it stops an asynchronous fire (running hooks
/// stopped, no further hook started), and the outcome is then `cancelled` with `allowed` false.
/// The fire uses up the id: once this returns, cancelling it does nothing.
///
/// Returns the outcome JSON, owned by the caller (free with `oh_hooks_string_free`); never
/// NULL unless out of memory.
///
/// Ownership: `envelope_json` is borrowed for the call.
///
/// Threads: any thread, concurrently with anything but `oh_hooks_free` (like `oh_hooks_fire`);
/// callback hooks of a blocking event are called on this thread.
///
/// The observer gets exactly one record per call, refused ones included.
///
/// Errors: in the outcome, as for `oh_hooks_fire`, plus `cancelled` (cancelled before it
/// completed, or called while the engine is being freed) and `internal` when `fire_id` is not an
/// unused reservation of this engine (0, never reserved, or already fired): then nothing runs.
///
/// # Safety
/// `hooks` is NULL or an engine not yet freed; `envelope_json` is NULL or a NUL-terminated
/// string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_fire_reserved(
    hooks: *const OhHooks,
    envelope_json: *const c_char,
    fire_id: u64,
) -> *mut c_char {
    let outcome = boundary(|| {
        // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
        let Some(hooks) = (unsafe { hooks.as_ref() }) else {
            return Outcome::error(null_engine("oh_hooks_fire_reserved"));
        };
        // SAFETY: the caller passes NULL or a NUL-terminated string that lives for the call.
        let envelope = unsafe { text(envelope_json, "envelope_json", "oh_hooks_fire_reserved") };
        hooks.engine.fire_reserved(envelope, fire_id)
    });
    outcome_c_string(&outcome.unwrap_or_else(Outcome::error))
}

/// `oh_hooks_fire_async` for an event-loop host (epoll, kqueue, libuv, asyncio, ...): instead of
/// calling a function on an engine thread, the engine writes the completion to `fd`, which the
/// host's loop watches for reading, so none of the host's code (nor its interpreter lock) runs on
/// an engine thread.
///
/// When the fire completes, the engine writes one 16-byte record to `fd` with a single
/// `write`: the fire id (`uint64_t`, as returned here), then the outcome JSON's address (a
/// `char *` stored in a `uint64_t`), both in the machine's byte order. The outcome belongs to the
/// host, who frees it with `oh_hooks_string_free`. Exactly one record per fire, cancelled and
/// refused fires included (a refused fire's record is written at once, on the calling thread).
///
/// `fd` must be the write end of a pipe: a pipe makes each 16-byte write atomic, so records of
/// concurrent fires never interleave, and a read of a multiple of 16 bytes returns whole
/// records. When the pipe is full the engine thread waits until the host reads (a blocked loop
/// holds up the engine's free); keep reading. When the write fails (the read end is closed,
/// `fd` is not open) the outcome is freed and nothing else happens; SIGPIPE is never raised: an
/// engine thread blocks it once it wrote a record and keeps it blocked (a host function that runs
/// later on that thread finds it blocked; hook processes never inherit it), and the calling
/// thread has it blocked only around the write of a refused fire's record.
///
/// Returns the fire's id (never 0) for `oh_hooks_cancel`; 0 when `hooks` is NULL or `fd` is
/// negative, and then nothing is fired and nothing is written.
///
/// Ownership: `envelope_json` is borrowed for the call (copied); `fd` stays the host's (the
/// engine never closes it) and must stay open until every record of its fires has been written.
///
/// Threads, cancellation, the observer, queueing and `oh_hooks_free`: as for
/// `oh_hooks_fire_async` (free waits for every fire, so every record has been written when it
/// returns).
///
/// Errors: in the outcome, as for `oh_hooks_fire_async`.
///
/// # Safety
/// `hooks` is NULL or an engine not yet freed; `envelope_json` is NULL or a NUL-terminated
/// string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_fire_async_fd(hooks: *const OhHooks, envelope_json: *const c_char, fd: c_int) -> u64 {
    // SAFETY: a non-NULL `hooks` comes from `oh_hooks_new` and is not yet freed.
    let Some(hooks) = (unsafe { hooks.as_ref() }) else { return 0 };
    if fd < 0 {
        return 0;
    }
    boundary(|| {
        // SAFETY: the caller passes NULL or a NUL-terminated string that lives for the call.
        let envelope = unsafe { text(envelope_json, "envelope_json", "oh_hooks_fire_async_fd") }.map(str::to_string);
        let _host = HostCall::enter();
        hooks.engine.fire_async(envelope, Box::new(move |id, outcome| post_record(fd, id, outcome)))
    })
    .unwrap_or(0)
}

thread_local! {
    /// Whether this thread is inside `oh_hooks_fire_async_fd`: a record written then (a refused
    /// fire's, or one made while the engine is freed) is written on the host's own thread.
    static IN_HOST_CALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as the host's for the fire, until dropped (a panic included).
struct HostCall(bool);

impl HostCall {
    fn enter() -> HostCall {
        HostCall(IN_HOST_CALL.replace(true))
    }
}

impl Drop for HostCall {
    fn drop(&mut self) {
        IN_HOST_CALL.set(self.0);
    }
}

/// The completion record of `oh_hooks_fire_async_fd`.
fn post_record(fd: c_int, id: u64, outcome: Outcome) {
    let text = outcome_c_string(&outcome);
    let mut record = [0u8; 16];
    record[..8].copy_from_slice(&id.to_ne_bytes());
    record[8..].copy_from_slice(&(text as usize as u64).to_ne_bytes());
    // The header promises the record on an engine thread unless it is written within the call:
    // there the host's thread mask is left as it was; an engine thread keeps SIGPIPE blocked.
    let written = if IN_HOST_CALL.get() {
        crate::os::sigpipe::write_record(fd, &record)
    } else {
        crate::os::sigpipe::write_record_on_own_thread(fd, &record)
    };
    if written.is_err() && !text.is_null() {
        // SAFETY: made by `outcome_c_string` (`c_copy`, malloc) just above and never handed out.
        unsafe { libc::free(text.cast()) };
    }
}
