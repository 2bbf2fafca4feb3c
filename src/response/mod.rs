//! What a hook answered (CONTRACT §3.4, §3.5): the response format shared by jsonIO stdout and
//! HTTP bodies, and the per-hook result the merge walks over. [`claude`] reads Claude Code
//! hooks' answers by Claude Code's rules.

pub mod claude;

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

/// The one JSON reader of hook answers (jsonIO, HTTP, Claude Code hooks).
pub fn parse_json(body: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(body).map_err(|e| e.to_string())
}

pub fn parse(body: &[u8]) -> Response {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Response::Empty;
    }
    let value: Value = match parse_json(body) {
        Ok(v) => v,
        Err(e) => return Response::Malformed(format!("response is not valid JSON ({e})")),
    };
    let Value::Object(top) = value else {
        return Response::Malformed("response is JSON but not an object".to_string());
    };
    let text = |v: Option<&Value>| v.and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let specific = top.get("hookSpecificOutput").and_then(Value::as_object);
    let result = HookResult {
        decision: match top.get("decision").and_then(Value::as_str) {
            Some("allow") => Some(Decision::Allow),
            Some("deny") => Some(Decision::Deny),
            _ => None,
        },
        permission: match specific.and_then(|s| s.get("decision")).and_then(Value::as_str) {
            Some("allow") => Some(Permission::Allow),
            Some("deny") => Some(Permission::Deny),
            Some("ask") => Some(Permission::Ask),
            _ => None,
        },
        reason: text(top.get("reason")).or_else(|| text(specific.and_then(|s| s.get("reason")))),
        context: text(specific.and_then(|s| s.get("additionalContext"))),
        updated_input: specific.and_then(|s| s.get("updatedInput")).filter(|v| v.is_object()).cloned(),
        updated_prompt: specific.and_then(|s| s.get("updatedPrompt")).and_then(Value::as_str).map(str::to_string),
    };
    let legacy_denied = top.get("allowed") == Some(&Value::Bool(false));
    Response::Parsed { result, legacy_denied }
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
    }
}
