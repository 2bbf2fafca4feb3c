//! Reading an openHarness hook's answer (docs/config.md "Command hooks", "HTTP hooks", "Callback
//! hooks"): the exit-code rules of env mode, the jsonIO keys shared by stdout, HTTP bodies,
//! callback answers and persistent workers' lines, the `strict` and legacy `allowed` rules, and
//! the reasons a failed hook's deny carries. Pure: no I/O, no traces; on top of the one tolerant
//! reader ([`crate::response::json`]). What went wrong for the trace's `error` is returned beside
//! the answer; the run path (`run/mod.rs`) writes it.

use crate::dialect::Answer;
use crate::event::Event;
use crate::response::json;
use crate::response::Permission;

pub const ENV_DENIED: &str = "hook denied (exit code)";
pub const JSON_FAILED: &str = "hook failed (timeout or non-zero exit)";
pub const OUTPUT_TOO_LARGE: &str = "hook output exceeded maxOutputBytes";
pub const MALFORMED: &str = "malformed hook response";
pub const NO_EVALUATOR: &str = "prompt hook has no evaluator";
pub const HTTP_ERROR: &str = "hook HTTP error";
pub const HTTP_TOO_LARGE: &str = "hook HTTP response too large";
pub const HTTP_MALFORMED: &str = "hook HTTP malformed response";
pub const LEGACY_DENIED: &str = "hook denied";

/// A top-level deny with a reason and no permission decision: what a hook that failed answers.
pub fn deny(reason: &str) -> Answer {
    Answer { block: true, reason: Some(reason.to_string()), ..Answer::default() }
}

/// What an answer says on its own: a top-level `decision: "deny"` or a permission deny.
pub fn is_deny(answer: &Answer) -> bool {
    answer.block || answer.permission == Some(Permission::Deny)
}

/// A parsed response body. Made once per answer and taken apart at once: boxing the answer
/// would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq)]
pub enum Response {
    /// Empty or blank: no decision.
    Empty,
    /// Not JSON, or JSON that is not an object; the string says which.
    Malformed(String),
    Parsed {
        answer: Answer,
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
        answer: interpret(&top),
        legacy_denied: top.get_by("allowed", |v| v.as_bool() == Some(false)).and_then(|v| v.as_bool()) == Some(false),
    }
}

/// The openHarness vocabulary over a read object.
fn interpret(top: &json::Obj) -> Answer {
    let is_deny = |v: json::Val| v.is("deny");
    let specific = top
        .get_by("hookSpecificOutput", |v| {
            v.as_object().is_some_and(|o| o.get_by("decision", is_deny).is_some_and(is_deny))
        })
        .and_then(|v| v.as_object());
    let last = |_: json::Val| false;
    let from_specific =
        |key: &str, refuses: &dyn Fn(json::Val) -> bool| specific.as_ref().and_then(|o| o.get_by(key, refuses));
    let decision = top.get_by("decision", is_deny);
    Answer {
        block: decision.is_some_and(|v| v.is("deny")),
        allow: decision.is_some_and(|v| v.is("allow")),
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
        ..Answer::default()
    }
}

/// An env-mode command hook (no jsonIO): its exit status is its answer. Exit 0 lets the action
/// through, anything else denies; on `permissionRequest` they are `ask` and `deny`.
pub fn env_mode(event: Event, succeeded: bool) -> Answer {
    let permission_request = event == Event::PermissionRequest;
    if succeeded {
        Answer { permission: permission_request.then_some(Permission::Ask), ..Answer::default() }
    } else {
        Answer { permission: permission_request.then_some(Permission::Deny), ..deny(ENV_DENIED) }
    }
}

/// A jsonIO-shaped answer (stdout, a callback's or an evaluator's answer): blank is no decision,
/// malformed is no decision (a deny on blocking events with `strict`). The second value: why it
/// was malformed, for the trace's `error`.
pub fn json_io(event: Event, answer: &[u8], strict: bool) -> (Answer, Option<String>) {
    match parse(answer) {
        Response::Empty => (Answer::default(), None),
        Response::Malformed(why) if strict && event.is_blocking() => (deny(MALFORMED), Some(why)),
        Response::Malformed(why) => (Answer::default(), Some(why)),
        Response::Parsed { answer, .. } => (answer, None),
    }
}

/// The body of an HTTP hook's 2xx answer: malformed denies; a legacy `{"allowed": false}` denies
/// unless a decision of the jsonIO keys came with it. The second value as for [`json_io`].
pub fn http_body(body: &[u8]) -> (Answer, Option<String>) {
    match parse(body) {
        Response::Empty => (Answer::default(), None),
        Response::Malformed(why) => (deny(HTTP_MALFORMED), Some(why)),
        Response::Parsed { answer, legacy_denied } => {
            if legacy_denied && !answer.block && !answer.allow && answer.permission.is_none() {
                (
                    Answer { reason: answer.reason.or_else(|| Some(LEGACY_DENIED.to_string())), ..deny(LEGACY_DENIED) },
                    None,
                )
            } else {
                (answer, None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn parsed(s: &str) -> Answer {
        match parse(s.as_bytes()) {
            Response::Parsed { answer, .. } => answer,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fields() {
        let r = parsed(
            r#"{"decision":"deny","reason":"no","hookSpecificOutput":{"decision":"ask","additionalContext":"c","reason":"r2"},"x":1}"#,
        );
        assert!(r.block && !r.allow);
        assert_eq!(r.permission, Some(Permission::Ask));
        assert_eq!(r.reason.as_deref(), Some("no"));
        assert_eq!(r.context.as_deref(), Some("c"));
        assert_eq!(parsed(r#"{"hookSpecificOutput":{"reason":"r2"}}"#).reason.as_deref(), Some("r2"));
        // unknown values are ignored
        assert_eq!(parsed(r#"{"decision":"ask","hookSpecificOutput":{"decision":"maybe"}}"#), Answer::default());
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
        let deny = |s: &str| is_deny(&parsed(s));
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
        assert!(is_deny(&parsed(r#"{"decision":"deny","decision":"allow"}"#)));
        assert!(is_deny(&parsed(r#"{"decision":"allow","decision":"deny"}"#)));
        assert!(is_deny(&parsed(r#"{"hookSpecificOutput":{"decision":"deny","decision":"allow"}}"#)));
        assert!(is_deny(&parsed(
            r#"{"hookSpecificOutput":{"decision":"deny"},"hookSpecificOutput":{"decision":"allow"}}"#
        )));
        assert!(matches!(parse(br#"{"allowed":false,"allowed":true}"#), Response::Parsed { legacy_denied: true, .. }));
        // Otherwise the last value counts.
        assert_eq!(parsed(r#"{"reason":"a","reason":"b"}"#).reason.as_deref(), Some("b"));
        assert_eq!(parsed(r#"{"hookSpecificOutput":{"decision":"ask","decision":"allow"}}"#).label(), "allow");
    }

    /// The rules that lived in the run path before they were the reader's: env mode's exit
    /// status, `strict` on a malformed answer, the legacy HTTP verdict.
    #[test]
    fn exit_codes_strict_and_legacy() {
        assert_eq!(env_mode(Event::PreToolUse, true), Answer::default());
        assert_eq!(env_mode(Event::PreToolUse, false), deny(ENV_DENIED));
        assert_eq!(env_mode(Event::PermissionRequest, true).permission, Some(Permission::Ask));
        let refused = env_mode(Event::PermissionRequest, false);
        assert!(refused.block && refused.permission == Some(Permission::Deny));
        assert_eq!(refused.label(), "deny");

        assert_eq!(json_io(Event::PreToolUse, b" \n", true), (Answer::default(), None));
        let (lenient, why) = json_io(Event::PreToolUse, b"{nope", false);
        assert_eq!(lenient, Answer::default());
        assert!(why.is_some_and(|w| w.contains("not valid JSON")));
        assert_eq!(json_io(Event::PreToolUse, b"[1]", true).0, deny(MALFORMED));
        assert_eq!(
            json_io(Event::SessionStart, b"[1]", true).0,
            Answer::default(),
            "strict denies only what can block"
        );

        assert_eq!(http_body(br#"{"allowed":false}"#), (deny(LEGACY_DENIED), None));
        let (legacy, _) = http_body(br#"{"allowed":false,"reason":"closed"}"#);
        assert_eq!((legacy.block, legacy.reason.as_deref()), (true, Some("closed")));
        assert_eq!(http_body(br#"{"allowed":false,"decision":"allow"}"#).0.label(), "allow", "a decision overrides it");
        let (malformed, why) = http_body(b"<html>");
        assert_eq!((malformed, why.is_some()), (deny(HTTP_MALFORMED), true));
    }
}
