//! What a hook answered (docs/config.md "Command hooks", "HTTP hooks"): the response format shared by jsonIO stdout and
//! HTTP bodies, and the per-hook result the merge walks over. [`claude`] reads Claude Code
//! hooks' answers by Claude Code's rules.

pub mod json;

use crate::outcome::Verdict;
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

impl From<Permission> for Verdict {
    fn from(p: Permission) -> Verdict {
        match p {
            Permission::Allow => Verdict::Allow,
            Permission::Deny => Verdict::Deny,
            Permission::Ask => Verdict::Ask,
            Permission::Defer => Verdict::Defer,
        }
    }
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
    pub fn label(&self) -> Verdict {
        if self.is_deny() {
            Verdict::Deny
        } else if self.permission == Some(Permission::Allow) {
            Verdict::Allow
        } else if self.permission == Some(Permission::Ask) {
            Verdict::Ask
        } else if self.decision == Some(Decision::Allow) {
            Verdict::Allow
        } else {
            Verdict::None
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

/// Reads a jsonIO-shaped answer (openHarness stdout, HTTP bodies, callback answers, persistent
/// workers' lines) through the one tolerant reader ([`json`]); what its keys mean is decided
/// here. A `deny` among the values of a repeated key wins, a `hookSpecificOutput` that denies
/// among repeated ones too (docs/envelope.md "Reading answers").
pub fn parse(body: &[u8]) -> Response {
    let text = json::text(body);
    if text.bytes().all(|b| b.is_ascii_whitespace()) {
        return Response::Empty;
    }
    let top = match json::object(&text) {
        Ok(o) => o,
        Err(json::NotAnObject::Invalid(e)) => return Response::Malformed(format!("response is not valid JSON ({e})")),
        Err(json::NotAnObject::OtherValue) => {
            return Response::Malformed("response is JSON but not an object".to_string())
        }
    };
    Response::Parsed {
        result: interpret(&top),
        legacy_denied: top.get_by("allowed", |v| v.as_bool() == Some(false)).and_then(|v| v.as_bool()) == Some(false),
    }
}

/// The openHarness vocabulary over a read object.
fn interpret(top: &json::Obj) -> HookResult {
    let is_deny = |v: json::Val| v.is("deny");
    let specific = top
        .get_by("hookSpecificOutput", |v| {
            v.as_object().is_some_and(|o| o.get_by("decision", is_deny).is_some_and(is_deny))
        })
        .and_then(|v| v.as_object());
    let last = |_: json::Val| false;
    let from_specific =
        |key: &str, refuses: &dyn Fn(json::Val) -> bool| specific.as_ref().and_then(|o| o.get_by(key, refuses));
    HookResult {
        decision: match top.get_by("decision", is_deny) {
            Some(v) if v.is("deny") => Some(Decision::Deny),
            Some(v) if v.is("allow") => Some(Decision::Allow),
            _ => None,
        },
        permission: match from_specific("decision", &is_deny) {
            Some(v) if v.is("deny") => Some(Permission::Deny),
            Some(v) if v.is("allow") => Some(Permission::Allow),
            Some(v) if v.is("ask") => Some(Permission::Ask),
            _ => None,
        },
        reason: top
            .get_by("reason", last)
            .and_then(json::Val::text)
            .or_else(|| from_specific("reason", &last).and_then(json::Val::text)),
        context: from_specific("additionalContext", &last).and_then(json::Val::text),
        // Too deep to build: no rewrite, but the rest of the answer still counts.
        updated_input: from_specific("updatedInput", &last)
            .filter(|v| v.kind() == json::Kind::Object)
            .and_then(json::Val::to_value),
        updated_prompt: from_specific("updatedPrompt", &last).and_then(json::Val::text),
    }
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
        let v = json::value(r#"{"a":{"permissionDecision":"deny","permissionDecision":"allow"},"continue":false,"continue":true,"n":null,"x":NaN,"k":1,"k":2}"#).unwrap().to_value().unwrap();
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
