//! Two text helpers for a C host without a JSON library (docs/decisions.md "Decisions": "C: errors and
//! options without a JSON library"): the message of an error JSON, for printing, and a string
//! quoted as JSON, for building options with `snprintf` safely.

use super::{boundary, into_c_string};
use serde_json::Value;
use std::ffi::{c_char, CStr};

/// Returns the human-readable message of an error JSON (`error_out` of `oh_hooks_new` or
/// `oh_hooks_reload`, or an outcome's `"error"` object): the value of its `"message"`, one
/// sentence saying what was wrong and what was expected, naming the file, line and config path
/// when the error has them. Text that is not such an error comes back unchanged (as a copy), so
/// whatever is passed can be printed.
///
/// Ownership: `error_json` is borrowed for the call. Returns a string the caller owns and frees
/// with `oh_hooks_string_free`, or NULL when `error_json` is NULL (or memory runs out). Bytes
/// that are not UTF-8 are replaced by U+FFFD in the copy.
///
/// Thread safety: may be called from any thread, concurrently with anything; it uses no engine.
///
/// # Safety
/// `error_json` is NULL or a NUL-terminated string that lives for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_error_message(error_json: *const c_char) -> *mut c_char {
    if error_json.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the caller passes a NUL-terminated string that lives for the call.
    let bytes = unsafe { CStr::from_ptr(error_json) }.to_bytes();
    boundary(|| {
        let text = String::from_utf8_lossy(bytes);
        let message = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => map.get("message").and_then(Value::as_str).map(str::to_string),
            _ => None,
        };
        into_c_string(message.unwrap_or_else(|| text.into_owned()))
    })
    .unwrap_or(std::ptr::null_mut())
}

/// Returns `s` as a JSON string literal, quotes included: `/tmp/it's "here"` becomes
/// `"/tmp/it's \"here\""`, with `\` and control characters escaped too. Its use: building the
/// options JSON with `snprintf` from text that may hold any character (a path, a URL), e.g.
/// `snprintf(buf, n, "{\"cwd\": %s}", quoted)`, where pasting the raw path would break (or
/// change) the JSON.
///
/// Ownership: `s` is borrowed for the call. Returns a string the caller owns and frees with
/// `oh_hooks_string_free`, or NULL when `s` is NULL or not valid UTF-8 (the engine's options
/// are UTF-8 JSON, so such text could not be passed anyway), or memory runs out.
///
/// Thread safety: may be called from any thread, concurrently with anything; it uses no engine.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string that lives for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn oh_hooks_json_quote(s: *const c_char) -> *mut c_char {
    if s.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the caller passes a NUL-terminated string that lives for the call.
    let Ok(text) = unsafe { CStr::from_ptr(s) }.to_str() else {
        return std::ptr::null_mut();
    };
    boundary(|| into_c_string(Value::String(text.to_string()).to_string())).unwrap_or(std::ptr::null_mut())
}
