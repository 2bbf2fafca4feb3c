//! Envelope bytes -> `oh_hooks_fire` and the envelope parsers. No hook ever starts a process:
//! the engines have no hooks, or prompt hooks (answered in-process), so each run is fast.
//!
//! Checked on every input, besides "no panic, no crash, no hang":
//! - the outcome is JSON with `allowed` and `hooks`; an `error` means `allowed: false`, `hooks: []`;
//! - the fast path (nothing matches: `parse_head` only) and the full path (`Envelope::parse`)
//!   agree on whether the input is an error, and on its code;
//! - `parse_head` accepting a text implies `Envelope::parse` accepts it, and the compact JSON
//!   handed to hooks is valid JSON with `event` first and the same set of keys;
//! - through the C ABI the same text gives the same error code; non-UTF-8 gives `invalid_utf8`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oh_hooks::envelope::{self, head, Envelope};
use oh_hooks::{Engine, Event};
use serde_json::{json, Map, Value};
use std::ffi::{CStr, CString};
use std::sync::OnceLock;

struct Engines {
    empty: Engine,
    prompts: Engine,
    matchers: Engine,
}

fn engines() -> &'static Engines {
    static E: OnceLock<Engines> = OnceLock::new();
    E.get_or_init(|| {
        let make = |config: Value, wait: bool| {
            Engine::new(Some(&json!({ "trusted": true, "waitNonBlocking": wait, "config": config }).to_string())).unwrap()
        };
        let every = |hooks: Value| -> Value {
            Value::Object(Event::ALL.iter().map(|e| (e.name().to_string(), hooks.clone())).collect::<Map<_, _>>())
        };
        let blocking = |hooks: Value| -> Value {
            Value::Object(
                Event::ALL.iter().filter(|e| e.is_blocking()).map(|e| (e.name().to_string(), hooks.clone())).collect::<Map<_, _>>(),
            )
        };
        Engines {
            empty: make(json!({}), false),
            prompts: make(json!({ "hooks": every(json!([{ "prompt": "p" }])) }), true),
            // Blocking events only: their hooks run one after another on the calling thread
            // (several matching non-blocking hooks would each get a thread).
            matchers: make(
                json!({ "hooks": blocking(json!([
                    { "prompt": "a", "match": "Bash" },
                    { "prompt": "b", "match": "File*Ed?t" },
                    { "prompt": "c", "match": "/^mcp__.*__(read|write)$/i" },
                    { "prompt": "d", "match": "*" } ])) }),
                true,
            ),
        }
    })
}

fn outcome(o: &oh_hooks::Outcome) -> Value {
    let v: Value = serde_json::from_str(&o.to_json()).expect("the outcome is JSON");
    assert!(v["allowed"].is_boolean() && v["hooks"].is_array(), "{v}");
    if v.get("error").is_some() {
        assert_eq!(v["allowed"], false, "{v}");
        assert_eq!(v["hooks"], json!([]), "{v}");
    }
    v
}

fn code(v: &Value) -> Option<&str> {
    v.get("error").map(|e| e["code"].as_str().expect("error code"))
}

fn ffi_code(bytes: &[u8]) -> Option<String> {
    let text = CString::new(bytes).ok()?;
    let h: *const oh_hooks::ffi::OhHooks = {
        static H: OnceLock<usize> = OnceLock::new();
        // SAFETY: defaults-only engine with an inline empty config; never freed (lives as long as the fuzzer).
        *H.get_or_init(|| unsafe {
            oh_hooks::ffi::oh_hooks_new(c"{\"trusted\":true,\"config\":{}}".as_ptr(), std::ptr::null_mut()) as usize
        }) as *const _
    };
    // SAFETY: a live engine and a NUL-terminated string; the result is freed once.
    let out = unsafe {
        let p = oh_hooks::ffi::oh_hooks_fire(h, text.as_ptr());
        assert!(!p.is_null());
        let s = CStr::from_ptr(p).to_str().expect("outcome is UTF-8").to_string();
        oh_hooks::ffi::oh_hooks_string_free(p);
        s
    };
    let v: Value = serde_json::from_str(&out).expect("outcome is JSON");
    Some(v.get("error").map_or("ok".to_string(), |e| e["code"].as_str().unwrap().to_string()))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        if let Some(c) = ffi_code(data) {
            assert_eq!(c, "invalid_utf8");
        }
        return;
    };
    let e = engines();
    let fast = outcome(&e.empty.fire(text));
    let full = outcome(&e.prompts.fire(text));
    let _ = outcome(&e.matchers.fire(text));
    assert_eq!(code(&fast), code(&full), "fast and full paths disagree on {text:?}: {fast} vs {full}");
    if let Some(c) = ffi_code(data) {
        assert_eq!(c, code(&fast).unwrap_or("ok"), "C ABI disagrees on {text:?}");
    }

    match head::parse_head(text) {
        Err(err) => assert!(code(&fast) == Some(err.code.as_str())),
        Ok(head) => {
            assert!(code(&fast).is_none());
            let env = Envelope::parse(text, head.event).expect("parse_head accepted what Envelope::parse rejects");
            let compact: Map<String, Value> = serde_json::from_str(&env.json).expect("compact envelope is JSON");
            assert_eq!(compact.keys().next().map(String::as_str), Some("event"));
            assert_eq!(compact["event"], head.event.name());
            let original: Map<String, Value> = serde_json::from_str(text).unwrap();
            assert_eq!(compact.len(), original.len(), "keys lost or added: {text:?} -> {}", env.json);
            assert_eq!(env.vars[0].0, "OH_EVENT");
            if let Some((_, p)) = env.vars.iter().find(|(k, _)| *k == "OH_PROMPT") {
                assert!(p.len() <= envelope::PROMPT_LIMIT);
            }
            let _ = env.nul_variable();
        }
    }
});
