//! The independent reference the differential fuzz targets (`fuzz/fuzz_targets/answer_*.rs`)
//! and their replay in `cargo test` (`tests/it/answer_differential.rs`) compare the engine's one
//! answer reader with. It reads an answer as Python's `json.loads` and Node's `JSON.parse` do
//! (a lone surrogate escape read, last value of a repeated key), by a route that shares no code
//! with the engine's reader: its own small escape pass turns every lone surrogate escape into
//! `\uFFFD`, then serde_json builds the whole value. When the reference reads a deny, the
//! engine must deny; the engine may deny more (a deny among repeated values wins).

use oh_hooks::dialect::claude::answer as claude;
use oh_hooks::dialect::openharness::answer as openharness;
use oh_hooks::dialect::Raw;
use oh_hooks::event::Event;
use serde_json::Value;

/// The answer's text as the reference reads it: invalid UTF-8 as U+FFFD, a leading BOM
/// skipped, every lone surrogate escape written `\uFFFD`. `None` when serde_json rejects it.
pub fn reference_value(bytes: &[u8]) -> Option<Value> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    let fixed = lone_surrogates_replaced(&text);
    serde_json::from_str(&fixed).ok()
}

fn hex(s: &[char]) -> Option<u32> {
    if s.len() < 4 {
        return None;
    }
    let t: String = s[..4].iter().collect();
    u32::from_str_radix(&t, 16).ok().filter(|_| t.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Inside strings, a `\uD800`–`\uDFFF` escape that is not half of a pair becomes `\uFFFD`.
fn lone_surrogates_replaced(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut in_string) = (0, false);
    while i < c.len() {
        if !in_string {
            in_string = c[i] == '"';
            out.push(c[i]);
            i += 1;
            continue;
        }
        match c[i] {
            '"' => {
                in_string = false;
                out.push('"');
                i += 1;
            }
            '\\' if c.get(i + 1) == Some(&'u') => {
                let u = hex(&c[i + 2..]);
                let high = u.is_some_and(|u| (0xD800..0xDC00).contains(&u));
                let low_next = c.get(i + 6) == Some(&'\\')
                    && c.get(i + 7) == Some(&'u')
                    && hex(&c[(i + 8).min(c.len())..]).is_some_and(|l| (0xDC00..0xE000).contains(&l));
                match u {
                    Some(_) if high && low_next => {
                        out.extend(&c[i..i + 12]);
                        i += 12;
                    }
                    Some(u) if (0xD800..0xE000).contains(&u) => {
                        out.push_str("\\uFFFD");
                        i += 6;
                    }
                    _ => {
                        out.push('\\');
                        out.push('u');
                        i += 2;
                    }
                }
            }
            '\\' => {
                out.push('\\');
                if let Some(n) = c.get(i + 1) {
                    out.push(*n);
                }
                i += 2;
            }
            other => {
                out.push(other);
                i += 1;
            }
        }
    }
    out
}

/// openHarness (jsonIO, HTTP, callbacks, persistent workers): the reference reads a deny when
/// the answer is an object whose `decision` or `hookSpecificOutput.decision` is `deny`.
pub fn check_openharness(bytes: &[u8]) -> Result<(), String> {
    let Some(Value::Object(v)) = reference_value(bytes) else { return Ok(()) };
    let deny = v.get("decision").and_then(Value::as_str) == Some("deny")
        || v.get("hookSpecificOutput").and_then(|h| h.get("decision")).and_then(Value::as_str) == Some("deny");
    if !deny {
        return Ok(());
    }
    match openharness::parse(bytes) {
        openharness::Response::Parsed { answer, .. } if openharness::is_deny(&answer) => Ok(()),
        other => Err(format!("the reference reads a deny, the engine {other:?}")),
    }
}

/// Claude Code's schema as the reference checks it (the keys a PreToolUse answer may carry).
fn claude_valid(v: &serde_json::Map<String, Value>) -> bool {
    let is = |key: &str, ok: &dyn Fn(&Value) -> bool| v.get(key).map_or(true, |x| x.is_null() || ok(x));
    let hso_ok = |h: &Value| {
        let Some(h) = h.as_object() else { return false };
        let opt = |key: &str, ok: &dyn Fn(&Value) -> bool| h.get(key).map_or(true, ok);
        h.get("hookEventName").and_then(Value::as_str) == Some("PreToolUse")
            && opt("permissionDecision", &|x| matches!(x.as_str(), Some("allow" | "deny" | "ask" | "defer")))
            && opt("additionalContext", &|x| x.is_string() || x.is_null())
            && opt("updatedInput", &|x| x.is_object() || x.is_null())
    };
    is("continue", &Value::is_boolean)
        && is("suppressOutput", &Value::is_boolean)
        && is("stopReason", &Value::is_string)
        && is("systemMessage", &Value::is_string)
        && is("reason", &Value::is_string)
        && is("decision", &|d| matches!(d.as_str(), Some("block" | "approve")))
        && is("hookSpecificOutput", &hso_ok)
}

/// Claude Code (PreToolUse stdout on exit 0): the reference reads a deny when stdout, trimmed,
/// is a `{…}` object that passes the schema and says `decision: "block"` or
/// `permissionDecision: "deny"`; the engine must then block.
pub fn check_claude(bytes: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)).into_owned();
    let t = text.trim();
    if !(t.starts_with('{') && t.ends_with('}')) {
        return Ok(());
    }
    let Some(Value::Object(v)) = reference_value(t.as_bytes()) else { return Ok(()) };
    let hso_deny =
        v.get("hookSpecificOutput").and_then(|h| h.get("permissionDecision")).and_then(Value::as_str) == Some("deny");
    let deny = claude_valid(&v) && (v.get("decision").and_then(Value::as_str) == Some("block") || hso_deny);
    if !deny {
        return Ok(());
    }
    let ran = Raw { exit: Some(0), stdout: bytes, name: "fuzz", ..Raw::default() };
    let answer = claude::read(Event::PreToolUse, &ran);
    if answer.block {
        Ok(())
    } else {
        Err(format!("the reference reads a deny, the engine {answer:?}"))
    }
}
