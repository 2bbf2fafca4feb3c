//! The no-match shortcut (src/quick.rs) against the general fire path: the shortcut may only
//! ever answer what the general path answers, byte for byte. The shared vectors are fired both
//! ways (through `oh_hooks_fire`, which takes the shortcut where it can, and through
//! `Engine::fire`, which never does), and mutated envelopes check every acceptance of the
//! shortcut against the general path.

use oh_hooks::ffi;
use oh_hooks::host::Observer;
use oh_hooks::Engine;
use proptest::prelude::*;
use serde_json::Value;
use std::ffi::{CStr, CString};
use std::sync::Arc;

/// The outcome of a fire that ran nothing: pinned, whichever path wrote it.
const ALLOWED: &str = r#"{"allowed":true,"hooks":[]}"#;

/// The bench's 278-byte envelope (bench/bench.c).
const BENCH: &str = concat!(
    r#"{"event":"preToolUse","toolName":"Bash","#,
    r#""toolArgs":"{\"command\":\"ls -la /tmp\",\"description\":\"List files\"}","#,
    r#""sessionId":"5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11","model":"claude-sonnet-4","#,
    r#""provider":"anthropic","permissionMode":"default","turnNumber":3,"cwd":"/work/project"}"#
);

const PATTERNS: [&str; 20] = [
    "Read",
    "Write",
    "Edit",
    "Grep",
    "WebFetch",
    "WebSearch",
    "NotebookEdit",
    "mcp__*",
    "*__github__*",
    "Task*",
    "*Todo*",
    "Notebook*Cell",
    "Kill*",
    "*Shell",
    "/^(Read|Write|Edit)$/",
    "/^mcp__.*__(create|delete)_/",
    "/web(fetch|search)/i",
    "/^Bashful$/",
    "/^Multi(Edit)?$/",
    "/todo/i",
];

/// The same options as an engine of the Rust API and as one of the C ABI.
struct Pair {
    e: Engine,
    c: *mut ffi::OhHooks,
}

impl Drop for Pair {
    fn drop(&mut self) {
        // SAFETY: `c` came from `oh_hooks_new` and is freed once.
        unsafe { ffi::oh_hooks_free(self.c) };
    }
}

impl std::ops::Deref for Pair {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.e
    }
}

fn pair(options: &str) -> Option<Pair> {
    let e = Engine::new(Some(options)).ok()?;
    let o = CString::new(options).unwrap();
    // SAFETY: a NUL-terminated options string; no error slot.
    let c = unsafe { ffi::oh_hooks_new(o.as_ptr(), std::ptr::null_mut()) };
    assert!(!c.is_null());
    Some(Pair { e, c })
}

fn engine(hooks: &str) -> Pair {
    pair(&format!(r#"{{"trusted":true,"config":{{"hooks":{hooks}}}}}"#)).unwrap()
}

fn twenty() -> Pair {
    let hooks: Vec<String> =
        PATTERNS.iter().map(|p| format!(r#"{{"command":"exit 1","match":{}}}"#, Value::from(*p))).collect();
    engine(&format!(r#"{{"preToolUse":[{}]}}"#, hooks.join(",")))
}

/// Fires through the C ABI, as hosts do (the shortcut where it applies).
fn fire_c(p: &Pair, text: &[u8]) -> String {
    let c = CString::new(text).unwrap();
    // SAFETY: a live engine and a NUL-terminated envelope.
    let out = unsafe { ffi::oh_hooks_fire(p.c, c.as_ptr()) };
    // SAFETY: the library returned a NUL-terminated string that is ours to free.
    let s = unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string();
    unsafe { ffi::oh_hooks_string_free(out) };
    s
}

/// An outcome without its timings, the only field that may differ between two fires.
fn timeless(outcome: &str) -> Value {
    let mut v: Value = serde_json::from_str(outcome).unwrap();
    for h in v["hooks"].as_array_mut().into_iter().flatten() {
        h.as_object_mut().unwrap().remove("durationMs");
    }
    v
}

/// The shortcut's verdict, checked against the general path's: when it answers, the general
/// path must answer the same bytes. Returns whether it answered.
fn agree(e: &Pair, text: &[u8]) -> bool {
    let quick = e.fire_quick(text);
    if let Some(q) = quick {
        let general = match std::str::from_utf8(text) {
            Ok(t) => e.fire(t).to_json(),
            Err(_) => panic!("the shortcut answered text that is not UTF-8: {text:?}"),
        };
        assert_eq!(
            q.to_str().unwrap(),
            general,
            "shortcut and general path differ on {:?}",
            String::from_utf8_lossy(text)
        );
        assert_eq!(general, ALLOWED);
    }
    quick.is_some()
}

#[test]
fn no_match_outcome_bytes_are_pinned_on_both_paths() {
    for e in [engine(r#"{"postToolUse":[{"command":"true"}]}"#), twenty()] {
        assert!(e.fire_quick(BENCH.as_bytes()).is_some(), "the bench envelope takes the shortcut");
        assert_eq!(fire_c(&e, BENCH.as_bytes()), ALLOWED);
        assert_eq!(e.fire(BENCH).to_json(), ALLOWED);
    }
}

#[test]
fn what_the_shortcut_leaves_to_the_general_path() {
    let none = engine(r#"{"postToolUse":[{"command":"true"}]}"#);
    let twenty = twenty();
    let bench = |from: &str, to: &str| BENCH.replacen(from, to, 1);
    // Each of these is answered by the general path; some are not no-match fires at all.
    for (e, text) in [
        (&twenty, bench("\"Bash\"", "\"Read\"")),                 // a hook matches
        (&twenty, bench(",\"toolName\":\"Bash\"", "")),           // no tool name: every matcher matches
        (&twenty, bench("\"Bash\"", "\"\"")),                     // empty tool name, likewise
        (&none, bench("preToolUse", "PreToolUse")),               // unknown event
        (&none, bench("\"turnNumber\":3", "\"turnNumber\":3e0")), // exponent
        (&none, bench("\"Bash\"", "\"Ba\\u0073h\"")),             // escapes in the tool name
        (&none, bench("\"model\"", "\"event\"")),                 // event twice
        (&none, bench("\"cwd\"", "\"tool_name\"")),               // tool name twice
        (&none, BENCH[..BENCH.len() - 1].to_string()),            // syntax error: no closing brace
        (&none, format!("{BENCH}x")),                             // trailing garbage
        (&none, bench("anthropic", "anthr\u{1}opic")),            // control character
    ] {
        assert!(e.fire_quick(text.as_bytes()).is_none(), "{text}");
        assert_eq!(timeless(&fire_c(e, text.as_bytes())), timeless(&e.fire(&text).to_json()), "{text}");
    }
    // Not UTF-8: the general path's invalid_utf8, never the shortcut.
    let bad = bench("anthropic", "anthr\u{e9}opic").replace('\u{e9}', "\u{1}");
    let mut bytes = bad.into_bytes();
    let at = bytes.iter().position(|b| *b == 1).unwrap();
    bytes[at] = 0xff;
    assert!(none.fire_quick(&bytes).is_none());
    assert!(fire_c(&none, &bytes).contains("invalid_utf8"));
    // Non-ASCII but valid: the shortcut, after its UTF-8 check.
    assert!(agree(&none, bench("anthropic", "anthröpic ✓").as_bytes()));
}

#[test]
fn engines_whose_fires_are_not_the_constant() {
    // Warnings in every outcome: the general path adds them.
    let dir = tempfile::tempdir().unwrap();
    let warned = pair(&format!(
        r#"{{"trusted":true,"cwd":{},"config":{{"hooks":{{"postToolUse":[{{"command":"true","match":"Bash(rm:*)"}}]}}}}}}"#,
        Value::from(dir.path().display().to_string())
    ))
    .unwrap();
    assert!(!warned.warnings().is_empty(), "the other dialect's matcher syntax warns");
    assert!(warned.fire_quick(BENCH.as_bytes()).is_none());
    assert!(warned.fire(BENCH).to_json().contains("warnings"));
    // An observer: each fire is a record.
    struct Count(std::sync::atomic::AtomicUsize);
    impl Observer for Count {
        fn observe(&self, _: &str) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let observed = engine(r#"{"postToolUse":[{"command":"true"}]}"#);
    let count = Arc::new(Count(Default::default()));
    observed.observe(Some(count.clone()));
    assert!(observed.fire_quick(BENCH.as_bytes()).is_none());
    assert_eq!(observed.fire(BENCH).to_json(), ALLOWED);
    assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 1, "the observer saw the fire");
    // A hook without `match` on the event: it runs.
    let runs = engine(r#"{"preToolUse":[{"command":"exit 1"}]}"#);
    assert!(runs.fire_quick(BENCH.as_bytes()).is_none());
    assert!(fire_c(&runs, BENCH.as_bytes()).starts_with(r#"{"allowed":false"#));
    // disableAllHooks: nothing runs, the constant.
    let off =
        pair(r#"{"trusted":true,"config":{"disableAllHooks":true,"hooks":{"preToolUse":[{"command":"exit 1"}]}}}"#)
            .unwrap();
    assert!(agree(&off, BENCH.as_bytes()));
}

/// Every fire of every shared vector, both ways: through the C ABI and through the general
/// path alone; the shortcut must have answered some of them and left others.
#[test]
fn shared_vectors_through_both_paths() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let (mut quick, mut general) = (0, 0);
    for path in paths.iter().filter(|p| p.extension().is_some_and(|x| x == "json")) {
        let text = std::fs::read_to_string(path).unwrap();
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let text = text
            .replace("@HOME@", &home.path().display().to_string())
            .replace("@CWD@", &cwd.path().display().to_string());
        let v: Value = serde_json::from_str(&text).unwrap();
        if v.get("newError").is_some() || v.get("callbacks").is_some() {
            continue;
        }
        for (file, body) in v["files"].as_object().into_iter().flatten() {
            let p = std::path::Path::new(file);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body.as_str().unwrap()).unwrap();
        }
        let options = match &v["options"] {
            Value::Null => "{}".to_string(),
            o => o.to_string(),
        };
        let Some(e) = pair(&options) else { continue };
        for fire in v["fires"].as_array().into_iter().flatten() {
            let envelope = match (&fire["raw"], &fire["envelope"]) {
                (Value::String(raw), _) => raw.clone(),
                (_, env) => env.to_string(),
            };
            if envelope.contains('\0') {
                continue;
            }
            if agree(&e, envelope.as_bytes()) {
                quick += 1;
                let expected: Value = fire["outcome"].clone();
                assert_eq!(expected, serde_json::from_str::<Value>(ALLOWED).unwrap(), "{}: {envelope}", path.display());
                assert_eq!(fire_c(&e, envelope.as_bytes()), ALLOWED, "{}", path.display());
            } else {
                general += 1;
            }
        }
    }
    assert!(quick >= 10 && general >= 50, "vectors exercise both paths: {quick} shortcut, {general} general");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Random edits of the bench envelope (bytes inserted, replaced, removed): wherever the
    /// shortcut answers, the general path answers the same.
    #[test]
    fn mutated_envelopes_agree(edits in prop::collection::vec((0usize..300, prop::sample::select(vec![
        "", "\"", "\\", "\\u0041", "\\n", "{", "}", "[", "]", ",", ":", " ", "\t", "1", "-", ".", "e", "0",
        "null", "true", "é", "\u{1}", "\"event\":\"preToolUse\",", "\"toolName\":\"Read\",", "\"tool_name\":\"x\",",
        // The 64-byte classification (src/quick.rs): runs of backslashes, escaped quotes and
        // keys with escapes, at every offset of a block (the runs below shift the text by 31 and
        // 63 bytes), and whitespace the byte scanner judges.
        "\\\\", "\\\\\\", "\\\"", "\\/", "\n", "\r\n", "\"a\\\"b\":1,", "\"\\\\\":\"\\\\\\\"\",",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
    ]), 0usize..3), 1..4)) {
        thread_local! {
            static ENGINES: (Pair, Pair) = (engine(r#"{"postToolUse":[{"command":"true"}]}"#), twenty());
        }
        let mut text = BENCH.as_bytes().to_vec();
        for (at, insert, remove) in edits {
            let at = at.min(text.len());
            let end = (at + remove).min(text.len());
            text.splice(at..end, insert.bytes());
        }
        ENGINES.with(|(none, twenty)| {
            agree(none, &text);
            agree(twenty, &text);
        });
    }
}

#[test]
fn remembered_tool_names_answer_as_the_matchers_would() {
    let twenty = twenty();
    let with = |tool: &str| BENCH.replacen("\"Bash\"", &Value::from(tool).to_string(), 1);
    for round in 0..3 {
        for tool in ["Bash", "Read", "mcp__x__create_y", "Bash", "WebFetchX", "todo-list", "Glob"] {
            let matches = !agree(&twenty, with(tool).as_bytes());
            let general = twenty.fire(&with(tool)).to_json();
            assert_eq!(matches, general != ALLOWED, "round {round}, {tool}: {general}");
        }
    }
}

/// A fire arriving while its engine is being freed is `cancelled` (docs/abi.md: fires arriving
/// during `oh_hooks_free` are refused), also one the shortcut could answer: here from a
/// background hook's callback, on an engine without an observer (with one, the shortcut
/// stands aside anyway).
#[test]
fn a_fire_during_free_is_cancelled_not_the_constant() {
    use std::ffi::{c_char, c_void};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;
    struct During {
        h: std::sync::atomic::AtomicPtr<ffi::OhHooks>,
        freeing: AtomicBool,
        outcome: Mutex<Option<String>>,
    }
    unsafe extern "C" fn forward(user: *mut c_void, _request: *const c_char, call: *mut ffi::OhHooksCall) {
        // SAFETY: `user` is the `During` below, alive until after free returns.
        let d = unsafe { &*(user as *const During) };
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !d.freeing.load(Ordering::SeqCst) && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        std::thread::sleep(std::time::Duration::from_millis(100)); // free is under way
        let h = d.h.load(Ordering::SeqCst);
        // SAFETY: the engine is being freed, and free waits for this callback; a no-match
        // envelope (preToolUse has no hook).
        let out = unsafe { ffi::oh_hooks_fire(h, c"{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}".as_ptr()) };
        // SAFETY: the library's NUL-terminated outcome, freed once.
        *d.outcome.lock().unwrap() = Some(unsafe { CStr::from_ptr(out) }.to_str().unwrap().to_string());
        unsafe { ffi::oh_hooks_string_free(out) };
        // SAFETY: `call` is this call's, answered once.
        unsafe { ffi::oh_hooks_respond(call, std::ptr::null()) };
    }
    let options =
        CString::new(r#"{"trusted":true,"config":{"hooks":{"postToolUse":[{"callback":"forward"}]}}}"#).unwrap();
    // SAFETY: NUL-terminated options; no error slot.
    let h = unsafe { ffi::oh_hooks_new(options.as_ptr(), std::ptr::null_mut()) };
    assert!(!h.is_null());
    let d = During { h: h.into(), freeing: AtomicBool::new(false), outcome: Mutex::new(None) };
    // SAFETY: a live engine, a NUL-terminated name, `d` outlives the engine.
    let registered = unsafe {
        ffi::oh_hooks_register(
            h,
            c"forward".as_ptr(),
            Some(forward),
            &d as *const During as *mut c_void,
            None,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(registered, 0);
    // postToolUse does not block: its callback hook runs in the background.
    // SAFETY: a live engine and a NUL-terminated envelope; the outcome is freed once.
    unsafe { ffi::oh_hooks_string_free(ffi::oh_hooks_fire(h, c"{\"event\":\"postToolUse\"}".as_ptr())) };
    d.freeing.store(true, Ordering::SeqCst);
    // SAFETY: freed once; the callback above fires on it from inside free, as allowed.
    unsafe { ffi::oh_hooks_free(h) };
    let outcome = d.outcome.lock().unwrap().clone().expect("the callback fired during free");
    let v: Value = serde_json::from_str(&outcome).unwrap();
    assert_eq!(v["error"]["code"], "cancelled", "{outcome}");
    assert_eq!(v["allowed"], false, "{outcome}");
}

/// Answers every call with the request it was given as `additionalContext`: the outcome then
/// holds the envelope exactly as the hook received it.
struct Echo;

/// [`Echo`]'s answer to `request`.
fn echo_answer(request: &str) -> String {
    serde_json::json!({ "hookSpecificOutput": { "additionalContext": request } }).to_string()
}

impl oh_hooks::host::HostFunction for Echo {
    fn call(&self, request: &str, call: u64) {
        oh_hooks::host::answer(call, Some(echo_answer(request).into_bytes()));
    }
}

/// An engine whose hooks run on the envelopes below (a callback filtering by tool, one not;
/// with `commands`, command hooks whose stderr, kept in their traces, is the JSON they read and
/// the `OH_*` variables they were given), with `Echo` registered on both its APIs.
fn echoing(commands: bool) -> Pair {
    let command = if commands {
        r#",{"command":"cat >&2; echo {}","jsonIO":true},{"command":"env | grep ^OH_ | LC_ALL=C sort >&2","match":"Bash"}"#
    } else {
        ""
    };
    let e = engine(&format!(
        r#"{{"preToolUse":[{{"callback":"echo","match":"Bash"}},{{"callback":"echo"}}{command}],"userPromptSubmit":[{{"callback":"echo"}}]}}"#
    ));
    e.register("echo", Some(Arc::new(Echo)));
    let name = CString::new("echo").unwrap();
    unsafe extern "C" fn echo(_: *mut std::ffi::c_void, request: *const std::ffi::c_char, call: *mut ffi::OhHooksCall) {
        // SAFETY: the engine hands a NUL-terminated request, valid for the call.
        let request = unsafe { CStr::from_ptr(request) }.to_str().unwrap();
        let answer = CString::new(echo_answer(request)).unwrap();
        // SAFETY: `call` is this call's, answered once, with a NUL-terminated answer.
        unsafe { ffi::oh_hooks_respond(call, answer.as_ptr()) };
    }
    // SAFETY: a live engine, a NUL-terminated name, no user data to release.
    let registered = unsafe {
        ffi::oh_hooks_register(e.c, name.as_ptr(), Some(echo), std::ptr::null_mut(), None, std::ptr::null_mut())
    };
    assert_eq!(registered, 0);
    e
}

/// The same envelope through the general path (`Engine::fire`, which parses it) and the path
/// `oh_hooks_fire` takes (`Engine::fire_bytes`, which reads it from the no-match scan when the
/// scan accepts it, and the C ABI itself): the outcomes, byte for byte but for the hooks'
/// durations. Returns whether the scan read it.
fn same_both_ways(e: &Pair, text: &str) -> bool {
    let durations = |s: String| {
        let mut out = String::with_capacity(s.len());
        let mut rest = s.as_str();
        while let Some(at) = rest.find("\"durationMs\":") {
            out.push_str(&rest[..at]);
            rest = rest[at..]
                .trim_start_matches("\"durationMs\":")
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == 'e' || c == '-');
        }
        out + rest
    };
    let general = durations(e.fire(text).to_json());
    let fast = durations(e.fire_bytes(text.as_bytes()).map_or(ALLOWED.to_string(), |o| o.to_json()));
    assert_eq!(fast, general, "the two readings of {text:?} differ");
    assert_eq!(durations(fire_c(e, text.as_bytes())), general, "{text:?} through oh_hooks_fire");
    oh_hooks::quick::fields(text).is_some()
}

/// Envelopes the scan reads, through the engine: members in an unusual order, escaped keys
/// (one decoding to a key also given plainly), repeated keys, a 1 MiB tool input, both
/// spellings of a field; the hooks (callbacks, then command hooks) see the same either way.
#[test]
fn hooks_see_the_same_envelope_whichever_path_read_it() {
    let huge = format!(r#"{{"command":"{}","n":[{}]}}"#, "x".repeat(1 << 20), "1,".repeat(50_000) + "2");
    let texts = [
        BENCH.to_string(),
        " {\n\t\"toolInput\" : { \"command\" : \"ls -la\" } ,\r\n\"toolName\":\"Bash\" , \"event\" :\"preToolUse\" } ".into(),
        r#"{"tool_input":{"command":"ls"},"tool_name":"Bash","session_id":"s","event":"preToolUse","sessionId":"t"}"#.into(),
        r#"{"event":"preToolUse","toolName":"Bash","a\/b":1,"a/b":2,"q\"k":"v","t\tab":[],"\\":{},"\b\f\n\r\t":null}"#.into(),
        r#"{"event":"preToolUse","toolName":"Read","a":1,"b":2,"a":{"x":[1,2]},"toolInput":1,"tool_input":2,"toolInput":3}"#.into(),
        r#"{"event":"preToolUse","ab":1,"ba":2,"a_b":3,"aab":4,"abb":5,"":6,"":7,"model":"é ✓ \"q\""}"#.into(),
        format!(r#"{{"event":"preToolUse","toolName":"Bash","toolInput":{huge},"toolInputJson":{}}}"#, Value::from(huge.clone())),
        format!(r#"{{"event":"userPromptSubmit","prompt":"{}","effort":{{"level":"high"}},"prompt":"p2"}}"#, "é".repeat(5000)),
        // Left to the general path by the scan: both paths are the general one.
        r#"{"event":"preToolUse","toolName":"Ba\u0073h","k":1}"#.into(),
        r#"{"event":"preToolUse","toolName":"Bash","n":1e3}"#.into(),
    ];
    let callbacks = echoing(false);
    let mut read = 0;
    for text in &texts {
        read += same_both_ways(&callbacks, text) as usize;
    }
    assert_eq!(read, texts.len() - 2, "the scan read every envelope but the last two");
    assert!(callbacks.fire(&texts[3]).to_json().contains(r#"\"a/b\":2"#), "the hooks' requests are in the outcome");
    let commands = echoing(true);
    for text in texts.iter().filter(|t| t.len() < 100_000) {
        same_both_ways(&commands, text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Random edits of an envelope with repeated and escaped keys, fired at callback hooks that
    /// echo what they were given: both readings give the same outcome, byte for byte.
    #[test]
    fn edited_envelopes_reach_hooks_the_same_both_ways(edits in prop::collection::vec((0usize..200, prop::sample::select(vec![
        "", "\"", "\\", "\\\"", "\\/", "\\n", "\\u0041", "{", "}", "[", "]", ",", ":", " ", "\n", "1", "-", ".", "e", "0",
        "null", "é", "\u{1}", "\"a\\\"b\":3,", "\"toolInput\":7,", "\"tool_input\":{\"x\":[]},", "\"\\/x\":0,", "\"/x\":1,",
        "\"toolName\":\"Read\",", "\"tool_name\":\"Bash\",", "\"event\":\"userPromptSubmit\",", "\"prompt\":\"p\",",
    ]), 0usize..3), 1..4)) {
        thread_local! {
            static ENGINE: Pair = echoing(false);
        }
        let mut text = concat!(
            r#"{"event":"preToolUse","toolName":"Bash","a\"b":1,"toolInput":{"command":"ls \"x\""},"#,
            r#""a\"b":[2,{"c":null}],"tool_input":"s","cwd":"/w","turnNumber":3}"#
        ).as_bytes().to_vec();
        for (at, insert, remove) in edits {
            let at = at.min(text.len());
            let end = (at + remove).min(text.len());
            text.splice(at..end, insert.bytes());
        }
        // Text that is not UTF-8 is refused alike (`what_the_shortcut_leaves_to_the_general_path`).
        if let Ok(text) = String::from_utf8(text) {
            ENGINE.with(|e| same_both_ways(e, &text));
        }
    }
}
