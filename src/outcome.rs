//! The outcome JSON (docs/envelope.md "The outcome") and its per-hook trace.

use crate::error::{Error, ErrorCode};
use serde::Serialize;
use std::time::Duration;

/// What one hook did. Fields absent from the JSON when they do not apply.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    pub index: usize,
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(rename = "jsonIO", skip_serializing_if = "Option::is_none")]
    pub json_io: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
    pub duration_ms: f64,
    pub result: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The dialect of a dialect's hook (`"claude"`, docs/dialects.md); absent for openHarness hooks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<&'static str>,
    /// The file a dialect's hook came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Why a dialect's hook failed (and so let the action through, unless it blocks on failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// A trace's `result`: what the hook's answer meant for the merge, or that the fire's cancel
/// stopped it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Allow,
    Deny,
    Ask,
    Defer,
    /// No decision (also: the hook did not run, or decides nothing).
    #[default]
    None,
    /// The fire's cancel stopped it before it finished.
    Cancelled,
}

impl Verdict {
    /// As the trace's JSON says it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allow => "allow",
            Verdict::Deny => "deny",
            Verdict::Ask => "ask",
            Verdict::Defer => "defer",
            Verdict::None => "none",
            Verdict::Cancelled => "cancelled",
        }
    }
}

impl PartialEq<&str> for Verdict {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

pub fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// The outcome error object: only `code` and `message`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OutcomeError {
    pub code: ErrorCode,
    pub message: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub allowed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// The tool input to use instead (docs/dialects/claude.md "Claude Code hooks").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<serde_json::Value>,
    /// The prompt to use instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_prompt: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_permissions: Option<serde_json::Value>,
    /// `true` only: a permission deny that should also interrupt the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<bool>,
    /// `false` only: the harness should stop the agent (`stopReason` says why).
    #[serde(rename = "continue", skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// For the user, not the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// Keys a dialect adds under its own harness's names (docs/dialects.md).
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
    pub hooks: Vec<Trace>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<OutcomeError>,
}

/// `Outcome::allowed(vec![])` serialized.
const ALLOWED: &str = r#"{"allowed":true,"hooks":[]}"#;

impl Outcome {
    /// Allowed, nothing ran.
    pub fn allowed(warnings: Vec<String>) -> Outcome {
        Outcome {
            allowed: true,
            permission_decision: None,
            reason: None,
            additional_context: None,
            updated_input: None,
            updated_prompt: None,
            updated_permissions: None,
            interrupt: None,
            continue_: None,
            stop_reason: None,
            system_message: None,
            extra: serde_json::Map::new(),
            hooks: Vec::new(),
            warnings,
            error: None,
        }
    }

    /// The input could not be processed: not allowed, nothing ran.
    pub fn error(error: Error) -> Outcome {
        Outcome {
            allowed: false,
            error: Some(OutcomeError { code: error.code, message: error.message }),
            ..Outcome::allowed(Vec::new())
        }
    }

    pub fn to_json(&self) -> String {
        // The answer to almost every tool call: skip the serializer (a tenth of the cost).
        if *self == Outcome::allowed(Vec::new()) {
            let mut s = String::with_capacity(ALLOWED.len() + 1);
            s.push_str(ALLOWED);
            return s;
        }
        serde_json::to_string(self).unwrap_or_else(|e| {
            Outcome::error(Error::new(ErrorCode::Internal, format!("could not serialize the outcome: {e}"))).to_json()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(Outcome::allowed(vec![]).to_json(), r#"{"allowed":true,"hooks":[]}"#);
        assert_eq!(
            serde_json::to_string(&Outcome::allowed(vec![])).unwrap(),
            ALLOWED,
            "the fast path says what serde says"
        );
        assert_eq!(Outcome::allowed(vec!["w".into()]).to_json(), r#"{"allowed":true,"hooks":[],"warnings":["w"]}"#);
        assert_eq!(
            Outcome::error(Error::new(ErrorCode::NullArgument, "x")).to_json(),
            r#"{"allowed":false,"hooks":[],"error":{"code":"null_argument","message":"x"}}"#
        );
        let t = Trace {
            index: 1,
            kind: "command",
            json_io: Some(true),
            exit_code: Some(0),
            timed_out: Some(false),
            duration_ms: 2.5,
            result: Verdict::None,
            ..Trace::default()
        };
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"index":1,"type":"command","jsonIO":true,"exitCode":0,"timedOut":false,"durationMs":2.5,"result":"none"}"#
        );
    }
}
