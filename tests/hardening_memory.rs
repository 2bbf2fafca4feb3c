//! Hardening, memory: 100,000 fires through the C ABI (mostly no-match fires, 1,000 matching
//! jsonIO fires, 20 background fires) with RSS printed at the start, after 10,000 fires and at
//! the end; the growth after the first 10,000 must stay under 5 MB.

mod common;
use common::process::status_kib;
use oh_hooks::ffi;
use std::ffi::{CStr, CString};
use std::time::Instant;

const FIRES: usize = 100_000;
const MATCH_EVERY: usize = 100;
const BACKGROUND_EVERY: usize = 5_000;

#[test]
fn rss_stays_flat_over_100k_fires() {
    let options = CString::new(
        serde_json::json!({ "trusted": true, "config": { "hooks": {
            "preToolUse": [ { "command": "cat > /dev/null; echo '{\"hookSpecificOutput\":{\"additionalContext\":\"ok\"}}'", "match": "Bash", "jsonIO": true } ],
            "postToolUse": [ { "command": "exit 0", "match": "Bash" } ] } } })
        .to_string(),
    )
    .unwrap();
    let no_match =
        c"{\"event\":\"preToolUse\",\"toolName\":\"Read\",\"toolArgs\":\"src/lib.rs\",\"sessionId\":\"s-1\"}";
    let matching = c"{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"ls -la\",\"sessionId\":\"s-1\"}";
    let background = c"{\"event\":\"postToolUse\",\"toolName\":\"Bash\",\"toolOutput\":\"ok\"}";

    let start_rss = status_kib("VmRSS");
    let started = Instant::now();
    let mut after_10k = 0;
    let (mut matched, mut in_background) = (0, 0);
    // SAFETY: valid NUL-terminated strings; every outcome is freed once with the library's free;
    // the engine is freed once, after the last fire.
    unsafe {
        let h = ffi::oh_hooks_new(options.as_ptr(), std::ptr::null_mut());
        assert!(!h.is_null());
        for i in 0..FIRES {
            let envelope = if i % MATCH_EVERY == 0 {
                matched += 1;
                matching
            } else if i % BACKGROUND_EVERY == 1 {
                in_background += 1;
                background
            } else {
                no_match
            };
            let out = ffi::oh_hooks_fire(h, envelope.as_ptr());
            assert!(!out.is_null());
            let text = CStr::from_ptr(out).to_bytes();
            if i % MATCH_EVERY == 0 {
                assert!(
                    text.starts_with(b"{\"allowed\":true,\"additionalContext\":\"ok\""),
                    "{}",
                    String::from_utf8_lossy(text)
                );
            } else {
                assert_eq!(text, b"{\"allowed\":true,\"hooks\":[]}");
            }
            ffi::oh_hooks_string_free(out);
            if i + 1 == 10_000 {
                after_10k = status_kib("VmRSS");
            }
        }
        ffi::oh_hooks_free(h);
    }
    let end_rss = status_kib("VmRSS");
    eprintln!(
        "figure: RSS over {FIRES} fires ({matched} matching jsonIO, {in_background} background, the rest no-match) in {:?}: \
         start {start_rss} KiB, after 10k {after_10k} KiB, end {end_rss} KiB (end - after 10k = {} KiB)",
        started.elapsed(),
        end_rss as i64 - after_10k as i64
    );
    assert!(end_rss < after_10k + 5 * 1024, "RSS grew by {} KiB after the first 10,000 fires", end_rss - after_10k);
}
