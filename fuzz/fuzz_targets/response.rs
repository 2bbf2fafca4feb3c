//! Hook response bytes (jsonIO stdout, HTTP bodies) -> openHarness's `answer::parse`. Besides "no panic":
//! - blank input is `Empty`; a JSON object (as serde_json reads it) is `Parsed`, and so is what
//!   the tolerant reader reads beyond it (lone surrogates, a BOM, invalid UTF-8: always an
//!   object's text); a `Malformed` answer is never a JSON object;
//! - parsed reasons and contexts are never empty strings (empty means absent);
//! - the merge accepts whatever was parsed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oh_hooks::dialect::openharness::answer::{self, Response};
use oh_hooks::dialect::openharness::merge::decision;
use oh_hooks::merge::Walk;
use oh_hooks::response;

fuzz_target!(|data: &[u8]| {
    let parsed = answer::parse(data);
    let blank = data.iter().all(u8::is_ascii_whitespace);
    let object = serde_json::from_slice::<serde_json::Value>(data).is_ok_and(|v| v.is_object());
    match parsed {
        Response::Empty => assert!(blank),
        Response::Malformed(why) => {
            assert!(!blank && !object);
            assert!(!why.is_empty());
        }
        Response::Parsed { answer: result, .. } => {
            assert!(object || response::json::text(data).trim_start().starts_with('{'));
            assert!(result.reason.as_deref() != Some(""));
            assert!(result.context.as_deref() != Some(""));
            let _ = result.label();
            let mut walk = Walk::new();
            let _ = walk.step(decision(result.clone()), String::new);
            let _ = walk.finish();
            let mut walk = Walk::new();
            let _ = walk.gather(decision(result));
            let _ = walk.finish();
        }
    }
});
