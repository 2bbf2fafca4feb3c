//! The short run of the differential fuzz targets (`fuzz/fuzz_targets/answer_*.rs`), on the
//! stable toolchain: the same independent reference (`fuzz/reference/answer.rs`) over the seeds
//! below, every file of `fuzz/regressions/answer/` (what the long runs found), a local
//! `fuzz/corpus/answer_*` when there is one, and a few seconds of deterministic mutations. Any
//! answer the reference reads as a deny that the engine's one reader does not is a failure.

#[path = "../../fuzz/reference/answer.rs"]
mod reference;

use std::path::Path;

/// Answers that sit on the edges the reader must survive: surrogates, BOM, invalid UTF-8,
/// repeats, depth, numbers, Python's tokens.
const SEEDS: &[&[u8]] = &[
    br#"{"decision":"deny","reason":"rm -rf / #\ud800"}"#,
    b"\xef\xbb\xbf{\"decision\":\"deny\"}",
    b"{\"decision\":\"deny\",\"reason\":\"cut \xe2\x82\"}",
    br#"{"hookSpecificOutput":{"decision":"deny"},"hookSpecificOutput":{"decision":"allow"}}"#,
    br#"{"hookSpecificOutput":{"decision":"deny"},"hookSpecificOutput":null}"#,
    br#"{"decision":"allow","decision":"deny"}"#,
    br#"{"decision":"deny","score":1e999,"n":-1e400,"x":[[[[[[[[1]]]]]]]]}"#,
    br#"{"decisio\u006e":"d\u0065ny"}"#,
    br#"{"reason":"\udc00\ud800\ud83d\ude00","decision":"deny"}"#,
    br#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"blocked: \ud800"}}"#,
    b"\xef\xbb\xbf{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\"}}",
    br#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"},"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
    br#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"},"hookSpecificOutput":null}"#,
    br#"{"decision":"block","reason":"no \ud800","systemMessage":"\udfff"}"#,
    br#"  {"decision":"block"}  "#,
    br#"{"continue":false,"decision":"block","decision":"approve"}"#,
];

fn check(data: &[u8]) {
    for (name, f) in [
        ("openharness", reference::check_openharness as fn(&[u8]) -> Result<(), String>),
        ("claude", reference::check_claude),
    ] {
        if let Err(why) = f(data) {
            panic!("{name}: {why}: {:?}", String::from_utf8_lossy(data));
        }
    }
}

fn files(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries.flatten().filter_map(|e| std::fs::read(e.path()).ok()).collect()
}

#[test]
fn seeds_regressions_and_local_corpora_agree_with_the_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut n = 0;
    for seed in SEEDS {
        check(seed);
        n += 1;
    }
    for dir in ["regressions/answer", "corpus/answer_openharness", "corpus/answer_claude"] {
        for data in files(&root.join(dir)) {
            check(&data);
            n += 1;
        }
    }
    assert!(n >= SEEDS.len());
}

/// A few seconds of mutations of the seeds (xorshift, fixed seed: the same run every time):
/// bytes flipped, spliced from the alphabet the reader cares about, parts repeated.
#[test]
fn mutated_seeds_agree_with_the_reference() {
    const PIECES: &[&[u8]] = &[
        b"\\ud800",
        b"\\udc00",
        b"\\ud83d\\ude00",
        b"\xef\xbb\xbf",
        b"\xff",
        b"\xe2\x82",
        b"\"deny\"",
        b"\"allow\"",
        b"null",
        b",\"decision\":\"allow\"",
        b",\"hookSpecificOutput\":null",
        b"1e999",
        b"NaN",
        b"\\",
        b"\"",
        b"{",
        b"}",
        b"[",
        b"]",
        b" ",
        b"\n",
        b"\t",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut checked = 0;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while std::time::Instant::now() < deadline {
        let mut data = SEEDS[(next() % SEEDS.len() as u64) as usize].to_vec();
        for _ in 0..1 + next() % 4 {
            if data.is_empty() {
                break;
            }
            let at = (next() % data.len() as u64) as usize;
            match next() % 4 {
                0 => data[at] = next() as u8,
                1 => {
                    let piece = PIECES[(next() % PIECES.len() as u64) as usize];
                    data.splice(at..at, piece.iter().copied());
                }
                2 => {
                    data.remove(at);
                }
                _ => {
                    let end = (at + 1 + (next() % 16) as usize).min(data.len());
                    let part = data[at..end].to_vec();
                    data.splice(end..end, part);
                }
            }
        }
        check(&data);
        checked += 1;
    }
    assert!(checked > 1000, "only {checked} mutations checked");
}
