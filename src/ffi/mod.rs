//! The C ABI (docs/abi.md "The ABI", "Host callbacks"), split by concern. These files are the whole exported surface
//! and the input of cbindgen: `include/oh_hooks.h` is generated from them by `build.rs`, so the
//! doc comments are the header's documentation.
//!
//! - [`engine`]: creating, firing, reloading, freeing; strings; the version.
//! - [`callbacks`]: host functions (`oh_hooks_register`, `oh_hooks_respond`) and the observer.
//! - [`fire_async`]: asynchronous fire and cancellation; a synchronous fire that can be cancelled
//!   (`oh_hooks_reserve_fire`, `oh_hooks_fire_reserved`); completion on a pipe (`oh_hooks_fire_async_fd`).
//! - [`text`]: an error JSON's message and JSON quoting, for C hosts without a JSON library.
//!
//! Every export converts raw pointers, calls the safe engine inside a panic boundary, and
//! converts back. Nothing else happens here.

pub mod callbacks;
pub mod engine;
pub mod fire_async;
pub mod text;

pub use callbacks::*;
pub use engine::*;
pub use fire_async::*;
pub use text::*;

use crate::error::{Error, ErrorCode};
use crate::outcome::Outcome;
use std::cell::Cell;
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

/// Reads a borrowed C string argument: `what` names it in the error.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string that lives for the call.
unsafe fn text<'a>(s: *const c_char, what: &str, function: &str) -> Result<&'a str, Error> {
    if s.is_null() {
        return Err(Error::new(
            ErrorCode::NullArgument,
            format!("{function}: `{what}` is NULL; expected a NUL-terminated UTF-8 string"),
        ));
    }
    // SAFETY: per this function's contract.
    unsafe { CStr::from_ptr(s) }.to_str().map_err(|e| {
        Error::new(
            ErrorCode::InvalidUtf8,
            format!("{function}: `{what}` is not valid UTF-8 ({e}); expected UTF-8 text"),
        )
    })
}

fn null_engine(function: &str) -> Error {
    Error::new(ErrorCode::NullArgument, format!("{function}: `hooks` is NULL; expected an engine from oh_hooks_new"))
}

pub(crate) fn null_argument(name: &str, function: &str) -> Outcome {
    Outcome::error(Error::new(
        ErrorCode::NullArgument,
        format!(
            "{function}: `{name}` is NULL; expected {}",
            match name {
                "hooks" => "an engine from oh_hooks_new",
                _ => "a NUL-terminated UTF-8 JSON string",
            }
        ),
    ))
}

/// The `error_out` convention: when the slot is not NULL it is always written, NULL on success
/// and an owned error JSON on failure. Returns the success value.
///
/// # Safety
/// `error_out` is NULL or points to a writable `char *`.
pub(crate) unsafe fn report<T>(result: Result<T, Error>, error_out: *mut *mut c_char) -> Option<T> {
    let (value, error) = match result {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some(e)),
    };
    if !error_out.is_null() {
        // SAFETY: per this function's contract.
        unsafe { *error_out = error.map_or(std::ptr::null_mut(), |e| into_c_string(e.to_json())) };
    }
    value
}

/// Hands an outcome's JSON to C. The plain allowed outcome (every no-match asynchronous fire) is
/// a copy of the constant: one allocation, where `to_json` and [`into_c_string`] make two.
pub(crate) fn outcome_c_string(outcome: &Outcome) -> *mut c_char {
    if outcome.is_plain_allowed() {
        return c_copy(crate::quick::ALLOWED.to_bytes());
    }
    into_c_string(outcome.to_json())
}

/// Hands a string to C. Our JSON never contains a raw NUL (serde_json escapes it), so this
/// only returns NULL if the impossible happens.
pub(crate) fn into_c_string(s: String) -> *mut c_char {
    // memchr's SIMD search, where `CString::new` scans byte by byte (every outcome passes here).
    if memchr::memchr(0, s.as_bytes()).is_some() {
        return std::ptr::null_mut();
    }
    c_copy(s.as_bytes())
}

/// Hands C a copy of `bytes` (no NUL inside) with a NUL after it, in a buffer of exactly that size
/// from `malloc`: every string this library returns is made here, so `oh_hooks_string_free` is
/// one `free`, with no length to find again (a `CString`'s drop runs `strlen` first) and nothing
/// that can panic. NULL when memory runs out.
pub(crate) fn c_copy(bytes: &[u8]) -> *mut c_char {
    // SAFETY: a buffer of `len + 1` bytes; `len` bytes copied into it and the NUL after them.
    unsafe {
        let p = libc::malloc(bytes.len() + 1).cast::<u8>();
        if p.is_null() {
            return std::ptr::null_mut();
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        p.add(bytes.len()).write(0);
        p.cast()
    }
}

thread_local! {
    static IN_BOUNDARY: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, turning a panic into an `internal` error. A panic must not unwind into C (it would
/// abort the host), and the library prints nothing: a panic hook installed once stays silent
/// for panics inside the boundary and on the library's own threads, and hands every other
/// panic to the hook that was there before.
pub(crate) fn boundary<T>(f: impl FnOnce() -> T) -> Result<T, Error> {
    static QUIET_HOOK: Once = Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ours = IN_BOUNDARY.with(Cell::get)
                || std::thread::current().name().is_some_and(|n| n.starts_with("oh-hooks-"));
            if !ours {
                previous(info);
            }
        }));
    });
    // One thread-local lookup for both touches (in a shared library each is a call).
    let result = IN_BOUNDARY.with(|in_boundary| {
        let outer = in_boundary.replace(true);
        let result = catch_unwind(AssertUnwindSafe(f));
        in_boundary.set(outer);
        result
    });
    result.map_err(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        Error::new(ErrorCode::Internal, format!("internal error in oh-hooks: {what}; please report it"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_internal_errors() {
        let e = boundary(|| -> () { panic!("boom") }).unwrap_err();
        assert_eq!(e.code, ErrorCode::Internal);
        assert!(e.message.contains("boom"));
        assert_eq!(boundary(|| 5).unwrap(), 5);
    }
}
