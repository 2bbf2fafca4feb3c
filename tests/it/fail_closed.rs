//! Fail-closed response reading through the engine (CONTRACT §3.4, version 1.1): a valid JSON
//! deny from a real jsonIO hook is a deny, whatever depth, numbers or repeated keys it has.

use crate::common::{fire, one_hook, trace};
use serde_json::json;

fn outcome_of(printed: &str) -> serde_json::Value {
    let script = std::env::temp_dir().join(format!("oh-fail-closed-{}-{}", std::process::id(), printed.len()));
    std::fs::write(&script, printed).unwrap();
    let e = one_hook(json!({ "command": format!("cat {}", script.display()), "jsonIO": true }), json!({}));
    let out = fire(&e, json!({ "event": "preToolUse", "toolName": "Bash" }));
    std::fs::remove_file(&script).unwrap();
    out
}

#[test]
fn valid_json_denies_are_denies() {
    let nested =
        format!(r#"{{"decision":"deny","reason":"no","toolInput":{}1{}}}"#, "{\"a\":".repeat(126), "}".repeat(126));
    for printed in [
        r#"{"decision":"deny","reason":"no","score":1e999}"#.to_string(),
        nested,
        r#"{"decision":"deny","reason":"no","score":NaN,"max":Infinity,"min":-Infinity}"#.to_string(),
        r#"{"decision":"deny","reason":"no","decision":"allow"}"#.to_string(),
    ] {
        let out = outcome_of(&printed);
        assert_eq!(out["allowed"], false, "{printed:.80}: {out}");
        assert_eq!(out["reason"], "no", "{out}");
        assert!(trace(&out).get("error").is_none(), "{out}");
    }
}

#[test]
fn python_json_dumps_defaults() {
    let e = one_hook(
        json!({ "command": "python3 -c 'import json; print(json.dumps({\"decision\": \"deny\", \"reason\": \"py\", \"x\": float(\"nan\"), \"y\": float(\"inf\")}))'", "jsonIO": true }),
        json!({}),
    );
    let out = fire(&e, json!({ "event": "preToolUse", "toolName": "Bash" }));
    assert_eq!(out["allowed"], false, "{out}");
    assert_eq!(out["reason"], "py");
}
