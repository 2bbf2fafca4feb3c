//! Differential: every answer the independent reference (fuzz/reference/answer.rs: lone
//! surrogates replaced, then serde_json) reads as a deny, the engine's one reader must read as
//! a deny too (claude vocabulary).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../reference/answer.rs"]
mod reference;

fuzz_target!(|data: &[u8]| {
    if let Err(why) = reference::check_claude(data) {
        panic!("{why}: {:?}", String::from_utf8_lossy(data));
    }
});
