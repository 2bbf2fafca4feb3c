//! Hardening, bad input: one test (or table row) for every row of docs/bad-input.md, each
//! asserting the documented result: the error code (and `path` where there is one) for options
//! and config, the outcome error code for envelopes, and the outcome / trace for bad hook
//! responses and broken environments. Row ids (A1, B3, ...) are the table's.

use crate::common::process::*;
use crate::common::*;
use oh_hooks::ffi;
use oh_hooks::Engine;
use serde_json::{json, Value};
use std::ffi::{CStr, CString};
use std::path::Path;

fn new_error(options: &str) -> Value {
    match Engine::new(Some(options)) {
        Ok(_) => panic!("options accepted: {options:.200}"),
        Err(e) => serde_json::from_str(&e.to_json()).unwrap(),
    }
}

fn check_error(row: &str, err: &Value, code: &str, path: Option<&str>, needle: &str) {
    assert_eq!(err["code"], code, "{row}: {err}");
    if let Some(p) = path {
        assert_eq!(err["path"], p, "{row}: {err}");
    }
    let message = err["message"].as_str().unwrap();
    assert!(message.contains(needle), "{row}: message lacks {needle:?}: {message}");
}

// ---------------------------------------------------------------- A. options

#[test]
fn a_options_table() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let file = file.display().to_string();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_config = format!("{{\"config\":{}{}}}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    #[rustfmt::skip]
    let rows: Vec<(&str, String, &str, Option<&str>, &str)> = vec![
        ("A1 not JSON", "{".into(), "invalid_options", None, "not valid JSON"),
        ("A2 empty text", "".into(), "invalid_options", None, "not valid JSON"),
        ("A3 array", "[1]".into(), "invalid_options", None, "must be a JSON object, found an array"),
        ("A3 string", "\"x\"".into(), "invalid_options", None, "found a string"),
        ("A3 number", "42".into(), "invalid_options", None, "found a number"),
        ("A3 boolean", "true".into(), "invalid_options", None, "found a boolean"),
        ("A5 unknown key", r#"{"defaultTimeout":5}"#.into(), "invalid_options", Some("defaultTimeout"), "did you mean `defaultTimeoutMs`"),
        ("A6 cwd number", r#"{"cwd":5}"#.into(), "invalid_options", Some("cwd"), "expected a string"),
        ("A6 home number", r#"{"home":5}"#.into(), "invalid_options", Some("home"), "expected a string"),
        ("A6 layers string", r#"{"layers":"user"}"#.into(), "invalid_options", Some("layers"), "expected an array"),
        ("A6 layers unknown", r#"{"layers":["team"]}"#.into(), "invalid_options", Some("layers"), "unknown layer"),
        ("A6 configPath number", r#"{"configPath":5}"#.into(), "invalid_options", Some("configPath"), "expected a string"),
        ("A6 config array", r#"{"config":[]}"#.into(), "invalid_options", Some("config"), "expected a config object"),
        ("A6 trusted string", r#"{"trusted":"yes"}"#.into(), "invalid_options", Some("trusted"), "true or false"),
        ("A6 trusted null", r#"{"trusted":null}"#.into(), "invalid_options", Some("trusted"), "true or false"),
        ("A6 defaultTimeoutMs string", r#"{"defaultTimeoutMs":"5"}"#.into(), "invalid_options", Some("defaultTimeoutMs"), "positive integer"),
        ("A6 defaultTimeoutMs 0", r#"{"defaultTimeoutMs":0}"#.into(), "invalid_options", Some("defaultTimeoutMs"), "positive integer"),
        ("A6 defaultTimeoutMs -1", r#"{"defaultTimeoutMs":-1}"#.into(), "invalid_options", Some("defaultTimeoutMs"), "positive integer"),
        ("A6 defaultTimeoutMs 1.5", r#"{"defaultTimeoutMs":1.5}"#.into(), "invalid_options", Some("defaultTimeoutMs"), "positive integer"),
        ("A6 defaultTimeoutMs 1e3", r#"{"defaultTimeoutMs":1e3}"#.into(), "invalid_options", Some("defaultTimeoutMs"), "positive integer"),
        ("A6 env array", r#"{"env":[]}"#.into(), "invalid_options", Some("env"), "object of strings"),
        ("A6 env value number", r#"{"env":{"A":1}}"#.into(), "invalid_options", Some("env"), "must be a string"),
        ("A6 env empty name", r#"{"env":{"":"x"}}"#.into(), "invalid_options", Some("env"), "not a valid variable name"),
        ("A6 env name with =", r#"{"env":{"A=B":"x"}}"#.into(), "invalid_options", Some("env"), "not a valid variable name"),
        ("A6 env name with NUL", r#"{"env":{"A\u0000":"x"}}"#.into(), "invalid_options", Some("env"), "not a valid variable name"),
        ("A6 strict string", r#"{"strict":"yes"}"#.into(), "invalid_options", Some("strict"), "true or false"),
        ("A6 maxOutputBytes 0", r#"{"maxOutputBytes":0}"#.into(), "invalid_options", Some("maxOutputBytes"), "positive integer"),
        ("A6 waitNonBlocking 1", r#"{"waitNonBlocking":1}"#.into(), "invalid_options", Some("waitNonBlocking"), "true or false"),
        ("A7 env value with NUL", r#"{"env":{"A":"x\u0000y"}}"#.into(), "invalid_options", Some("env"), "NUL"),
        ("A8 cwd missing", r#"{"cwd":"/definitely/not/here"}"#.into(), "invalid_options", Some("cwd"), "not a directory"),
        ("A8 cwd is a file", json!({ "cwd": file }).to_string(), "invalid_options", Some("cwd"), "not a directory"),
        ("A8 cwd with NUL", r#"{"cwd":"/tmp\u0000x"}"#.into(), "invalid_options", Some("cwd"), "not a directory"),
        ("A9 config + configPath", r#"{"config":{},"configPath":"/x.yaml"}"#.into(), "invalid_options", None, "exclusive"),
        ("A9 config + layers", r#"{"config":{},"layers":["user"]}"#.into(), "invalid_options", None, "exclusive"),
        ("A9 configPath + layers", r#"{"configPath":"/x.yaml","layers":["user"]}"#.into(), "invalid_options", None, "exclusive"),
        ("A10 configPath missing", r#"{"configPath":"/definitely/not/here.yaml"}"#.into(), "io_error", None, "cannot read config file"),
        ("A10 configPath a directory", r#"{"configPath":"/tmp"}"#.into(), "io_error", None, "cannot read config file"),
        ("A12 options nested 100000 deep", deep, "invalid_options", None, "recursion limit"),
        ("A12 config nested 100000 deep", deep_config, "invalid_options", None, "recursion limit"),
        ("A13 repeated key, last counts", r#"{"strict":true,"strict":1}"#.into(), "invalid_options", Some("strict"), "true or false"),
    ];
    for (row, options, code, path, needle) in rows {
        check_error(row, &new_error(&options), code, path, needle);
    }
}

#[test]
fn a4_json_null_options_mean_defaults() {
    let e = Engine::new(Some("null")).expect("A4: `null` options are the defaults");
    assert_eq!(e.options().default_timeout.as_millis(), 10_000);
    assert_eq!(e.options().max_output_bytes, 1 << 20);
}

#[test]
fn a11_options_not_utf8_through_the_ffi() {
    let mut error = std::ptr::null_mut();
    // SAFETY: a NUL-terminated byte string; the error is freed with the library's free.
    let err = unsafe {
        let h = ffi::oh_hooks_new(c"{\"cwd\":\"\xff\"}".as_ptr(), &mut error);
        assert!(h.is_null());
        let text = CStr::from_ptr(error).to_str().unwrap().to_string();
        ffi::oh_hooks_string_free(error);
        text
    };
    let err: Value = serde_json::from_str(&err).unwrap();
    check_error("A11", &err, "invalid_options", None, "not valid UTF-8");
}

#[test]
fn a14_huge_default_timeout_is_accepted_and_hooks_still_run() {
    let e = one_hook(json!({ "command": "exit 3" }), json!({ "defaultTimeoutMs": u64::MAX }));
    let o = fire(&e, json!({ "event": "preToolUse" }));
    assert_eq!(o["reason"], "hook denied (exit code)", "{o}");
    assert_eq!(trace(&o)["exitCode"], 3, "{o}");
    assert_eq!(trace(&o)["timedOut"], false, "{o}");
}

// ---------------------------------------------------------------- B. config

/// Writes `text` as a YAML (or, by extension, JSON) config file and returns the load error.
fn config_file_error(name: &str, text: &[u8]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let err = new_error(&json!({ "trusted": true, "configPath": path }).to_string());
    assert_eq!(err["file"], path.display().to_string(), "the error names the file: {err}");
    err
}

/// (row, file name, file text, expected line, expected path, message has)
type ConfigRow = (&'static str, &'static str, String, Option<u64>, Option<&'static str>, &'static str);

#[test]
fn b_config_file_table() {
    let entry = |rest: &str| format!("hooks:\n  preToolUse:\n    - command: x\n{rest}");
    // The YAML parser is quadratic in flow nesting depth; the engine refuses more than 1000
    // levels before parsing (see b23_* below and docs/bad-input.md).
    let deep = |n: usize| format!("hooks:\n  preToolUse: {}{}\n", "[".repeat(n), "]".repeat(n));
    let deep_map = format!("hooks:\n  preToolUse:\n    - command: {}x{}\n", "{a: ".repeat(10_000), "}".repeat(10_000));
    let deep_harness = format!("deep:\n  {}{}\nhooks: null\n", "[".repeat(100_000), "]".repeat(100_000));
    #[rustfmt::skip]
    let rows: Vec<ConfigRow> = vec![
        ("B1 bad YAML", "c.yaml", "a: b: c\n".into(), Some(1), None, "mapping values are not allowed"),
        ("B1 unterminated string", "c.yaml", "hooks:\n  preToolUse:\n    - command: \"x\n".into(), Some(4), None, "quoted scalar"),
        ("B2 top level a list", "c.yaml", "- a\n- b\n".into(), Some(1), None, "map of settings at the top level"),
        ("B2 top level a number", "c.yaml", "42\n".into(), Some(1), None, "map of settings at the top level"),
        ("B3 hooks a list", "c.yaml", "hooks: [1]\n".into(), Some(1), Some("hooks"), "map from event names"),
        ("B3 hooks a string", "c.yaml", "hooks: x\n".into(), Some(1), Some("hooks"), "map from event names"),
        ("B4 event a map", "c.yaml", "hooks:\n  preToolUse: {command: x}\n".into(), Some(2), Some("hooks.preToolUse"), "list of hook entries"),
        ("B5 unknown event", "c.yaml", "hooks:\n  PreToolUse:\n    - command: x\n".into(), Some(2), None, "did you mean `preToolUse`"),
        ("B6 event twice", "c.yaml", "hooks:\n  preToolUse: []\n  preToolUse: []\n".into(), Some(3), Some("hooks.preToolUse"), "appears twice"),
        ("B7 entry a number", "c.yaml", "hooks:\n  preToolUse:\n    - 5\n".into(), Some(3), Some("hooks.preToolUse[0]"), "a hook entry"),
        ("B7 entry null", "c.yaml", "hooks:\n  preToolUse:\n    - null\n".into(), Some(3), Some("hooks.preToolUse[0]"), "a hook entry"),
        ("B8 no handler", "c.yaml", "hooks:\n  preToolUse:\n    - match: x\n".into(), None, Some("hooks.preToolUse[0]"), "found none"),
        ("B9 two handlers", "c.yaml", entry("      http: http://h/\n"), None, Some("hooks.preToolUse[0]"), "`command` and `http`"),
        ("B10 unknown entry key", "c.yaml", entry("      matcher: Bash\n"), Some(4), Some("hooks.preToolUse[0].matcher"), "did you mean `match`"),
        ("B11 entry key twice", "c.yaml", entry("      command: y\n"), Some(4), Some("hooks.preToolUse[0].command"), "`command` appears twice"),
        ("B12 command a number", "c.yaml", "hooks:\n  preToolUse:\n    - command: 12\n".into(), Some(3), Some("hooks.preToolUse[0].command"), "non-empty string"),
        ("B12 command blank", "c.yaml", "hooks:\n  preToolUse:\n    - command: \"  \"\n".into(), Some(3), Some("hooks.preToolUse[0].command"), "non-empty string"),
        ("B12 prompt a list", "c.yaml", "hooks:\n  preToolUse:\n    - prompt: [a]\n".into(), Some(3), Some("hooks.preToolUse[0].prompt"), "non-empty string"),
        ("B13 http not a URL", "c.yaml", "hooks:\n  preToolUse:\n    - http: ftp://x/\n".into(), Some(3), Some("hooks.preToolUse[0].http"), "not an http:// or https:// URL"),
        ("B13 http without host", "c.yaml", "hooks:\n  preToolUse:\n    - http: \"http://\"\n".into(), Some(3), Some("hooks.preToolUse[0].http"), "not an http:// or https:// URL"),
        ("B14 timeout 0", "c.yaml", entry("      timeout: 0\n"), Some(4), Some("hooks.preToolUse[0].timeout"), "positive integer"),
        ("B14 timeout -1", "c.yaml", entry("      timeout: -1\n"), Some(4), Some("hooks.preToolUse[0].timeout"), "found -1"),
        ("B14 timeout 1.5", "c.yaml", entry("      timeout: 1.5\n"), Some(4), Some("hooks.preToolUse[0].timeout"), "positive integer"),
        ("B14 timeout \"5\"", "c.yaml", entry("      timeout: \"5\"\n"), Some(4), Some("hooks.preToolUse[0].timeout"), "positive integer"),
        ("B14 timeout null", "c.yaml", entry("      timeout: null\n"), Some(4), Some("hooks.preToolUse[0].timeout"), "positive integer"),
        ("B16 match a number", "c.yaml", entry("      match: 3\n"), Some(4), Some("hooks.preToolUse[0].match"), "a string"),
        ("B17 match lookbehind", "c.yaml", entry("      match: /(?<=a)b/\n"), Some(4), Some("hooks.preToolUse[0].match"), "does not compile"),
        ("B17 match backreference", "c.yaml", entry("      match: /(a)\\1/\n"), Some(4), Some("hooks.preToolUse[0].match"), "does not compile"),
        ("B18 match unknown flag", "c.yaml", entry("      match: /a/x\n"), Some(4), Some("hooks.preToolUse[0].match"), "unknown regex flag `x`"),
        ("B19 jsonIO a string", "c.yaml", entry("      jsonIO: \"yes\"\n"), Some(4), Some("hooks.preToolUse[0].jsonIO"), "true or false"),
        ("B20 disableAllHooks yes", "c.yaml", "disableAllHooks: yes\n".into(), Some(1), Some("disableAllHooks"), "true or false"),
        ("B20 disableAllHooks 1", "c.yaml", "disableAllHooks: 1\n".into(), Some(1), Some("disableAllHooks"), "true or false"),
        ("B22 JSON file malformed", "c.json", "{\n  \"hooks\" null}".into(), Some(2), None, "expected `:`"),
        ("B22 JSON file trailing garbage", "c.json", "{\"hooks\": null} x".into(), Some(1), None, "trailing characters"),
        ("B22 JSON file empty", "c.json", "".into(), Some(1), None, "EOF"),
        ("B22 JSON file wrong type", "c.json", "{\"hooks\": {\"preToolUse\": [{\"command\": \"x\", \"timeout\": 0}]}}".into(), Some(1), Some("hooks.preToolUse[0].timeout"), "positive integer"),
        ("B23 YAML list nested 1000 deep (the limit)", "c.yaml", deep(1000), Some(2), Some("hooks.preToolUse[0]"), "a hook entry"),
        ("B23 YAML list nested 1001 deep", "c.yaml", deep(1001), Some(2), None, "nested more than 1000 levels deep"),
        ("B23 YAML map nested 10000 deep", "c.yaml", deep_map, Some(3), None, "nested more than 1000 levels deep"),
        ("B23 harness key nested 100000 deep", "c.yaml", deep_harness, Some(2), None, "nested more than 1000 levels deep"),
        ("B23 1001 `[` inside a quoted string", "c.yaml", format!("prompt: \"{}\"\n", "[".repeat(1001)), Some(1), None, "nested more than 1000 levels deep"),
        ("B24 several YAML documents", "c.yaml", "hooks: null\n---\nhooks: x\n".into(), None, None, "more than one document"),
    ];
    for (row, name, text, line, path, needle) in rows {
        let err = config_file_error(name, text.as_bytes());
        check_error(row, &err, "invalid_config", path, needle);
        if let Some(l) = line {
            assert_eq!(err["line"], l, "{row}: {err}");
        }
    }
}

/// A 200 KB config file of nested `[` is refused before the (quadratic) YAML parser sees it.
#[test]
fn b23_yaml_nested_100000_deep_is_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.yaml");
    std::fs::write(&path, format!("deep: {}{}\n", "[".repeat(100_000), "]".repeat(100_000))).unwrap();
    let start = std::time::Instant::now();
    let result = Engine::new(Some(&json!({ "trusted": true, "configPath": path }).to_string()));
    let took = start.elapsed();
    let err = result.err().expect("B23: refused");
    assert!(err.message.contains("nested more than 1000 levels deep"), "B23: {err}");
    assert!(took < std::time::Duration::from_secs(1), "B23: refusing took {took:?}");
}

/// The depth guard counts `[` and `]` everywhere, quoted strings included, so `]` characters
/// inside quoted strings cancel real nesting: 40 chunks of 900 `[` each followed by a quoted
/// string of 900 `]` reach a real depth of 36,000 (108 KB) while the guard never sees more than
/// 900. Expected: refused (or parsed) within a second, like the unhidden case above.
#[test]
fn b23_nesting_hidden_from_the_depth_guard_by_quoted_brackets() {
    let mut text = String::from("x: ");
    for _ in 0..40 {
        text.push_str(&"[".repeat(900));
        text.push('"');
        text.push_str(&"]".repeat(900));
        text.push_str("\",");
    }
    text.push('0');
    text.push_str(&"]".repeat(900 * 40));
    text.push_str("\nhooks: null\n");
    let start = std::time::Instant::now();
    let result = oh_hooks::config::parse_file(Path::new("/x/c.yaml"), text.as_bytes());
    let took = start.elapsed();
    eprintln!(
        "figure: YAML flow nesting 36,000 deep hidden by quoted `]` ({} bytes): ok={} in {took:?}",
        text.len(),
        result.is_ok()
    );
    assert!(took < std::time::Duration::from_secs(1), "B23: a {}-byte config took {took:?} to load", text.len());
    let err = result.expect_err("more than 10,000 `[` is refused");
    assert!(err.message.contains("more than 10000 times"), "{}", err.message);
}

#[test]
fn b21_config_file_not_utf8() {
    let err = config_file_error("c.yaml", b"hooks:\n  preToolUse:\n    - command: \xff\n");
    check_error("B21", &err, "invalid_config", None, "is not UTF-8 text");
}

#[test]
fn b_inline_config_errors_name_options_config() {
    let err = new_error(
        &json!({ "config": { "hooks": { "preToolUse": [ { "command": "x", "jsonIO": "yes" } ] } } }).to_string(),
    );
    check_error("B19 inline", &err, "invalid_config", Some("hooks.preToolUse[0].jsonIO"), "true or false");
    // No file to name: the error points into the option instead (the wording is the engine's).
    assert!(err["message"].as_str().unwrap().contains("config"), "{err}");
}

#[test]
fn b25_accepted_config_shapes() {
    let dir = tempfile::tempdir().unwrap();
    for (row, text, hooks) in [
        ("B25 empty file", "", 0),
        ("B25 only a document marker", "---\n", 0),
        ("B25 hooks: null", "hooks: null\n", 0),
        ("B25 hooks: ~", "hooks: ~\n", 0),
        ("B25 event: null", "hooks:\n  preToolUse: null\n", 0),
        ("B25 harness keys ignored", "model: x\nanything: [1, {a: b}]\nhooks:\n  preToolUse:\n    - command: x\n", 1),
        ("B25 jsonIO on a prompt hook ignored", "hooks:\n  preToolUse:\n    - prompt: p\n      jsonIO: true\n", 1),
        ("B25 harness key nested 900 deep", &format!("deep: {}{}\n", "[".repeat(900), "]".repeat(900)), 0),
        ("B25 YAML alias expansion under a harness key", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n", 0),
        ("B25 top-level key twice: the last counts", "hooks:\n  preToolUse:\n    - command: x\nhooks: null\n", 0),
        ("B15 timeout above 24 h", "hooks:\n  preToolUse:\n    - command: x\n      timeout: 18446744073709551615\n", 1),
    ] {
        let path = dir.path().join("c.yaml");
        std::fs::write(&path, text).unwrap();
        let e = Engine::new(Some(&json!({ "trusted": true, "configPath": path }).to_string()))
            .unwrap_or_else(|e| panic!("{row}: {e}"));
        let total: usize = e.describe().iter().map(|(_, h)| h.len()).sum();
        assert_eq!(total, hooks, "{row}");
        if row.starts_with("B15") {
            assert!(e.describe()[0].1[0].contains("[timeout 86400000 ms]"), "{row}: {:?}", e.describe());
        }
    }
}

#[test]
fn b26_command_with_nul_is_a_load_error() {
    let err = new_error(
        &json!({ "trusted": true, "config": { "hooks": { "preToolUse": [ { "command": "echo a\u{0}b" } ] } } })
            .to_string(),
    );
    check_error("B26", &err, "invalid_config", Some("hooks.preToolUse[0].command"), "NUL");
}

// ---------------------------------------------------------------- C. envelope

/// An engine whose preToolUse hooks never match a `toolName` of "nomatch" (the fast path) and
/// one where a prompt hook matches every event (the full parse, no process).
fn envelope_engines() -> [Engine; 2] {
    let all: serde_json::Map<String, Value> =
        oh_hooks::Event::ALL.iter().map(|e| (e.name().to_string(), json!([{ "prompt": "p" }]))).collect();
    [
        engine(json!({ "hooks": { "preToolUse": [ { "command": "exit 1", "match": "Bash" } ] } }), json!({})),
        engine(json!({ "hooks": all }), json!({ "waitNonBlocking": true })),
    ]
}

#[test]
fn c_envelope_table() {
    let deep = |d: usize| format!("{{\"event\":\"preToolUse\",\"x\":{}{}}}", "[".repeat(d), "]".repeat(d));
    let deep_objects =
        format!("{{\"event\":\"preToolUse\",\"x\":{}1{}}}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    #[rustfmt::skip]
    let rows: Vec<(&str, String, &str, &str)> = vec![
        ("C1 not JSON", "{not json".into(), "invalid_envelope", "not valid JSON"),
        ("C2 empty", "".into(), "invalid_envelope", "not valid JSON"),
        ("C2 blank", "  \n".into(), "invalid_envelope", "not valid JSON"),
        ("C3 array", "[1]".into(), "invalid_envelope", "expected a JSON object"),
        ("C3 string", "\"preToolUse\"".into(), "invalid_envelope", "expected a JSON object"),
        ("C3 number", "1".into(), "invalid_envelope", "expected a JSON object"),
        ("C3 null", "null".into(), "invalid_envelope", "expected a JSON object"),
        ("C4 no event", "{\"toolName\":\"Bash\"}".into(), "invalid_envelope", "has no `event`"),
        ("C5 event a number", "{\"event\":5}".into(), "invalid_envelope", "must be a string"),
        ("C5 event null", "{\"event\":null}".into(), "invalid_envelope", "must be a string"),
        ("C5 event an object", "{\"event\":{}}".into(), "invalid_envelope", "must be a string"),
        ("C6 unknown event", "{\"event\":\"PreToolUse\"}".into(), "unknown_event", "did you mean `preToolUse`"),
        ("C6 empty event", "{\"event\":\"\"}".into(), "unknown_event", "unknown event"),
        ("C7 trailing garbage", "{\"event\":\"preToolUse\"} x".into(), "invalid_envelope", "trailing characters"),
        ("C7 two objects", "{\"event\":\"preToolUse\"}{}".into(), "invalid_envelope", "trailing characters"),
        ("C8 trailing comma", "{\"event\":\"preToolUse\",}".into(), "invalid_envelope", "trailing comma"),
        ("C9 UTF-8 BOM", "\u{feff}{\"event\":\"preToolUse\"}".into(), "invalid_envelope", "not valid JSON"),
        ("C11 later event key counts", "{\"event\":\"preToolUse\",\"event\":\"nope\"}".into(), "unknown_event", "`nope`"),
        ("C12 arrays nested 100000 deep", deep(100_000), "invalid_envelope", "recursion limit"),
        ("C12 objects nested 100000 deep", deep_objects, "invalid_envelope", "recursion limit"),
        ("C12 nested 200 deep", deep(200), "invalid_envelope", "recursion limit"),
    ];
    for (i, e) in envelope_engines().iter().enumerate() {
        for (row, text, code, needle) in &rows {
            let o = fire_raw(e, text);
            assert_eq!(o["allowed"], false, "{row} (engine {i}): {o}");
            assert_eq!(o["hooks"], json!([]), "{row} (engine {i}): {o}");
            assert_eq!(o["error"]["code"], *code, "{row} (engine {i}): {o}");
            let message = o["error"]["message"].as_str().unwrap();
            assert!(message.contains(needle), "{row} (engine {i}): message lacks {needle:?}: {message}");
        }
        // Just under the limit, and a repeated event key whose last value is valid, are fine.
        for text in [deep(100), "{\"event\":\"nope\",\"event\":\"preToolUse\",\"toolName\":\"nomatch\"}".to_string()] {
            let o = fire_raw(e, &text);
            assert!(o.get("error").is_none(), "engine {i}: {o}");
        }
    }
}

fn ffi_fire(h: *const ffi::OhHooks, envelope: *const std::ffi::c_char) -> Value {
    // SAFETY: `h` is NULL or a live engine; `envelope` is NULL or NUL-terminated.
    unsafe {
        let out = ffi::oh_hooks_fire(h, envelope);
        let text = CStr::from_ptr(out).to_str().unwrap().to_string();
        ffi::oh_hooks_string_free(out);
        serde_json::from_str(&text).unwrap()
    }
}

#[test]
fn c13_c14_not_utf8_and_null_through_the_ffi() {
    // SAFETY: defaults; freed below.
    let h = unsafe { ffi::oh_hooks_new(std::ptr::null(), std::ptr::null_mut()) };
    assert!(!h.is_null());
    let o = ffi_fire(h, c"{\"event\":\"preToolUse\",\"toolName\":\"\xc3\x28\"}".as_ptr());
    assert_eq!(o["error"]["code"], "invalid_utf8", "C13: {o}");
    assert_eq!(o["allowed"], false);
    let o = ffi_fire(h, std::ptr::null());
    assert_eq!(o["error"]["code"], "null_argument", "C14 NULL envelope: {o}");
    let o = ffi_fire(std::ptr::null(), c"{\"event\":\"preToolUse\"}".as_ptr());
    assert_eq!(o["error"]["code"], "null_argument", "C14 NULL engine: {o}");
    // SAFETY: the engine from oh_hooks_new, freed once.
    unsafe { ffi::oh_hooks_free(h) };
}

#[test]
fn c15_ten_mib_envelope_reaches_a_jsonio_hook_whole() {
    let hook = json!({ "command": "n=$(wc -c | tr -d ' '); printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}' \"$n\"", "jsonIO": true });
    let blob = "x".repeat(10 << 20);
    let envelope = json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "content": blob } });
    let expected =
        format!("{{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolInput\":{{\"content\":\"{blob}\"}}}}").len();
    let e = one_hook(hook.clone(), json!({}));
    let through_rust = fire(&e, envelope.clone());
    // Through the FFI too: the C string path has no limit either.
    let options =
        CString::new(json!({ "trusted": true, "config": { "hooks": { "preToolUse": [hook] } } }).to_string()).unwrap();
    let text = CString::new(envelope.to_string()).unwrap();
    // SAFETY: valid strings; the engine is freed once.
    let h = unsafe { ffi::oh_hooks_new(options.as_ptr(), std::ptr::null_mut()) };
    assert!(!h.is_null());
    let through_ffi = ffi_fire(h, text.as_ptr());
    // SAFETY: freed once, no fire in progress.
    unsafe { ffi::oh_hooks_free(h) };
    for o in [through_rust, through_ffi] {
        let short: String = o.to_string().chars().take(300).collect();
        assert_eq!(o["allowed"], true, "C15: {short}");
        assert_eq!(o["additionalContext"], expected.to_string(), "C15: the hook did not get all {expected} bytes");
    }
}

#[test]
fn c16_variable_too_large_for_the_os_fails_like_a_spawn_failure() {
    let e = engine(
        json!({ "hooks": {
            "preToolUse": [ { "command": "exit 0" } ],
            "permissionRequest": [ { "command": "exit 0" } ],
            "userPromptSubmit": [ { "command": "exit 0", "jsonIO": true } ] } }),
        json!({}),
    );
    let big = "y".repeat(10 << 20);
    let o = fire(&e, json!({ "event": "preToolUse", "toolArgs": big }));
    assert_eq!(o["allowed"], false, "C16: {o}");
    assert_eq!(o["reason"], "hook denied (exit code)", "C16: {o}");
    assert!(trace(&o).get("exitCode").is_none(), "C16: {o}");
    assert!(trace(&o)["error"].as_str().unwrap().contains("cannot start"), "C16: {o}");
    let o = fire(&e, json!({ "event": "permissionRequest", "toolArgs": big }));
    assert_eq!((&o["allowed"], &o["permissionDecision"]), (&json!(false), &json!("deny")), "C16: {o}");
    // OH_PROMPT is the one variable that is cut (8192 bytes), so a huge prompt still runs.
    let o = fire(&e, json!({ "event": "userPromptSubmit", "prompt": big }));
    assert_eq!(o["allowed"], true, "C16 prompt: {o}");
    assert_eq!(trace(&o)["exitCode"], 0, "C16 prompt: {o}");
}

#[test]
fn c17_tool_name_of_other_types() {
    let e = one_hook(
        json!({ "command": "echo \"{\\\"hookSpecificOutput\\\":{\\\"additionalContext\\\":\\\"[${OH_TOOL_NAME-unset}]\\\"}}\"", "match": "7", "jsonIO": true }),
        json!({}),
    );
    // A number is matched and exported as its JSON text; null, arrays and objects are absent
    // (and so match every hook, with OH_TOOL_NAME unset).
    for (tool, context) in [
        (json!(7), "[7]"),
        (json!(17.5), "[17.5]"),
        (json!(null), "[unset]"),
        (json!({}), "[unset]"),
        (json!([7]), "[unset]"),
    ] {
        let o = fire(&e, json!({ "event": "preToolUse", "toolName": tool }));
        assert_eq!(o["additionalContext"], context, "C17 {tool}: {o}");
    }
    assert_eq!(
        fire(&e, json!({ "event": "preToolUse", "toolName": 8 }))["hooks"],
        json!([]),
        "C17: 8 does not contain 7"
    );
}

#[test]
fn c18_nul_in_a_variable_fails_the_hook() {
    let e = engine(
        json!({ "hooks": {
            "preToolUse": [ { "command": "exit 0", "match": "env" }, { "command": "exit 0", "match": "json", "jsonIO": true } ],
            "permissionRequest": [ { "command": "exit 0" } ],
            "userPromptSubmit": [ { "command": "exit 0" } ] } }),
        json!({}),
    );
    for (envelope, reason, permission, var) in [
        (json!({ "event": "preToolUse", "toolName": "env\u{0}x" }), "hook denied (exit code)", None, "OH_TOOL_NAME"),
        (
            json!({ "event": "preToolUse", "toolName": "json", "toolArgs": "a\u{0}b" }),
            "hook failed (timeout or non-zero exit)",
            None,
            "OH_TOOL_ARGS",
        ),
        (
            json!({ "event": "permissionRequest", "sessionId": "\u{0}" }),
            "hook denied (exit code)",
            Some("deny"),
            "OH_SESSION_ID",
        ),
        (json!({ "event": "userPromptSubmit", "prompt": "p\u{0}" }), "hook denied (exit code)", None, "OH_PROMPT"),
        (
            json!({ "event": "userPromptSubmit", "effort": { "level": "\u{0}" } }),
            "hook denied (exit code)",
            None,
            "OH_EFFORT",
        ),
    ] {
        let o = fire(&e, envelope.clone());
        assert_eq!(o["allowed"], false, "C18 {envelope}: {o}");
        assert_eq!(o["reason"], reason, "C18 {envelope}: {o}");
        assert_eq!(o.get("permissionDecision").and_then(Value::as_str), permission, "C18 {envelope}: {o}");
        let t = trace(&o);
        assert!(
            t["error"].as_str().unwrap().contains(var) && t["error"].as_str().unwrap().contains("NUL"),
            "C18 {envelope}: {o}"
        );
        assert!(t.get("exitCode").is_none(), "C18: the hook must not have run: {o}");
    }
}

#[test]
fn c19_nul_in_a_plain_field_reaches_jsonio_escaped() {
    let e = one_hook(
        json!({ "command": "grep -q 'a\\\\u0000b' && echo '{\"decision\":\"deny\",\"reason\":\"saw it\"}'", "jsonIO": true }),
        json!({}),
    );
    let o = fire(&e, json!({ "event": "preToolUse", "note": "a\u{0}b" }));
    assert_eq!(o["reason"], "saw it", "C19: {o}");
}

// ---------------------------------------------------------------- D. hook responses

/// A jsonIO hook that prints exactly `bytes` (from a file) and exits 0.
fn respond(bytes: &[u8], extra: Value) -> (Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("response");
    std::fs::write(&path, bytes).unwrap();
    let e = one_hook(json!({ "command": format!("cat {}", q(&path)), "jsonIO": true }), extra);
    (fire(&e, json!({ "event": "preToolUse", "toolName": "Bash" })), dir)
}

#[test]
fn d_response_table() {
    let deep = "[".repeat(100_000);
    #[rustfmt::skip]
    let malformed: Vec<(&str, Vec<u8>, &str)> = vec![
        ("D1 not JSON", b"{nope".to_vec(), "not valid JSON"),
        ("D2 array", b"[1]".to_vec(), "not an object"),
        ("D2 string", b"\"deny\"".to_vec(), "not an object"),
        ("D2 number", b"42".to_vec(), "not an object"),
        ("D2 null", b"null".to_vec(), "not an object"),
        ("D2 true", b"true".to_vec(), "not an object"),
        ("D5 `[` × 100000, never closed", deep.into_bytes(), "not valid JSON"),
        ("D6 invalid UTF-8 bytes", b"\xff\xfe".to_vec(), "not valid JSON"),
        ("D9 two documents", b"{\"decision\":\"deny\"}{}".to_vec(), "not valid JSON"),
        ("D9 trailing garbage", b"{\"decision\":\"deny\"} x".to_vec(), "not valid JSON"),
    ];
    for (row, bytes, needle) in &malformed {
        let (o, _d) = respond(bytes, json!({}));
        let t = trace(&o);
        assert_eq!(o["allowed"], true, "{row}: {o}");
        assert!(o.get("reason").is_none(), "{row}: {o}");
        assert_eq!(t["result"], "none", "{row}: {o}");
        assert!(t["error"].as_str().unwrap_or("").contains(needle), "{row}: trace error lacks {needle:?}: {o}");
        let (o, _d) = respond(bytes, json!({ "strict": true }));
        assert_eq!(o["allowed"], false, "{row} strict: {o}");
        assert_eq!(o["reason"], "malformed hook response", "{row} strict: {o}");
    }

    #[rustfmt::skip]
    let parsed: Vec<(&str, &str, Value)> = vec![
        ("D3 decision a boolean", r#"{"decision":true}"#, json!({ "allowed": true, "result": "none" })),
        ("D3 decision upper case", r#"{"decision":"DENY"}"#, json!({ "allowed": true, "result": "none" })),
        ("D3 top-level ask", r#"{"decision":"ask"}"#, json!({ "allowed": true, "result": "none" })),
        // 1.2: a deny with no usable reason is named after its hook (docs/config.md "Merging").
        ("D3 reason a number", r#"{"decision":"deny","reason":5}"#, json!({ "allowed": false, "result": "deny", "reason": "@named" })),
        ("D3 hookSpecificOutput a string", r#"{"hookSpecificOutput":"deny"}"#, json!({ "allowed": true, "result": "none" })),
        ("D3 permission a number", r#"{"hookSpecificOutput":{"decision":1}}"#, json!({ "allowed": true, "result": "none" })),
        ("D3 context a number", r#"{"hookSpecificOutput":{"additionalContext":5}}"#, json!({ "allowed": true, "result": "none" })),
        ("D3 unknown fields", r#"{"continue":false,"x":[1,{"y":null}]}"#, json!({ "allowed": true, "result": "none" })),
        ("D10 blank", " \n\t\n", json!({ "allowed": true, "result": "none" })),
        ("D10 empty", "", json!({ "allowed": true, "result": "none" })),
        ("D11 NUL inside a string", "{\"decision\":\"deny\",\"reason\":\"a\\u0000b\"}", json!({ "allowed": false, "result": "deny", "reason": "a\u{0}b" })),
    ];
    // Contract 1.2 (docs/envelope.md "Reading answers"): these were malformed in 1.1 and lost
    // the deny; invalid UTF-8 is now read as U+FFFD and a byte-order mark is skipped.
    let parsed_bytes: Vec<(&str, &[u8], Value)> = vec![
        (
            "D6 invalid UTF-8 in a string",
            b"{\"decision\":\"deny\",\"reason\":\"\xff\"}",
            json!({ "allowed": false, "result": "deny", "reason": "\u{FFFD}" }),
        ),
        (
            "D8 UTF-8 BOM",
            b"\xef\xbb\xbf{\"decision\":\"deny\"}",
            json!({ "allowed": false, "result": "deny", "reason": "@named" }),
        ),
    ];
    let parsed: Vec<(&str, &[u8], Value)> =
        parsed.iter().map(|(r, b, w)| (*r, b.as_bytes(), w.clone())).chain(parsed_bytes).collect();
    for (row, body, want) in &parsed {
        let (o, _d) = respond(body, json!({ "strict": true }));
        let t = trace(&o);
        assert_eq!(o["allowed"], want["allowed"], "{row}: {o}");
        assert_eq!(t["result"], want["result"], "{row}: {o}");
        assert!(t.get("error").is_none(), "{row}: well-formed responses have no trace error: {o}");
        if want.get("reason").is_some_and(|r| r == "@named") {
            let r = o["reason"].as_str().unwrap_or_default();
            assert!(r.starts_with("denied by command hook `cat "), "{row}: {o}");
        } else if let Some(r) = want.get("reason") {
            assert_eq!(o["reason"], *r, "{row}: {o}");
        } else {
            assert!(o.get("reason").is_none(), "{row}: {o}");
        }
    }
}

#[test]
fn d4_response_size_cap_is_exact() {
    let body = br#"{"decision":"deny","reason":"at the cap"}"#;
    let cap = body.len();
    let (o, _d) = respond(body, json!({ "maxOutputBytes": cap }));
    assert_eq!(o["reason"], "at the cap", "D4: exactly maxOutputBytes is accepted: {o}");
    let mut longer = body.to_vec();
    longer.push(b'\n');
    let (o, _d) = respond(&longer, json!({ "maxOutputBytes": cap }));
    assert_eq!(o["allowed"], false, "D4: {o}");
    assert_eq!(o["reason"], "hook output exceeded maxOutputBytes", "D4: one byte over: {o}");
    assert!(trace(&o)["error"].as_str().unwrap().contains("maxOutputBytes"), "D4: {o}");
    let e = one_hook(json!({ "command": "head -c 50000000 /dev/zero", "jsonIO": true }), json!({}));
    let o = fire(&e, json!({ "event": "preToolUse" }));
    assert_eq!(o["reason"], "hook output exceeded maxOutputBytes", "D4 50 MB: {o}");
}

#[test]
fn d7_stderr_invalid_utf8_and_cut_on_a_character_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad");
    std::fs::write(&bad, b"before \xff\xfe after").unwrap();
    let cut = dir.path().join("cut");
    let mut bytes = vec![b'a'; 4095];
    bytes.extend_from_slice("é and more".as_bytes()); // é straddles the 4096-byte cut
    std::fs::write(&cut, &bytes).unwrap();
    for json_io in [false, true] {
        let e = engine(
            json!({ "hooks": { "preToolUse": [
                { "command": format!("cat {} >&2", q(&bad)), "match": "bad", "jsonIO": json_io },
                { "command": format!("cat {} >&2", q(&cut)), "match": "cut", "jsonIO": json_io } ] } }),
            json!({}),
        );
        let o = fire(&e, json!({ "event": "preToolUse", "toolName": "bad" }));
        assert_eq!(o["allowed"], true, "D7: {o}");
        assert_eq!(trace(&o)["stderr"], "before \u{fffd}\u{fffd} after", "D7 invalid UTF-8 replaced: {o}");
        let o = fire(&e, json!({ "event": "preToolUse", "toolName": "cut" }));
        assert_eq!(trace(&o)["stderr"], "a".repeat(4095), "D7: the half character at the cut is dropped");
    }
}

// ---------------------------------------------------------------- E. environment

#[test]
fn e1_hook_path_that_does_not_exist() {
    for (json_io, reason) in [(false, "hook denied (exit code)"), (true, "hook failed (timeout or non-zero exit)")] {
        let e = one_hook(json!({ "command": "/definitely/not/here/hook.sh", "jsonIO": json_io }), json!({}));
        let o = fire(&e, json!({ "event": "preToolUse" }));
        let t = trace(&o);
        assert_eq!(o["allowed"], false, "E1: {o}");
        assert_eq!(o["reason"], reason, "E1: {o}");
        assert_eq!(t["exitCode"], 127, "E1: the shell reports command not found: {o}");
        assert!(t["stderr"].as_str().unwrap().contains("not found"), "E1: {o}");
    }
}

#[test]
fn e2_hook_file_not_executable() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("hook.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    let e = one_hook(json!({ "command": script }), json!({}));
    let o = fire(&e, json!({ "event": "preToolUse" }));
    assert_eq!(o["reason"], "hook denied (exit code)", "E2: {o}");
    assert_eq!(trace(&o)["exitCode"], 126, "E2: {o}");
}

#[test]
fn e3_cwd_deleted_after_creation() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("project");
    std::fs::create_dir(&cwd).unwrap();
    let e = engine(
        json!({ "hooks": { "preToolUse": [ { "command": "exit 0" }, { "command": "exit 0", "jsonIO": true }, { "prompt": "p" } ],
                           "permissionRequest": [ { "command": "exit 0" } ] } }),
        json!({ "cwd": cwd }),
    );
    assert_eq!(fire(&e, json!({ "event": "permissionRequest" }))["permissionDecision"], "ask");
    std::fs::remove_dir(&cwd).unwrap();
    let o = fire(&e, json!({ "event": "preToolUse" }));
    assert_eq!(o["allowed"], false, "E3: {o}");
    assert_eq!(o["reason"], "hook denied (exit code)", "E3: {o}");
    let t = &o["hooks"][0];
    assert!(t.get("exitCode").is_none(), "E3: {o}");
    let error = t["error"].as_str().unwrap();
    assert!(error.contains("cannot start") && error.contains(&cwd.display().to_string()), "E3: {o}");
    assert!(error.contains("No such file or directory"), "E3: {o}");
    let o = fire(&e, json!({ "event": "permissionRequest" }));
    assert_eq!((&o["allowed"], &o["permissionDecision"]), (&json!(false), &json!("deny")), "E3: {o}");
}

/// Opens the FIFO for writing and closes it, so a reader blocked on it gets EOF.
fn release_fifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    for _ in 0..500 {
        // SAFETY: open/close of a path we created.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_WRONLY | libc::O_NONBLOCK) };
        if fd >= 0 {
            // SAFETY: the fd just opened.
            unsafe { libc::close(fd) };
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: creating a FIFO at a path in our temporary directory.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A layer file that is a FIFO (or any file that never ends) must not hang the host: neither
/// `oh_hooks_new` nor the fire that notices a config file was replaced by one. Result:
/// `io_error` naming the file ("not a regular file"); on reload, the old config stays with a
/// warning. The FIFO is released after the deadline so that no thread stays blocked.
#[test]
fn e4_config_layer_that_is_a_fifo_does_not_hang() {
    use std::sync::mpsc;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let oh = dir.path().join(".oh");
    std::fs::create_dir(&oh).unwrap();
    let layer = oh.join("config.yaml");
    mkfifo(&layer);
    let options = json!({ "trusted": true, "cwd": dir.path(), "layers": ["project"] }).to_string();
    let (tx, rx) = mpsc::channel();
    let o = options.clone();
    std::thread::spawn(move || {
        let _ = tx.send(Engine::new(Some(&o)).map(|_| ()).map_err(|e| e.to_json()));
    });
    let at_new = rx.recv_timeout(Duration::from_secs(2));
    if at_new.is_err() {
        release_fifo(&layer);
        let _ = rx.recv_timeout(Duration::from_secs(5));
    }

    // The reload path: a regular file at creation, replaced by a FIFO later.
    std::fs::remove_file(&layer).unwrap();
    std::fs::write(&layer, "hooks:\n  preToolUse:\n    - prompt: p\n").unwrap();
    let e = std::sync::Arc::new(Engine::new(Some(&options)).unwrap());
    std::fs::remove_file(&layer).unwrap();
    mkfifo(&layer);
    std::thread::sleep(Duration::from_millis(300)); // past the 250 ms check interval
    let (tx, rx) = mpsc::channel();
    let e2 = e.clone();
    std::thread::spawn(move || {
        // The first check sees the change, the next one (once it has settled) reads it.
        fire(&e2, json!({ "event": "preToolUse" }));
        std::thread::sleep(Duration::from_millis(300));
        let _ = tx.send(fire(&e2, json!({ "event": "preToolUse" })));
    });
    let at_fire = rx.recv_timeout(Duration::from_secs(3));
    if at_fire.is_err() {
        release_fifo(&layer);
        let _ = rx.recv_timeout(Duration::from_secs(5));
    }
    assert!(
        at_new.is_ok() && at_fire.is_ok(),
        "E4: blocked for 2 s on a FIFO layer file: oh_hooks_new {}, the fire that reloads {}",
        if at_new.is_ok() { "returned" } else { "blocked" },
        if at_fire.is_ok() { "returned" } else { "blocked" }
    );
    let err: Value = serde_json::from_str(&at_new.unwrap().expect_err("E4: a FIFO layer is an error")).unwrap();
    check_error("E4 new", &err, "io_error", None, "not a regular file");
    assert_eq!(err["file"], layer.display().to_string(), "E4: {err}");
    let o = at_fire.unwrap();
    assert_eq!(o["reason"], "prompt hook has no evaluator", "E4: the old config stays in force: {o}");
    assert!(o["warnings"][0].as_str().unwrap_or("").contains("not a regular file"), "E4: {o}");
}

/// A layer file that is a symlink to /dev/zero would be read without end: refused.
#[test]
fn e5_config_layer_symlinked_to_dev_zero() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".oh")).unwrap();
    let layer = dir.path().join(".oh/config.local.yaml");
    std::os::unix::fs::symlink("/dev/zero", &layer).unwrap();
    let err = new_error(&json!({ "trusted": true, "cwd": dir.path(), "layers": ["local"] }).to_string());
    check_error("E5", &err, "io_error", None, "not a regular file");
    assert_eq!(err["file"], layer.display().to_string(), "E5: {err}");
}

#[test]
fn e_prompt_and_no_event_hooks_unaffected_by_spawn_problems() {
    // Sanity for the rows above: a prompt hook in a deleted cwd still gives its own answer.
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("p");
    std::fs::create_dir(&cwd).unwrap();
    let e = one_hook(json!({ "prompt": "p" }), json!({ "cwd": cwd }));
    std::fs::remove_dir(&cwd).unwrap();
    let o = fire(&e, json!({ "event": "preToolUse" }));
    assert_eq!(o["reason"], "prompt hook has no evaluator", "{o}");
    assert!(Path::new(&dir.path()).exists());
}

#[test]
fn c10_lone_surrogate_passes_through() {
    // Grammar-valid JSON without a UTF-8 form: no error, the text reaches jsonIO hooks unchanged,
    // and the context field sets its variable with U+FFFD in place of the surrogate (contract
    // 1.2; 1.1 left it unset, so an env-mode guard allowed `rm -rf / #\ud800`).
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("stdin");
    let e = one_hook(
        json!({ "command": format!("cat > {}; printf '%s' \"${{OH_TOOL_ARGS-unset}}\" >&2", out.display()), "jsonIO": true }),
        json!({}),
    );
    let o = fire_raw(&e, "{\"event\":\"preToolUse\",\"toolArgs\":\"\\ud800\"}");
    assert_eq!(o["allowed"], true, "{o}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"event\":\"preToolUse\",\"toolArgs\":\"\\ud800\"}");
    assert_eq!(trace(&o)["stderr"], "\u{FFFD}", "{o}");
}
