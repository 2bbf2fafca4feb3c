//! Reading a Codex hook's answer as Codex reads it (docs/dialects/codex.md "Answers"), on top of
//! the one tolerant reader ([`crate::response::json`]). Pure: no I/O, no traces.
//!
//! - Exit 2 with something on stderr blocks PreToolUse, UserPromptSubmit, Stop and SubagentStop
//!   and denies PermissionRequest (the trimmed stderr is the reason; stdout is not read), is
//!   feedback for the model on PostToolUse, and a plain failure elsewhere. Exit 2 with a blank
//!   stderr, any other exit, a signal, a timeout or a failure to start are failures: the action
//!   proceeds and the trace says why (Codex is fail-open and has no fail-closed switch).
//! - On exit 0, blank stdout says nothing; otherwise it must be one JSON object that fits the
//!   event's strict schema (Codex's `deny_unknown_fields` structs: an unknown key or a wrong type
//!   anywhere makes the answer a failure). Plain text is context on UserPromptSubmit,
//!   SessionStart and SubagentStart, a failure on Stop and SubagentStop, ignored elsewhere; text
//!   starting with `{` or `[` that does not read is a failure everywhere.
//! - Codex honours few decisions: on PreToolUse a deny with a non-empty reason, a legacy `block`
//!   with a reason, and `allow` together with `updatedInput` (a rewrite, not an approval); `ask`,
//!   a bare `allow` and `approve` are failures.
//! - One exception, oh-hooks' own (docs/envelope.md "Reading answers"): an answer that
//!   clearly denies in the event's own vocabulary — a `block` with a reason, a PreToolUse
//!   `permissionDecision: "deny"` with a reason, a PermissionRequest `behavior: "deny"` — is that
//!   deny whatever else it carries, even where Codex's schema would drop it for an unknown key.
//! - A repeated key reads as its refusing value (a deny among its values wins), never as the
//!   last one, and output past `maxOutputBytes` on an event the hook can refuse blocks.

use crate::dialect::{Answer, Raw};
use crate::event::Event;
use crate::response::json::{self, Kind, Obj, Val};
use crate::response::Permission;
use serde_json::Value;

/// One Codex hook's answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CodexAnswer {
    /// PreToolUse and UserPromptSubmit: refused; Stop and SubagentStop: do not stop yet.
    pub block: bool,
    /// PermissionRequest's allow or deny; `Deny` also on a PreToolUse block.
    pub permission: Option<Permission>,
    /// Why it blocked or denied (the next prompt, on Stop and SubagentStop).
    pub reason: Option<String>,
    /// PostToolUse: text for the model about the call that ran.
    pub feedback: Option<String>,
    pub context: Option<String>,
    /// PreToolUse `allow` + `updatedInput`, in Codex's tool fields.
    pub updated_input: Option<Value>,
    /// `continue: false` where Codex honours it: its `stopReason` (empty when none).
    pub stop: Option<String>,
    pub system_message: Option<String>,
    /// Why Codex would record this hook as failed (the action proceeds).
    pub failure: Option<String>,
}

impl CodexAnswer {
    /// In the engine's terms: a PermissionRequest deny blocks (it ends the walk); feedback on
    /// PostToolUse is the outcome's `reason`.
    pub fn into_answer(self) -> Answer {
        Answer {
            block: self.block || self.permission == Some(Permission::Deny),
            permission: self.permission,
            reason: self.reason.or(self.feedback),
            context: self.context,
            updated_input: self.updated_input,
            stop: self.stop,
            system_message: self.system_message,
            failure: self.failure,
            ..Answer::default()
        }
    }

    /// The trace's `result`.
    pub fn label(&self) -> &'static str {
        match (self.block, self.permission) {
            (true, _) | (_, Some(Permission::Deny)) => "deny",
            (_, Some(p)) => p.as_str(),
            _ => "none",
        }
    }

    fn failed(why: impl Into<String>) -> CodexAnswer {
        CodexAnswer { failure: Some(why.into()), ..CodexAnswer::default() }
    }

    fn blocks(event: Event, reason: String) -> CodexAnswer {
        let mut a = CodexAnswer { reason: Some(reason), ..CodexAnswer::default() };
        match event {
            Event::PermissionRequest => a.permission = Some(Permission::Deny),
            Event::PreToolUse => {
                a.block = true;
                a.permission = Some(Permission::Deny);
            }
            _ => a.block = true,
        }
        a
    }
}

/// The events where exit 2 with stderr blocks (or denies).
fn exit2_blocks(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse | Event::PermissionRequest | Event::UserPromptSubmit | Event::TurnStop | Event::SubagentStop
    )
}

/// Where plain text on stdout is context for the model.
fn text_is_context(event: Event) -> bool {
    matches!(event, Event::UserPromptSubmit | Event::SessionStart | Event::SubagentStart)
}

fn trimmed(bytes: &[u8]) -> Option<String> {
    let t = json::text(bytes);
    let t = t.trim();
    (!t.is_empty()).then(|| t.to_string())
}

pub fn read(event: Event, ran: &Raw) -> CodexAnswer {
    let code = match (&ran.failed, ran.exit) {
        // Size never decides: an answer too large to read may have been a deny. (On a
        // non-zero exit Codex reads no stdout at all; exit 2 reads stderr.)
        (None, Some(0)) if ran.overflow => {
            let why = format!("stdout exceeded maxOutputBytes ({} bytes)", ran.max_output_bytes);
            if !matches!(event, Event::PreToolUse | Event::PermissionRequest | Event::UserPromptSubmit) {
                return CodexAnswer::failed(why);
            }
            let mut a = CodexAnswer::blocks(
                event,
                format!("Codex hook `{}`: {why}; its answer was not read, so it blocks", ran.name),
            );
            a.failure = Some(why);
            return a;
        }
        (Some(why), _) => return CodexAnswer::failed(why.clone()),
        (None, None) => return CodexAnswer::failed("the hook did not finish"),
        (None, Some(code)) => code,
    };
    if code == 2 {
        let Some(stderr) = trimmed(ran.stderr) else {
            return CodexAnswer::failed("exit 2 with nothing on stderr (Codex blocks only with a reason on stderr)");
        };
        return match event {
            _ if exit2_blocks(event) => CodexAnswer::blocks(event, stderr),
            Event::PostToolUse => CodexAnswer { feedback: Some(stderr), ..CodexAnswer::default() },
            _ => CodexAnswer::failed(format!(
                "exit 2 does not block {}: {}",
                super::name_of(event).unwrap_or(event.name()),
                first_line(&stderr)
            )),
        };
    }
    if code != 0 {
        let why = match trimmed(ran.stderr) {
            Some(s) => format!("exited with status {code}: {}", first_line(&s)),
            None => format!("exited with status {code}"),
        };
        return CodexAnswer::failed(why);
    }
    let text = json::text(ran.stdout);
    let t = text.trim();
    if t.is_empty() {
        return CodexAnswer::default();
    }
    match json::object(t) {
        Ok(obj) => read_object(event, &obj),
        Err(_) if matches!(event, Event::TurnStop | Event::SubagentStop) => {
            CodexAnswer::failed("invalid stop hook JSON output (Codex reads only a JSON object here)")
        }
        Err(e) if t.starts_with('{') || t.starts_with('[') => CodexAnswer::failed(match e {
            json::NotAnObject::Invalid(e) => format!("stdout looks like JSON but does not parse ({e})"),
            json::NotAnObject::OtherValue => "stdout is JSON but not an object".to_string(),
        }),
        Err(_) if text_is_context(event) => CodexAnswer { context: Some(t.to_string()), ..CodexAnswer::default() },
        Err(_) => CodexAnswer::default(),
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// What refuses among the repeated values of each key (docs/envelope.md "Reading answers").
fn refusing(key: &str) -> fn(Val) -> bool {
    match key {
        "decision" => |v| {
            v.is("block")
                || v.as_object().is_some_and(|d| d.get_by("behavior", |b| b.is("deny")).is_some_and(|b| b.is("deny")))
        },
        "behavior" | "permissionDecision" => |v| v.is("deny"),
        "continue" => |v| v.as_bool() == Some(false),
        "hookSpecificOutput" => |v| {
            v.as_object().is_some_and(|h| {
                get(&h, "permissionDecision").is_some_and(|p| p.is("deny"))
                    || get(&h, "decision").is_some_and(|d| refusing("decision")(d))
            })
        },
        _ => |_| false,
    }
}

/// A key's value (`null` is absent), the refusing one of a repeated key.
fn get<'a>(obj: &Obj<'a>, key: &str) -> Option<Val<'a>> {
    obj.get_by(key, refusing(key)).filter(|v| !v.is_null())
}

/// A non-blank string, trimmed (Codex's "non-empty reason").
fn reason(v: Option<Val>) -> Option<String> {
    let s = v?.as_str()?;
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

fn read_object(event: Event, obj: &Obj) -> CodexAnswer {
    let clear = clear_deny(event, obj);
    let read = schema(event, obj).and_then(|()| interpret(event, obj));
    match (read, clear) {
        (Ok(a), Some(_)) if a.block || a.permission == Some(Permission::Deny) => a,
        (_, Some(deny)) => deny,
        (Ok(a), None) => a,
        (Err(why), None) => {
            // Codex shows `systemMessage` whenever the JSON fits the schema, even when the
            // answer is then refused for what it says.
            let mut a = CodexAnswer::failed(why);
            if schema(event, obj).is_ok() {
                a.system_message = reason(get(obj, "systemMessage"));
            }
            a
        }
    }
}

/// An answer that refuses in the event's own vocabulary, with its reason, whatever else it
/// carries (schema or not).
fn clear_deny(event: Event, obj: &Obj) -> Option<CodexAnswer> {
    let hso = get(obj, "hookSpecificOutput").and_then(Val::as_object);
    let block = || get(obj, "decision").filter(|d| d.is("block")).and_then(|_| reason(get(obj, "reason")));
    match event {
        Event::PreToolUse => {
            let deny = hso.as_ref().and_then(|h| {
                get(h, "permissionDecision")
                    .filter(|p| p.is("deny"))
                    .and_then(|_| reason(get(h, "permissionDecisionReason")))
            });
            deny.or_else(block).map(|r| CodexAnswer::blocks(event, r))
        }
        Event::PermissionRequest => {
            let d = hso.as_ref().and_then(|h| get(h, "decision")).and_then(Val::as_object)?;
            get(&d, "behavior").filter(|b| b.is("deny"))?;
            Some(CodexAnswer::blocks(event, deny_message(&d)))
        }
        Event::UserPromptSubmit | Event::TurnStop | Event::SubagentStop => {
            block().map(|r| CodexAnswer::blocks(event, r))
        }
        _ => None,
    }
}

fn deny_message(d: &Obj) -> String {
    reason(get(d, "message")).unwrap_or_else(|| "PermissionRequest hook denied approval".to_string())
}

/// The keys each event's answer may have (Codex's `deny_unknown_fields` wires).
fn top_keys(event: Event) -> &'static [&'static str] {
    match event {
        Event::PreToolUse | Event::PostToolUse | Event::UserPromptSubmit => {
            &["decision", "reason", "hookSpecificOutput"]
        }
        Event::TurnStop | Event::SubagentStop => &["decision", "reason"],
        Event::PermissionRequest | Event::SessionStart | Event::SubagentStart => &["hookSpecificOutput"],
        _ => &[],
    }
}

fn hso_keys(event: Event) -> &'static [&'static str] {
    match event {
        Event::PreToolUse => {
            &["hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"]
        }
        Event::PermissionRequest => &["hookEventName", "decision"],
        Event::PostToolUse => &["hookEventName", "additionalContext", "updatedMCPToolOutput"],
        _ => &["hookEventName", "additionalContext"],
    }
}

const UNIVERSAL: &[&str] = &["continue", "stopReason", "suppressOutput", "systemMessage"];

/// Codex's strict schema: every key known to the event, every value of the right type.
fn schema(event: Event, obj: &Obj) -> Result<(), String> {
    let top = top_keys(event);
    for (key, _) in obj.entries() {
        if !UNIVERSAL.contains(&key) && !top.contains(&key) {
            return Err(format!(
                "`{key}` is not a key Codex accepts in a {} answer",
                super::name_of(event).unwrap_or(event.name())
            ));
        }
    }
    // `continue` and `suppressOutput` are plain booleans in Codex (null refused); the strings
    // may be null.
    for (key, want, nullable) in [
        ("continue", Kind::Bool, false),
        ("suppressOutput", Kind::Bool, false),
        ("stopReason", Kind::String, true),
        ("systemMessage", Kind::String, true),
        ("reason", Kind::String, true),
    ] {
        typed(obj, key, want, nullable, "")?;
    }
    if let Some(d) = get(obj, "decision") {
        let ok = match event {
            Event::PreToolUse => d.is("approve") || d.is("block"),
            _ => d.is("block"),
        };
        if !ok {
            return Err(format!("`decision` is {}, which Codex does not accept here", d.raw()));
        }
    }
    let Some(hso) = get(obj, "hookSpecificOutput") else { return Ok(()) };
    let Some(h) = hso.as_object() else {
        return Err(format!("`hookSpecificOutput` is {}, expected an object", hso.kind().describe()));
    };
    let keys = hso_keys(event);
    for (key, _) in h.entries() {
        if !keys.contains(&key) {
            return Err(format!("`hookSpecificOutput.{key}` is not a key Codex accepts on this event"));
        }
    }
    match get(&h, "hookEventName") {
        Some(n) if super::EVENTS.iter().any(|(name, _)| n.is(name)) => {}
        Some(n) => return Err(format!("`hookSpecificOutput.hookEventName` is {}, not a Codex event", n.raw())),
        None => return Err("`hookSpecificOutput` has no `hookEventName`".to_string()),
    }
    typed(&h, "additionalContext", Kind::String, true, "hookSpecificOutput.")?;
    typed(&h, "permissionDecisionReason", Kind::String, true, "hookSpecificOutput.")?;
    if let Some(p) = get(&h, "permissionDecision") {
        if !["allow", "deny", "ask"].iter().any(|d| p.is(d)) {
            return Err(format!("`hookSpecificOutput.permissionDecision` is {}, expected allow, deny or ask", p.raw()));
        }
    }
    if event == Event::PermissionRequest {
        if let Some(d) = get(&h, "decision") {
            let Some(d) = d.as_object() else {
                return Err(format!("`hookSpecificOutput.decision` is {}, expected an object", d.kind().describe()));
            };
            for (key, _) in d.entries() {
                if !["behavior", "message", "updatedInput", "updatedPermissions", "interrupt"].contains(&key) {
                    return Err(format!("`hookSpecificOutput.decision.{key}` is not a key Codex accepts"));
                }
            }
            match get(&d, "behavior") {
                Some(b) if b.is("allow") || b.is("deny") => {}
                _ => return Err("`hookSpecificOutput.decision.behavior` must be \"allow\" or \"deny\"".to_string()),
            }
            typed(&d, "message", Kind::String, true, "hookSpecificOutput.decision.")?;
            typed(&d, "interrupt", Kind::Bool, false, "hookSpecificOutput.decision.")?;
        }
    }
    Ok(())
}

fn typed(obj: &Obj, key: &str, want: Kind, nullable: bool, at: &str) -> Result<(), String> {
    // A repeated key is typed when one of its values is: a repeat cannot fail a deny open.
    match obj.get_by(key, |v| v.kind() == want) {
        None => Ok(()),
        Some(v) if v.kind() == want || (nullable && v.is_null()) => Ok(()),
        Some(v) => Err(format!("`{at}{key}` is {}, expected {}", v.kind().describe(), want.describe())),
    }
}

/// What a schema-valid answer means to Codex; `Err`: Codex refuses it (a failed hook).
fn interpret(event: Event, obj: &Obj) -> Result<CodexAnswer, String> {
    let hso = get(obj, "hookSpecificOutput").and_then(Val::as_object);
    let from_hso = |key: &str| hso.as_ref().and_then(|h| get(h, key));
    let mut a = CodexAnswer {
        system_message: reason(get(obj, "systemMessage")),
        context: from_hso("additionalContext").and_then(Val::text),
        ..CodexAnswer::default()
    };
    let stops = get(obj, "continue").and_then(Val::as_bool) == Some(false);
    let stop_reason = get(obj, "stopReason").and_then(Val::text);
    let suppress = get(obj, "suppressOutput").and_then(Val::as_bool) == Some(true);
    let decision = get(obj, "decision");
    let block = decision.is_some_and(|d| d.is("block"));
    let why = reason(get(obj, "reason"));
    let unsupported = |what: &str| {
        Err(format!(
            "unsupported {what} on {} (Codex fails the hook; the action proceeds)",
            super::name_of(event).unwrap_or(event.name())
        ))
    };
    match event {
        Event::PreToolUse => {
            if stops {
                return unsupported("`continue: false`");
            }
            if get(obj, "stopReason").is_some() {
                return unsupported("`stopReason`");
            }
            if suppress {
                return unsupported("`suppressOutput: true`");
            }
            let pd = from_hso("permissionDecision");
            let pdr = from_hso("permissionDecisionReason");
            let updated = from_hso("updatedInput");
            if pd.is_some() || pdr.is_some() || updated.is_some() {
                match pd {
                    Some(p) if p.is("deny") => match reason(pdr) {
                        Some(r) => return Ok(CodexAnswer { context: a.context, ..CodexAnswer::blocks(event, r) }),
                        None => return unsupported("`permissionDecision: \"deny\"` without a reason"),
                    },
                    Some(p) if p.is("allow") => match updated {
                        Some(u) if u.kind() == Kind::Object => a.updated_input = u.to_value(),
                        Some(_) => return unsupported("`updatedInput` that is not an object"),
                        None => return unsupported("`permissionDecision: \"allow\"` without `updatedInput`"),
                    },
                    Some(_) => return unsupported("`permissionDecision: \"ask\"`"),
                    None if updated.is_some() => {
                        return unsupported("`updatedInput` without `permissionDecision: \"allow\"`")
                    }
                    None => return unsupported("`permissionDecisionReason` without a decision"),
                }
                return Ok(a);
            }
            match decision {
                Some(d) if d.is("approve") => return unsupported("`decision: \"approve\"`"),
                Some(_) => match why {
                    Some(r) => return Ok(CodexAnswer { context: a.context, ..CodexAnswer::blocks(event, r) }),
                    None => return unsupported("`decision: \"block\"` without a reason"),
                },
                None if why.is_some() || get(obj, "reason").is_some() => {
                    return unsupported("`reason` without `decision`")
                }
                None => {}
            }
        }
        Event::PermissionRequest => {
            if stops {
                return unsupported("`continue: false`");
            }
            if get(obj, "stopReason").is_some() {
                return unsupported("`stopReason`");
            }
            if suppress {
                return unsupported("`suppressOutput: true`");
            }
            if let Some(d) = from_hso("decision").and_then(Val::as_object) {
                if get(&d, "updatedInput").is_some() {
                    return unsupported("`decision.updatedInput`");
                }
                if get(&d, "updatedPermissions").is_some() {
                    return unsupported("`decision.updatedPermissions`");
                }
                if get(&d, "interrupt").and_then(Val::as_bool) == Some(true) {
                    return unsupported("`decision.interrupt: true`");
                }
                match get(&d, "behavior") {
                    Some(b) if b.is("deny") => return Ok(CodexAnswer::blocks(event, deny_message(&d))),
                    _ => a.permission = Some(Permission::Allow),
                }
            }
        }
        Event::PostToolUse => {
            if suppress {
                return unsupported("`suppressOutput: true`");
            }
            if from_hso("updatedMCPToolOutput").is_some() {
                return unsupported("`updatedMCPToolOutput`");
            }
            if stops {
                a.stop = Some(stop_reason.unwrap_or_default());
            }
            if block {
                match why {
                    Some(r) => a.feedback = Some(r),
                    None => return unsupported("`decision: \"block\"` without a reason"),
                }
            } else if !stops && get(obj, "reason").is_some() {
                return unsupported("`reason` without `decision`");
            }
        }
        Event::UserPromptSubmit | Event::TurnStop | Event::SubagentStop => {
            if stops {
                a.stop = Some(stop_reason.unwrap_or_default());
            }
            if block {
                match why {
                    Some(r) => {
                        a.block = true;
                        a.reason = Some(r);
                    }
                    None => return unsupported("`decision: \"block\"` without a reason"),
                }
            }
        }
        Event::SessionStart | Event::PreCompact | Event::PostCompact if stops => {
            a.stop = Some(stop_reason.unwrap_or_default());
        }
        // SubagentStart ignores `continue: false`.
        _ => {}
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(event: Event, exit: i32, stdout: &str, stderr: &str) -> CodexAnswer {
        read(
            event,
            &Raw {
                exit: Some(exit),
                stdout: stdout.as_bytes(),
                stderr: stderr.as_bytes(),
                name: "h",
                ..Raw::default()
            },
        )
    }

    fn pre(stdout: &str) -> CodexAnswer {
        answer(Event::PreToolUse, 0, stdout, "")
    }

    const DENY: &str = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}"#;

    #[test]
    fn exit_two_needs_stderr_and_depends_on_the_event() {
        let a = answer(Event::PreToolUse, 2, DENY, "  blocked by policy \n");
        assert!(a.block && a.permission == Some(Permission::Deny));
        assert_eq!(a.reason.as_deref(), Some("blocked by policy"), "stderr is the reason; stdout unread");
        let a = answer(Event::PreToolUse, 2, DENY, "  \n");
        assert!(!a.block && a.failure.unwrap().contains("nothing on stderr"), "exit 2 without stderr fails open");
        let a = answer(Event::PermissionRequest, 2, "", "no");
        assert_eq!((a.block, a.permission, a.reason.as_deref()), (false, Some(Permission::Deny), Some("no")));
        for e in [Event::UserPromptSubmit, Event::TurnStop, Event::SubagentStop] {
            assert!(answer(e, 2, "", "why").block, "{e}");
        }
        let a = answer(Event::PostToolUse, 2, "", "look again");
        assert_eq!((a.block, a.feedback.as_deref()), (false, Some("look again")));
        for e in [Event::SessionStart, Event::SubagentStart, Event::PreCompact, Event::PostCompact] {
            let a = answer(e, 2, "", "x");
            assert!(!a.block && a.failure.is_some(), "{e}");
        }
        let a = answer(Event::PreToolUse, 1, DENY, "oops");
        assert!(!a.block && a.failure.unwrap().contains("status 1: oops"), "stdout unread on other exits");
    }

    #[test]
    fn pre_tool_use_honours_only_deny_block_and_rewrite() {
        let a = pre(DENY);
        assert!(a.block && a.reason.as_deref() == Some("no rm"));
        let a = pre(r#"{"decision":"block","reason":" legacy "}"#);
        assert!(a.block && a.reason.as_deref() == Some("legacy"));
        let a = pre(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}"#,
        );
        assert_eq!((a.block, a.permission, a.failure.as_deref()), (false, None, None), "a rewrite approves nothing");
        assert_eq!(a.updated_input, Some(serde_json::json!({"command": "ls -a"})));
        for (text, why) in [
            (r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#, "ask"),
            (
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
                "without `updatedInput`",
            ),
            (r#"{"decision":"approve"}"#, "approve"),
            (
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"  "}}"#,
                "without a reason",
            ),
            (r#"{"decision":"block"}"#, "without a reason"),
            (r#"{"reason":"x"}"#, "`reason` without `decision`"),
            (r#"{"continue":false}"#, "continue"),
            (r#"{"suppressOutput":true}"#, "suppressOutput"),
            (
                r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{}}}"#,
                "without `permissionDecision",
            ),
        ] {
            let a = pre(text);
            assert!(!a.block && a.permission.is_none() && a.updated_input.is_none(), "{text}");
            assert!(a.failure.as_deref().is_some_and(|f| f.contains(why)), "{text}: {:?}", a.failure);
        }
        let a = pre(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"c"},"systemMessage":"hi"}"#,
        );
        assert_eq!((a.context.as_deref(), a.system_message.as_deref(), a.failure), (Some("c"), Some("hi"), None));
    }

    #[test]
    fn strict_schema_drops_unknown_keys_and_wrong_types() {
        for text in [
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"c"},"note":1}"#,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"c","extra":1}}"#,
            r#"{"hookSpecificOutput":{"additionalContext":"c"}}"#,
            r#"{"hookSpecificOutput":{"hookEventName":"Nope","additionalContext":"c"}}"#,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":5}}"#,
            r#"{"continue":null}"#,
            r#"{"systemMessage":5}"#,
            r#"{"hookSpecificOutput":"x"}"#,
        ] {
            let a = pre(text);
            assert!(a.failure.is_some() && a.context.is_none(), "{text}");
        }
        let a = answer(Event::TurnStop, 0, r#"{"decision":"approve"}"#, "");
        assert!(a.failure.is_some(), "approve is not a Stop answer");
        let a = answer(Event::TurnStop, 0, r#"{"continue":false,"stopReason":null,"systemMessage":null}"#, "");
        assert_eq!((a.stop.as_deref(), a.failure), (Some(""), None), "null strings are absent");
        // hookEventName is any Codex event, not compared with the one that fired.
        assert_eq!(
            pre(r#"{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"c"}}"#).context.as_deref(),
            Some("c")
        );
    }

    #[test]
    fn an_answer_that_clearly_denies_is_a_deny_whatever_else_it_carries() {
        let a = pre(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","debug":{"x":1}},"note":"y"}"#,
        );
        assert!(a.block && a.reason.as_deref() == Some("no"), "unknown keys: Codex drops it, oh-hooks denies");
        let a = pre(
            r#"{"decision":"block","reason":"no","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"rm -rf /"}}}"#,
        );
        assert!(a.block && a.updated_input.is_none(), "a block beside a rewrite is a block");
        let a = answer(
            Event::PermissionRequest,
            0,
            r#"{"hookSpecificOutput":{"decision":{"behavior":"deny","extra":1}}}"#,
            "",
        );
        assert_eq!(
            (a.permission, a.reason.as_deref()),
            (Some(Permission::Deny), Some("PermissionRequest hook denied approval"))
        );
        for e in [Event::UserPromptSubmit, Event::TurnStop, Event::SubagentStop] {
            assert!(answer(e, 0, r#"{"decision":"block","reason":"r","x":1}"#, "").block, "{e}");
        }
        // Repeated keys: the deny among the values wins.
        let a = pre(r#"{"decision":"block","reason":"first","decision":"approve"}"#);
        assert!(a.block);
        let a = pre(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r"},"hookSpecificOutput":null}"#,
        );
        assert!(a.block);
        let a = pre(&format!("\u{feff}{DENY}"));
        assert!(a.block, "a BOM");
        let a = pre(
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"r\ud800"},"n":1e999}"#,
        );
        assert!(a.block, "a lone surrogate and a huge number");
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(pre(&format!(r#"{{"decision":"block","reason":"deep","x":{deep}}}"#)).block, "any depth");
        let bad = read(
            Event::PreToolUse,
            &Raw {
                exit: Some(0),
                stdout: b"{\"decision\":\"block\",\"reason\":\"cut \xff\"}",
                name: "h",
                ..Raw::default()
            },
        );
        assert!(bad.block, "invalid UTF-8");
    }

    #[test]
    fn plain_text_and_broken_json() {
        assert_eq!(answer(Event::UserPromptSubmit, 0, "ctx\n", "").context.as_deref(), Some("ctx"));
        assert_eq!(answer(Event::SessionStart, 0, "ctx", "").context.as_deref(), Some("ctx"));
        assert_eq!(answer(Event::SubagentStart, 0, "ctx", "").context.as_deref(), Some("ctx"));
        let a = pre("ctx");
        assert!(a.context.is_none() && a.failure.is_none(), "ignored");
        assert!(answer(Event::TurnStop, 0, "done", "").failure.is_some(), "plain text on Stop fails");
        assert!(pre("{broken").failure.unwrap().contains("does not parse"));
        assert!(answer(Event::UserPromptSubmit, 0, "[1]", "").failure.is_some());
        assert_eq!(answer(Event::UserPromptSubmit, 0, "123", "").context.as_deref(), Some("123"));
        assert_eq!(pre("  \n"), CodexAnswer::default());
    }

    #[test]
    fn other_events() {
        let a = answer(
            Event::PermissionRequest,
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#,
            "",
        );
        assert_eq!(a.permission, Some(Permission::Allow));
        let a = answer(
            Event::PermissionRequest,
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":" m "}}}"#,
            "",
        );
        assert_eq!((a.permission, a.reason.as_deref()), (Some(Permission::Deny), Some("m")));
        let a = answer(
            Event::PermissionRequest,
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{}}}}"#,
            "",
        );
        assert!(a.permission.is_none() && a.failure.is_some());
        let a = answer(
            Event::PostToolUse,
            0,
            r#"{"decision":"block","reason":"tests failed","continue":false,"stopReason":"halt"}"#,
            "",
        );
        assert_eq!((a.feedback.as_deref(), a.stop.as_deref(), a.block), (Some("tests failed"), Some("halt"), false));
        let a = answer(Event::TurnStop, 0, r#"{"decision":"block","reason":"run the tests"}"#, "");
        assert!(a.block && a.reason.as_deref() == Some("run the tests"));
        let a = answer(Event::TurnStop, 0, r#"{"decision":"block","reason":" "}"#, "");
        assert!(!a.block && a.failure.is_some());
        assert_eq!(
            answer(Event::PreCompact, 0, r#"{"continue":false,"stopReason":"no"}"#, "").stop.as_deref(),
            Some("no")
        );
        assert_eq!(answer(Event::SubagentStart, 0, r#"{"continue":false}"#, "").stop, None, "ignored on SubagentStart");
        assert!(answer(Event::PreCompact, 0, r#"{"decision":"block","reason":"x"}"#, "").failure.is_some());
    }

    #[test]
    fn failures_and_overflow() {
        let ran = |failed: Option<&str>, exit: Option<i32>, overflow: bool| Raw {
            exit,
            failed: failed.map(str::to_string),
            overflow,
            max_output_bytes: 10,
            name: "h",
            ..Raw::default()
        };
        let a = read(Event::PreToolUse, &ran(Some("timed out after 1 s"), None, false));
        assert!(!a.block && a.failure.is_some(), "a timeout fails open");
        let a = read(Event::PreToolUse, &ran(None, Some(0), true));
        assert!(
            a.block
                && a.reason
                    .unwrap()
                    .contains("exceeded maxOutputBytes (10 bytes); its answer was not read, so it blocks"),
            "size never decides"
        );
        let a = read(Event::PermissionRequest, &ran(None, Some(0), true));
        assert_eq!(a.permission, Some(Permission::Deny));
        let a = read(Event::TurnStop, &ran(None, Some(0), true));
        assert!(!a.block && a.failure.is_some(), "on Stop a block means keep going: the overflow stays a failure");
        let a = read(Event::PreToolUse, &ran(None, Some(1), true));
        assert!(!a.block, "exit 1: Codex would not read stdout at all");
    }
}
