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

    /// Whether this is `{"allowed":true,"hooks":[]}`: allowed, nothing ran, nothing to say.
    pub fn is_plain_allowed(&self) -> bool {
        // An outcome with traces is never it: told by one test, not by making, comparing and
        // dropping a whole `Outcome`.
        self.hooks.is_empty() && *self == Outcome::allowed(Vec::new())
    }

    pub fn to_json(&self) -> String {
        // The answer to almost every tool call: skip the serializer (a tenth of the cost).
        if self.is_plain_allowed() {
            let mut s = String::with_capacity(ALLOWED.len() + 1);
            s.push_str(ALLOWED);
            return s;
        }
        // Written field by field: what serde's derive writes (pinned by a test), without the
        // map serializer that `extra`'s flatten imposes on every field and every trace, which
        // cost as much as the rest of a callback hook's fire. Strings, numbers and JSON values
        // still go through serde_json, so their escaping and number formats are its own.
        let mut out = Vec::with_capacity(128 + 160 * self.hooks.len());
        let mut w = Writer(&mut out);
        w.raw("{\"allowed\":");
        w.raw(if self.allowed { "true" } else { "false" });
        w.opt_str(",\"permissionDecision\":", self.permission_decision);
        w.opt_str(",\"reason\":", self.reason.as_deref());
        w.opt_str(",\"additionalContext\":", self.additional_context.as_deref());
        w.opt_json(",\"updatedInput\":", self.updated_input.as_ref());
        w.opt_str(",\"updatedPrompt\":", self.updated_prompt.as_deref());
        w.opt_json(",\"updatedPermissions\":", self.updated_permissions.as_ref());
        w.opt_json(",\"interrupt\":", self.interrupt.as_ref());
        w.opt_json(",\"continue\":", self.continue_.as_ref());
        w.opt_str(",\"stopReason\":", self.stop_reason.as_deref());
        w.opt_str(",\"systemMessage\":", self.system_message.as_deref());
        for (key, value) in &self.extra {
            w.raw(",");
            w.json(key);
            w.raw(":");
            w.json(value);
        }
        w.raw(",\"hooks\":[");
        for (i, t) in self.hooks.iter().enumerate() {
            if i > 0 {
                w.raw(",");
            }
            t.write_json(&mut w);
        }
        w.raw("]");
        if !self.warnings.is_empty() {
            w.raw(",\"warnings\":");
            w.json(&self.warnings);
        }
        if let Some(e) = &self.error {
            w.raw(",\"error\":{\"code\":");
            w.json(&e.code);
            w.opt_str(",\"message\":", Some(&e.message));
            w.raw("}");
        }
        w.raw("}");
        String::from_utf8(out).unwrap_or_else(|e| {
            Outcome::error(Error::new(ErrorCode::Internal, format!("could not serialize the outcome: {e}"))).to_json()
        })
    }
}

impl Trace {
    /// One trace as serde's derive writes it (see [`Outcome::to_json`]).
    fn write_json(&self, w: &mut Writer) {
        w.raw("{\"index\":");
        w.json(&self.index);
        w.opt_str(",\"type\":", Some(self.kind));
        w.opt_json(",\"jsonIO\":", self.json_io.as_ref());
        w.opt_json(",\"persistent\":", self.persistent.as_ref());
        w.opt_json(",\"exitCode\":", self.exit_code.as_ref());
        w.opt_json(",\"signal\":", self.signal.as_ref());
        w.opt_json(",\"status\":", self.status.as_ref());
        w.opt_json(",\"timedOut\":", self.timed_out.as_ref());
        w.raw(",\"durationMs\":");
        w.json(&self.duration_ms);
        // A result is one of six lowercase words: nothing to escape.
        w.raw(",\"result\":\"");
        w.raw(self.result.as_str());
        w.raw("\"");
        w.opt_str(",\"reason\":", self.reason.as_deref());
        w.opt_str(",\"stderr\":", self.stderr.as_deref());
        w.opt_str(",\"error\":", self.error.as_deref());
        w.opt_str(",\"dialect\":", self.dialect);
        w.opt_str(",\"source\":", self.source.as_deref());
        w.opt_str(",\"failure\":", self.failure.as_deref());
        w.raw("}");
    }
}

/// The outcome's JSON text being written: fixed text as it is, values through serde_json.
struct Writer<'a>(&'a mut Vec<u8>);

// Inlined: at each field they are a test and a copy of a constant key, less than a call to
// each of the some 30 fields of an outcome and its trace.
impl Writer<'_> {
    #[inline(always)]
    fn raw(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    #[inline(always)]
    fn json<T: Serialize + ?Sized>(&mut self, value: &T) {
        // Writing to a Vec cannot fail, nor can these values (string keys only).
        let _ = serde_json::to_writer(&mut *self.0, value);
    }

    #[inline(always)]
    fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.raw(key);
            self.string(value);
        }
    }

    /// A string as serde_json writes it: between quotes, as it is when it has no byte that
    /// serde_json escapes (a control character, `"`, `\\`; non-ASCII text is written as it is),
    /// which the hook types, results and most reasons have; else through serde_json.
    #[inline(always)]
    fn string(&mut self, value: &str) {
        if value.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            self.0.reserve(value.len() + 2);
            self.0.push(b'"');
            self.0.extend_from_slice(value.as_bytes());
            self.0.push(b'"');
        } else {
            self.json(value);
        }
    }

    #[inline(always)]
    fn opt_json<T: Serialize + ?Sized>(&mut self, key: &str, value: Option<&T>) {
        if let Some(value) = value {
            self.raw(key);
            self.json(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `to_json` writes by hand what serde's derive writes: every field present and absent,
    /// text that needs escaping, numbers of every shape, dialect keys, an error.
    #[test]
    fn to_json_is_what_serde_writes() {
        let full = Trace {
            index: 7,
            kind: "command",
            json_io: Some(true),
            persistent: Some(false),
            exit_code: Some(-2),
            signal: Some(9),
            status: Some(503),
            timed_out: Some(true),
            duration_ms: 1234.5678,
            result: Verdict::Cancelled,
            reason: Some("quote \" back \\ nl \n tab \t nul \u{0} é 😀 \u{2028}".into()),
            stderr: Some("err\u{1}".into()),
            error: Some(String::new()),
            dialect: Some("claude"),
            source: Some("/x/.claude/settings.json".into()),
            failure: Some("why".into()),
        };
        let mut extra = serde_json::Map::new();
        extra.insert("suppressOutput".into(), serde_json::json!(true));
        extra.insert("ke\"y".into(), serde_json::json!({"a": [1, 2.5, null, "s"]}));
        let rich = Outcome {
            allowed: false,
            permission_decision: Some("ask"),
            reason: Some("r\u{7f}\u{1f}".into()),
            additional_context: Some("ctx".into()),
            updated_input: Some(serde_json::json!({"command": "ls", "n": 1e300, "z": -0.0})),
            updated_prompt: Some("p".into()),
            updated_permissions: Some(serde_json::json!([{"type": "addRules"}])),
            interrupt: Some(true),
            continue_: Some(false),
            stop_reason: Some("stop".into()),
            system_message: Some("sys".into()),
            extra,
            hooks: vec![full.clone(), Trace::default(), Trace { duration_ms: 0.001, ..full.clone() }],
            warnings: vec!["w1".into(), "w\"2".into()],
            error: Some(OutcomeError { code: ErrorCode::InvalidEnvelope, message: "m\n".into() }),
        };
        let mut cases = vec![rich.clone(), Outcome::allowed(vec!["w".into()]), Outcome::error(Error::internal("x"))];
        for ms in [0.0, 0.011, 1.0, 2.5, 1e-7, 123456789.123, 1e21, f64::NAN, f64::INFINITY] {
            cases.push(Outcome {
                hooks: vec![Trace { duration_ms: ms, ..Trace::default() }],
                ..Outcome::allowed(Vec::new())
            });
        }
        // Strings written as they are (no byte serde_json escapes) and strings with one such byte
        // at either end or alone.
        let texts = [
            "",
            " ",
            "~\u{7f}",
            "é 😀 \u{2028}\u{85} plain",
            "\"",
            "\\",
            "\u{1f}",
            "a\"",
            "\\a",
            "\na",
            "a\u{0}",
            "€\t",
        ];
        for text in texts {
            cases.push(Outcome {
                reason: Some(text.into()),
                hooks: vec![Trace { reason: Some(text.into()), stderr: Some(format!("{text}{text}")), ..full.clone() }],
                ..Outcome::allowed(Vec::new())
            });
        }
        for result in [Verdict::Allow, Verdict::Deny, Verdict::Ask, Verdict::Defer, Verdict::None, Verdict::Cancelled] {
            cases.push(Outcome { hooks: vec![Trace { result, ..full.clone() }], ..Outcome::allowed(Vec::new()) });
        }
        for outcome in &cases {
            assert_eq!(outcome.to_json(), serde_json::to_string(outcome).unwrap());
        }
    }

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
