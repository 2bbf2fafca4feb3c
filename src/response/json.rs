//! The tolerant JSON reader every response goes through (CONTRACT §3.4, version 1.1): jsonIO
//! stdout, HTTP bodies, and the readers added later (callbacks, persistent workers, Claude Code).
//!
//! A hook's answer is untrusted input that decides whether a tool runs, so a *valid* deny must
//! never be read as "no decision". Three things made serde_json's `Value` the wrong tool:
//! - depth: `Value` stops at 128 levels, and a hook that echoes the tool input back controls it;
//! - numbers: `1e999` is "number out of range" for `Value`, though it is valid JSON;
//! - duplicate keys: `Value` keeps the last, so `"decision":"deny","decision":"allow"` allowed.
//!
//! So the top-level object is walked by a visitor that reads only the keys the contract names,
//! and every other value is captured as a borrowed `RawValue` without being built: serde_json
//! skips it with its iterative scanner (no recursion, hence no depth limit, and numbers are only
//! scanned, never converted). `NaN`, `Infinity` and `-Infinity` are not JSON but Python's
//! `json.dumps` writes them by default; no JSON crate we use accepts them without also accepting
//! comments, quotes and more that is not JSON at all (json5), so a small pre-pass rewrites those
//! three tokens, outside strings only, to `null` — and only when the strict parse failed.

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// What the reader takes from a response object. Strings are `None` when absent, not a string,
/// or empty. A `deny` seen in any value of a repeated key sticks (the `*_deny` flags).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Fields {
    pub decision: Option<String>,
    pub decision_deny: bool,
    pub reason: Option<String>,
    /// The last `hookSpecificOutput` object.
    pub specific: Option<Specific>,
    /// Some `hookSpecificOutput.decision` was `deny`, in any of the repeated objects or keys.
    pub specific_deny: bool,
    /// `"allowed": false` appeared (as any of the values of a repeated `allowed`).
    pub allowed_false: bool,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Specific {
    pub decision: Option<String>,
    pub reason: Option<String>,
    pub additional_context: Option<String>,
    pub deny: bool,
    /// `updatedInput` when it is an object (CONTRACT §8).
    pub updated_input: Option<serde_json::Value>,
    pub updated_prompt: Option<String>,
}

/// Why a body is not a response object.
#[derive(Debug, PartialEq)]
pub enum NotAnObject {
    /// Not JSON (with serde_json's explanation).
    Invalid(String),
    /// Valid JSON, but an array, string, number, boolean or null.
    OtherValue,
}

/// Reads a response body that is not blank.
pub fn read(body: &[u8]) -> Result<Fields, NotAnObject> {
    let text = std::str::from_utf8(body).map_err(|e| NotAnObject::Invalid(format!("not UTF-8 text ({e})")))?;
    match read_str(text) {
        Ok(f) => Ok(f),
        Err(first) => match non_finite_to_null(text) {
            Some(rewritten) => read_str(&rewritten).map_err(|_| first),
            None => Err(first),
        },
    }
}

fn read_str(text: &str) -> Result<Fields, NotAnObject> {
    let first = text.bytes().find(|b| !b.is_ascii_whitespace());
    if first != Some(b'{') {
        // Tell "not JSON" from "JSON but not an object"; `IgnoredAny` is the iterative scanner.
        return match serde_json::from_str::<de::IgnoredAny>(text) {
            Ok(_) => Err(NotAnObject::OtherValue),
            Err(e) => Err(NotAnObject::Invalid(e.to_string())),
        };
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = de.deserialize_map(Top).map_err(|e| NotAnObject::Invalid(e.to_string()))?;
    de.end().map_err(|e| NotAnObject::Invalid(e.to_string()))?;
    Ok(fields)
}

/// A raw value as a string, if it is one.
fn string_of(raw: &RawValue) -> Option<String> {
    let s = raw.get();
    if !s.starts_with('"') {
        return None;
    }
    serde_json::from_str::<String>(s).ok().filter(|s| !s.is_empty())
}

struct Top;

impl<'de> Visitor<'de> for Top {
    type Value = Fields;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut fields = Fields::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let raw: &'de RawValue = map.next_value()?;
            match &*key {
                "decision" => {
                    fields.decision = string_of(raw);
                    fields.decision_deny |= fields.decision.as_deref() == Some("deny");
                }
                "reason" => fields.reason = string_of(raw),
                "allowed" => fields.allowed_false |= raw.get() == "false",
                "hookSpecificOutput" => {
                    let specific = if raw.get().starts_with('{') {
                        let mut inner = serde_json::Deserializer::from_str(raw.get());
                        Some(inner.deserialize_map(SpecificVisitor).map_err(de::Error::custom)?)
                    } else {
                        None
                    };
                    fields.specific_deny |= specific.as_ref().is_some_and(|s| s.deny);
                    fields.specific = specific;
                }
                _ => {}
            }
        }
        Ok(fields)
    }
}

struct SpecificVisitor;

impl<'de> Visitor<'de> for SpecificVisitor {
    type Value = Specific;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Specific, A::Error> {
        let mut s = Specific::default();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let raw: &'de RawValue = map.next_value()?;
            match &*key {
                "decision" => {
                    s.decision = string_of(raw);
                    s.deny |= s.decision.as_deref() == Some("deny");
                }
                "reason" => s.reason = string_of(raw),
                "additionalContext" => s.additional_context = string_of(raw),
                // Too deep for a `Value`: no rewrite, but the rest of the answer still counts.
                "updatedInput" if raw.get().starts_with('{') => s.updated_input = serde_json::from_str(raw.get()).ok(),
                "updatedPrompt" => s.updated_prompt = string_of(raw),
                _ => {}
            }
        }
        Ok(s)
    }
}

/// The text with the bare tokens `NaN`, `Infinity` and `-Infinity` (outside strings) replaced
/// by `null`, or `None` when there are none. Where they stand in the grammar is left to the
/// parser that runs next: `[1 NaN]` is still not JSON.
pub(crate) fn non_finite_to_null(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    nulls_outside_strings(text, |i| {
        let token = [&b"-Infinity"[..], b"Infinity", b"NaN"].into_iter().find(|t| bytes[i..].starts_with(t));
        // A token must not be part of a longer word (`NaNa`), nor follow one.
        let starts_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        match token {
            Some(t)
                if starts_word && bytes.get(i + t.len()).map_or(true, |c| !c.is_ascii_alphanumeric() && *c != b'_') =>
            {
                (t.len(), true)
            }
            _ => (1, false),
        }
    })
}

/// Rewrites, outside strings, every number too large for an `f64` (`1e999`: valid JSON, but
/// `Value` refuses it as "number out of range") to `null`, as [`non_finite_to_null`] does for
/// `Infinity`. `None` when there is none. For the readers that build a whole `Value`.
pub(crate) fn out_of_range_to_null(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    nulls_outside_strings(text, |i| {
        if bytes[i] != b'-' && !bytes[i].is_ascii_digit() {
            return (1, false);
        }
        let len = 1 + bytes[i + 1..]
            .iter()
            .take_while(|b| matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
            .count();
        (len, text[i..i + len].parse::<f64>().is_ok_and(f64::is_infinite))
    })
}

/// Walks `text` outside its strings; at each position `token(i)` says how long the token there
/// is (at least 1) and whether to replace it by `null`. `None` when nothing was replaced.
fn nulls_outside_strings(text: &str, mut token: impl FnMut(usize) -> (usize, bool)) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut i, mut in_string, mut found) = (0usize, 0usize, false, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        let (len, replace) = token(i);
        if replace {
            out.push_str(&text[copied..i]);
            out.push_str("null");
            copied = i + len;
            found = true;
        }
        i += len.max(1);
    }
    if !found {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// The deepest nesting of `[`/`{` outside strings.
pub(crate) fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_tokens_outside_strings_only() {
        assert_eq!(
            non_finite_to_null(r#"{"a":NaN,"b":[Infinity,-Infinity]}"#).unwrap(),
            r#"{"a":null,"b":[null,null]}"#
        );
        assert_eq!(non_finite_to_null(r#"{"a":"NaN \" Infinity"}"#), None);
        assert_eq!(non_finite_to_null(r#"{"a":NaNa}"#), None);
    }

    #[test]
    fn only_needed_keys_are_built() {
        let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
        let body = format!(r#"{{"x":{deep},"n":1e999,"decision":"deny","reason":"no"}}"#);
        let f = read(body.as_bytes()).unwrap();
        assert_eq!(f.decision.as_deref(), Some("deny"));
        assert_eq!(f.reason.as_deref(), Some("no"));
        assert_eq!(read(b"[1]"), Err(NotAnObject::OtherValue));
        assert!(matches!(read(b"{\"a\":1} x"), Err(NotAnObject::Invalid(_))));
        assert!(matches!(read(b"{\"a\":\"\xff\"}"), Err(NotAnObject::Invalid(_))));
    }
}
