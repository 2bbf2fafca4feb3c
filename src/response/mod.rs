//! What a hook answered (CONTRACT §3.4, §3.5): the response format shared by jsonIO stdout and
//! HTTP bodies, and the per-hook result the merge walks over. [`claude`] reads Claude Code
//! hooks' answers by Claude Code's rules.

pub mod claude;

pub mod json;

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Deny,
}

/// The permission decision of `hookSpecificOutput.decision` (and Claude Code's
/// `permissionDecision`, which adds `defer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    Allow,
    Deny,
    Ask,
    /// Claude Code only: the harness should pause the tool call for later.
    Defer,
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Deny => "deny",
            Permission::Ask => "ask",
            Permission::Defer => "defer",
        }
    }
}

/// One hook's answer. All parts optional: a hook that said nothing has the default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookResult {
    pub decision: Option<Decision>,
    pub permission: Option<Permission>,
    pub reason: Option<String>,
    pub context: Option<String>,
    /// `hookSpecificOutput.updatedInput`: the tool input later hooks and the harness use.
    pub updated_input: Option<Value>,
    /// `hookSpecificOutput.updatedPrompt`: the prompt later hooks and the harness use.
    pub updated_prompt: Option<String>,
}

impl HookResult {
    /// A top-level deny with a reason and no permission decision.
    pub fn deny(reason: &str) -> HookResult {
        HookResult { decision: Some(Decision::Deny), reason: Some(reason.to_string()), ..HookResult::default() }
    }

    pub fn is_deny(&self) -> bool {
        self.decision == Some(Decision::Deny) || self.permission == Some(Permission::Deny)
    }

    /// The trace's `result`: what this answer means for the merge.
    pub fn label(&self) -> &'static str {
        if self.is_deny() {
            "deny"
        } else if self.permission == Some(Permission::Allow) {
            "allow"
        } else if self.permission == Some(Permission::Ask) {
            "ask"
        } else if self.decision == Some(Decision::Allow) {
            "allow"
        } else {
            "none"
        }
    }
}

/// A parsed response body.
#[derive(Debug, PartialEq)]
pub enum Response {
    /// Empty or blank: no decision.
    Empty,
    /// Not JSON, or JSON that is not an object; the string says which.
    Malformed(String),
    Parsed {
        result: HookResult,
        /// `{"allowed": false}` was present (the legacy HTTP verdict).
        legacy_denied: bool,
    },
}

/// A whole answer as a JSON value, for the readers that need every field (Claude Code hooks).
/// Python's `NaN`/`Infinity` and numbers too large for an `f64` (`1e999`) are read as `null`, as
/// [`json`] does; a key given twice keeps a refusing value (`deny`, `block`, `false`) over a
/// later one, so a repeated key cannot turn a deny into an allow (CONTRACT §3.4). Nesting up to
/// [`MAX_VALUE_DEPTH`] is read (serde_json's own limit, 128, is below what a hook echoing a
/// deep tool input back produces: the envelope itself may be 127 deep).
pub fn parse_json(body: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("not UTF-8 text ({e})"))?;
    let depth = json::nesting_depth(text);
    if depth > MAX_VALUE_DEPTH {
        return Err(format!("nested {depth} levels deep, more than the {MAX_VALUE_DEPTH} a response may be"));
    }
    let read = |t: &str| -> Result<Value, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(t);
        // Bounded above: the `Sticky` visitor recurses once per level, a few hundred bytes each.
        de.disable_recursion_limit();
        let v = serde::Deserialize::deserialize(&mut de).map(|Sticky(v)| v)?;
        de.end()?;
        Ok(v)
    };
    read(text).or_else(|first| {
        let finite = json::non_finite_to_null(text);
        let in_range = json::out_of_range_to_null(finite.as_deref().unwrap_or(text));
        match in_range.or(finite) {
            Some(rewritten) => read(&rewritten).map_err(|_| first.to_string()),
            None => Err(first.to_string()),
        }
    })
}

/// How deep a whole-value response may nest (see [`parse_json`]).
pub const MAX_VALUE_DEPTH: usize = 512;

/// A JSON value whose objects resolve repeated keys in favour of a refusal.
struct Sticky(Value);

fn refuses(v: &Value) -> bool {
    matches!(v, Value::Bool(false)) || matches!(v.as_str(), Some("deny" | "block"))
}

impl<'de> serde::Deserialize<'de> for Sticky {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Sticky, D::Error> {
        use serde::de::{MapAccess, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Sticky;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Sticky, E> {
                Ok(Sticky(Value::Bool(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Sticky, E> {
                Ok(Sticky(Value::from(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Sticky, E> {
                Ok(Sticky(Value::from(v)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Sticky, E> {
                Ok(Sticky(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Sticky, E> {
                Ok(Sticky(Value::String(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Sticky, E> {
                Ok(Sticky(Value::String(v)))
            }
            fn visit_unit<E>(self) -> Result<Sticky, E> {
                Ok(Sticky(Value::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Sticky, A::Error> {
                let mut items = Vec::new();
                while let Some(Sticky(v)) = seq.next_element()? {
                    items.push(v);
                }
                Ok(Sticky(Value::Array(items)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Sticky, A::Error> {
                let mut out = serde_json::Map::new();
                while let Some((key, Sticky(v))) = map.next_entry::<String, Sticky>()? {
                    match out.get_mut(&key) {
                        Some(old) if refuses(old) && !refuses(&v) => {}
                        Some(old) => *old = v,
                        None => {
                            out.insert(key, v);
                        }
                    }
                }
                Ok(Sticky(Value::Object(out)))
            }
        }
        d.deserialize_any(V)
    }
}

pub fn parse(body: &[u8]) -> Response {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Response::Empty;
    }
    let fields = match json::read(body) {
        Ok(f) => f,
        Err(json::NotAnObject::Invalid(e)) => return Response::Malformed(format!("response is not valid JSON ({e})")),
        Err(json::NotAnObject::OtherValue) => {
            return Response::Malformed("response is JSON but not an object".to_string())
        }
    };
    let specific = fields.specific.unwrap_or_default();
    let result = HookResult {
        decision: if fields.decision_deny {
            Some(Decision::Deny)
        } else {
            match fields.decision.as_deref() {
                Some("allow") => Some(Decision::Allow),
                _ => None,
            }
        },
        permission: if fields.specific_deny {
            Some(Permission::Deny)
        } else {
            match specific.decision.as_deref() {
                Some("allow") => Some(Permission::Allow),
                Some("ask") => Some(Permission::Ask),
                _ => None,
            }
        },
        reason: fields.reason.or(specific.reason),
        context: specific.additional_context,
        updated_input: specific.updated_input,
        updated_prompt: specific.updated_prompt,
    };
    Response::Parsed { result, legacy_denied: fields.allowed_false }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(s: &str) -> HookResult {
        match parse(s.as_bytes()) {
            Response::Parsed { result, .. } => result,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fields() {
        let r = parsed(
            r#"{"decision":"deny","reason":"no","hookSpecificOutput":{"decision":"ask","additionalContext":"c","reason":"r2"},"x":1}"#,
        );
        assert_eq!(r.decision, Some(Decision::Deny));
        assert_eq!(r.permission, Some(Permission::Ask));
        assert_eq!(r.reason.as_deref(), Some("no"));
        assert_eq!(r.context.as_deref(), Some("c"));
        assert_eq!(parsed(r#"{"hookSpecificOutput":{"reason":"r2"}}"#).reason.as_deref(), Some("r2"));
        // unknown values are ignored
        assert_eq!(parsed(r#"{"decision":"ask","hookSpecificOutput":{"decision":"maybe"}}"#), HookResult::default());
        assert_eq!(parsed(r#"{"decision":"allow"}"#).label(), "allow");
        assert_eq!(parsed(r#"{"decision":"allow","hookSpecificOutput":{"decision":"ask"}}"#).label(), "ask");
        let r = parsed(r#"{"hookSpecificOutput":{"updatedInput":{"command":"ls"},"updatedPrompt":"new"}}"#);
        assert_eq!(r.updated_input, Some(serde_json::json!({"command": "ls"})));
        assert_eq!(r.updated_prompt.as_deref(), Some("new"));
        assert_eq!(parsed(r#"{"hookSpecificOutput":{"updatedInput":"x"}}"#).updated_input, None, "objects only");
        let v = parse_json(br#"{"a":{"permissionDecision":"deny","permissionDecision":"allow"},"continue":false,"continue":true,"n":null,"x":NaN,"k":1,"k":2}"#).unwrap();
        assert_eq!(v["a"]["permissionDecision"], "deny", "a repeated key cannot turn a deny into an allow");
        assert_eq!(v["continue"], false);
        assert_eq!((v["n"].clone(), v["x"].clone(), v["k"].clone()), (Value::Null, Value::Null, Value::from(2)));
    }

    #[test]
    fn empty_malformed_legacy() {
        assert_eq!(parse(b""), Response::Empty);
        assert_eq!(parse(b" \n\t"), Response::Empty);
        assert!(matches!(parse(b"{nope"), Response::Malformed(_)));
        assert!(matches!(parse(b"[1]"), Response::Malformed(_)));
        assert!(matches!(parse(b"\xff\xfe"), Response::Malformed(_)));
        assert!(matches!(parse(br#"{"allowed":false}"#), Response::Parsed { legacy_denied: true, .. }));
        let deep = "[".repeat(100_000);
        assert!(matches!(parse(deep.as_bytes()), Response::Malformed(_)));
        assert!(matches!(parse(b"{\"decision\":NaN"), Response::Malformed(_)));
    }

    /// Valid JSON that `serde_json::Value` refused, so the deny was read as "no decision"
    /// (version 1 printed `recursion limit exceeded` / `number out of range` in the trace).
    #[test]
    fn any_valid_json_is_read() {
        let deny = |s: &str| parsed(s).is_deny();
        assert!(deny(r#"{"decision":"deny","reason":"no","score":1e999}"#));
        assert!(deny(
            r#"{"score":-1e999,"hookSpecificOutput":{"decision":"deny","n":123456789012345678901234567890}}"#
        ));
        let nested = format!(r#"{{"decision":"deny","toolInput":{}1{}}}"#, "[".repeat(126), "]".repeat(126));
        assert!(deny(&nested));
        let very = format!(r#"{{"echo":{}null{},"decision":"deny"}}"#, "{\"a\":".repeat(100_000), "}".repeat(100_000));
        assert!(deny(&very));
        // Python's json.dumps writes these by default.
        assert!(deny(r#"{"decision":"deny","score":NaN,"hi":Infinity,"lo":-Infinity}"#));
        assert_eq!(parsed(r#"{"decision":"allow","x":"NaN"}"#).label(), "allow");
        assert_eq!(parsed(r#"{"decisio\u006e":"deny"}"#).label(), "deny", "escaped keys are the same key");
    }

    #[test]
    fn duplicate_keys_cannot_hide_a_deny() {
        assert!(parsed(r#"{"decision":"deny","decision":"allow"}"#).is_deny());
        assert!(parsed(r#"{"decision":"allow","decision":"deny"}"#).is_deny());
        assert!(parsed(r#"{"hookSpecificOutput":{"decision":"deny","decision":"allow"}}"#).is_deny());
        assert!(
            parsed(r#"{"hookSpecificOutput":{"decision":"deny"},"hookSpecificOutput":{"decision":"allow"}}"#).is_deny()
        );
        assert!(matches!(parse(br#"{"allowed":false,"allowed":true}"#), Response::Parsed { legacy_denied: true, .. }));
        // Otherwise the last value counts.
        assert_eq!(parsed(r#"{"reason":"a","reason":"b"}"#).reason.as_deref(), Some("b"));
        assert_eq!(parsed(r#"{"hookSpecificOutput":{"decision":"ask","decision":"allow"}}"#).label(), "allow");
    }
}
