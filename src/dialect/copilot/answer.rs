//! How a Copilot hook's answer reads and how a step's answers merge (docs/dialects/copilot.md,
//! answers), by Copilot's rules for both casings. Pure: no I/O, no traces.
//!
//! - stdout (or an HTTP body): lines that are each one `{"type": "progress", …}` object are
//!   dropped; the rest is one JSON object, read by the one tolerant reader. Empty, not JSON, or
//!   not one object is no output.
//! - `permissionDecision` allow/deny/ask with `permissionDecisionReason`; `modifiedArgs` (or
//!   `updatedInput`) → `updatedInput`; a `hookSpecificOutput` object's keys count as if top-level.
//! - `permissionRequest`: `behavior`, `message`, `interrupt`; answers merge in order, a later one
//!   overriding an earlier one.
//! - stop events: `decision: "block"` keeps the agent going (`allowed: false` with `reason`).
//! - `additionalContext` of every hook, joined by a blank line; `continue`, `stopReason` and
//!   `systemMessage` mean nothing to Copilot and nothing here.
//! - Failures: a command hook on `preToolUse` that exits non-zero, crashes or cannot start
//!   denies, whatever its stdout says; exit 2 denies on `preToolUse` and `permissionRequest`, is
//!   context on `postToolUseFailure` and a warning elsewhere; timeouts, HTTP failures and the
//!   other events let the action through (the trace says why).
//! - Size never decides: an answer past `maxOutputBytes` on `preToolUse` or `permissionRequest`
//!   denies (docs/envelope.md "Size never decides").

use crate::dialect::{Answer, Decision, Raw as Ran};
use crate::event::Event;
use crate::response::json::{self, Obj, Val};
use crate::response::Permission;
use serde_json::{Map, Value};

/// One Copilot hook's answer, in Copilot's terms ([`Read::into_answer`] gives the outcome's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Read {
    /// allow / deny / ask (`preToolUse`), allow / deny (`permissionRequest`'s `behavior`).
    pub permission: Option<Permission>,
    /// A stop event's `decision: "block"`: do not stop; continue with `reason`.
    pub block: bool,
    pub reason: Option<String>,
    /// `permissionRequest`'s `message` (to the model with a deny).
    pub message: Option<String>,
    pub interrupt: Option<bool>,
    pub context: Option<String>,
    /// `modifiedArgs`, with Copilot's field names.
    pub modified_args: Option<Value>,
    /// Keys with no 1.1 equivalent: `modifiedResult`, `modifiedResponse`,
    /// `modifiedTransformedPrompt`, `mcpMeta`.
    pub extra: Map<String, Value>,
    /// Why this answer was a failure (the action went through unless it denies).
    pub failure: Option<String>,
}

impl Read {
    pub fn denies(&self) -> bool {
        self.permission == Some(Permission::Deny)
    }

    /// In the outcome's terms: a deny blocks; `permissionRequest`'s `message` is the reason;
    /// `modifiedArgs` is the rewrite (still under Copilot's field names: the engine renames it
    /// back through [`crate::dialect::Dialect::to_host_input`]).
    pub fn into_answer(self) -> Answer {
        Answer {
            block: self.block || self.denies(),
            permission: self.permission,
            reason: self.message.or(self.reason),
            context: self.context,
            updated_input: self.modified_args,
            interrupt: self.interrupt == Some(true),
            failure: self.failure,
            extra: self.extra,
            ..Answer::default()
        }
    }
}

/// Whether an answer is a command hook's (its failures deny on `preToolUse`) or an HTTP hook's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Command,
    Http,
}

fn trimmed(bytes: &[u8]) -> Option<String> {
    let text = json::text(bytes);
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

fn first_line(bytes: &[u8]) -> String {
    trimmed(bytes).map(|s| s.lines().next().unwrap_or("").to_string()).map(|l| format!(": {l}")).unwrap_or_default()
}

fn failure(why: String) -> Read {
    Read { failure: Some(why), ..Read::default() }
}

/// A deny that Copilot's failure policy (or the size rule) makes.
fn denied(why: String, reason: String) -> Read {
    Read { permission: Some(Permission::Deny), reason: Some(reason), failure: Some(why), ..Read::default() }
}

pub fn read(event: Event, via: Via, ran: &Ran) -> Read {
    let mut read = read_inner(event, via, ran);
    // Every deny has a reason: the hook's own, else one naming it.
    if read.denies() && read.reason.is_none() && read.message.is_none() {
        let how = match ran.exit {
            Some(2) => " (exit 2)",
            _ => "",
        };
        read.reason = Some(format!(
            "Denied by {} hook `{}`{how}",
            super::name_of(event, super::Mode::Camel).unwrap_or(event.name()),
            ran.name
        ));
    }
    read
}

fn read_inner(event: Event, via: Via, ran: &Ran) -> Read {
    let errored =
        |why: &str| denied(why.to_string(), format!("Denied by preToolUse hook `{}` (hook errored: {why})", ran.name));
    if ran.overflow {
        let why = ran.failed.clone().unwrap_or_else(|| {
            format!("the answer exceeded maxOutputBytes ({} bytes) and was not read", ran.max_output_bytes)
        });
        if matches!(event, Event::PreToolUse | Event::PermissionRequest) {
            // Size never decides: an answer too large to read may have been a deny.
            return denied(why.clone(), format!("Copilot hook `{}`: {why}, so it denies", ran.name));
        }
        // Elsewhere (a stop event included, where a block means "keep going") it is a failure.
        return failure(why);
    }
    if let Some(why) = &ran.failed {
        if ran.timed_out || via == Via::Http || event != Event::PreToolUse {
            return failure(why.clone());
        }
        // A command hook on preToolUse that cannot start or crashed: fail closed, as Copilot.
        return errored(why);
    }
    let Some(code) = ran.exit else {
        return if event == Event::PreToolUse && via == Via::Command {
            errored("the hook did not finish")
        } else {
            failure("the hook did not finish".to_string())
        };
    };
    let parsed = stdout_body(ran.stdout);
    match (code, event) {
        (0, _) => match parsed {
            Ok(Some(body)) => interpret_body(event, &body),
            Ok(None) => Read::default(),
            Err(why) => failure(why),
        },
        (2, Event::PreToolUse) => {
            // A deny; the JSON's reason is kept, its allow and rewrite are not.
            let json = parsed.ok().flatten().map(|b| interpret_body(event, &b)).unwrap_or_default();
            Read {
                permission: Some(Permission::Deny),
                reason: Some(
                    json.reason
                        .or_else(|| trimmed(ran.stderr))
                        .unwrap_or_else(|| format!("Denied by preToolUse hook `{}` (exit 2)", ran.name)),
                ),
                context: json.context,
                ..Read::default()
            }
        }
        (2, Event::PermissionRequest) => {
            // stdout's JSON merged with `{"behavior": "deny"}`; stderr is not read.
            let json = parsed.ok().flatten().map(|b| interpret_body(event, &b)).unwrap_or_default();
            Read {
                permission: Some(Permission::Deny),
                message: json.message,
                interrupt: json.interrupt,
                ..Read::default()
            }
        }
        (2, Event::PostToolUseFailure) => {
            let context = match parsed {
                Ok(Some(body)) => interpret_body(event, &body).context,
                _ => trimmed(ran.stdout),
            };
            Read { context, ..Read::default() }
        }
        (_, Event::PreToolUse) if via == Via::Command => {
            errored(&format!("exit code {code}{}", first_line(ran.stderr)))
        }
        (2, _) => failure(format!("exit code 2 (warning; Copilot reads no output then){}", first_line(ran.stderr))),
        _ => failure(format!("exit code {code}{}", first_line(ran.stderr))),
    }
}

/// Copilot's stdout rule: progress lines out, the rest one JSON object (the text of it).
/// `Ok(None)`: no output.
fn stdout_body(stdout: &[u8]) -> Result<Option<String>, String> {
    let text = json::text(stdout);
    let kept: Vec<&str> = text.lines().filter(|line| !is_progress(line)).collect();
    let joined = kept.join("\n");
    let body = joined.trim();
    if body.is_empty() {
        return Ok(None);
    }
    match json::object(body) {
        Ok(_) => Ok(Some(body.to_string())),
        Err(json::NotAnObject::OtherValue) => Err("stdout is JSON but not an object: no output".to_string()),
        Err(json::NotAnObject::Invalid(e)) => Err(format!("stdout is not one JSON object ({e}): no output")),
    }
}

/// [`interpret`] of a body [`stdout_body`] accepted.
fn interpret_body(event: Event, body: &str) -> Read {
    json::object(body).map(|obj| interpret(event, &obj)).unwrap_or_default()
}

fn is_progress(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('{') && json::object(t).is_ok_and(|o| o.get("type").is_some_and(|v| v.is("progress")))
}

/// What refuses among repeated values of a key: a repeated key never turns a deny into an
/// allow or into nothing (docs/envelope.md "Reading answers").
fn refusing(key: &str) -> fn(Val) -> bool {
    match key {
        "permissionDecision" => |v| v.is("deny"),
        "behavior" => |v| v.is("deny"),
        "decision" => |v| v.is("block"),
        "interrupt" => |v| v.as_bool() == Some(true),
        "hookSpecificOutput" => |v| {
            v.as_object()
                .is_some_and(|h| h.get_by("permissionDecision", |p| p.is("deny")).is_some_and(|p| p.is("deny")))
        },
        _ => |_| false,
    }
}

fn get<'a>(map: &Obj<'a>, key: &str) -> Option<Val<'a>> {
    map.get_by(key, refusing(key)).filter(|v| !v.is_null())
}

fn interpret(event: Event, obj: &Obj) -> Read {
    let hso = get(obj, "hookSpecificOutput").and_then(Val::as_object);
    // A key at the top level, else in `hookSpecificOutput` (whose `hookEventName` Copilot does
    // not check).
    let key = |k: &str| get(obj, k).or_else(|| hso.as_ref().and_then(|h| get(h, k)));
    let text = |k: &str| key(k).and_then(Val::text);
    let mut a = Read { context: text("additionalContext"), ..Read::default() };
    let mut ignored = Vec::new();
    match event {
        Event::PreToolUse => {
            // A deny in either place is a deny.
            let hso_deny = hso.as_ref().and_then(|h| get(h, "permissionDecision")).is_some_and(|p| p.is("deny"));
            match key("permissionDecision") {
                _ if hso_deny => a.permission = Some(Permission::Deny),
                Some(p) if p.is("deny") => a.permission = Some(Permission::Deny),
                Some(p) if p.is("allow") => a.permission = Some(Permission::Allow),
                Some(p) if p.is("ask") => a.permission = Some(Permission::Ask),
                Some(p) => ignored.push(format!("`permissionDecision` {} is not allow, deny or ask", p.raw())),
                None => {}
            }
            a.reason = text("permissionDecisionReason");
            let args = key("modifiedArgs").or_else(|| key("updatedInput"));
            match args {
                Some(v) if v.kind() == json::Kind::Object => a.modified_args = v.to_value(),
                Some(v) => ignored.push(format!("`modifiedArgs` is {}, expected an object", v.kind().describe())),
                None => {}
            }
            if a.denies() {
                a.modified_args = None;
            }
        }
        Event::PermissionRequest => {
            match get(obj, "behavior") {
                Some(b) if b.is("deny") => a.permission = Some(Permission::Deny),
                Some(b) if b.is("allow") => a.permission = Some(Permission::Allow),
                Some(b) => ignored.push(format!("`behavior` {} is not allow or deny", b.raw())),
                None => {}
            }
            a.message = get(obj, "message").and_then(Val::text);
            a.interrupt = get(obj, "interrupt").and_then(Val::as_bool);
        }
        Event::TurnStop | Event::SubagentStop => {
            if get(obj, "decision").is_some_and(|d| d.is("block")) {
                let reason = get(obj, "reason").and_then(Val::text);
                if event == Event::SubagentStop && reason.is_none() {
                    ignored.push("a subagentStop block needs a non-empty `reason`".to_string());
                } else {
                    a.block = true;
                    a.reason = reason;
                }
            }
            if event == Event::SubagentStop {
                if let Some(v) = get(obj, "modifiedResponse").filter(|v| v.kind() == json::Kind::String) {
                    a.extra.insert("modifiedResponse".into(), v.to_value().unwrap_or(Value::Null));
                }
            }
            // Copilot reads no context on a stop event.
            a.context = None;
        }
        Event::PostToolUse => {
            if let Some(v) = get(obj, "modifiedResult").filter(|v| v.kind() == json::Kind::Object) {
                a.extra.insert("modifiedResult".into(), v.to_value().unwrap_or(Value::Null));
            }
        }
        Event::UserPromptTransformed => {
            if let Some(p) = get(obj, "modifiedTransformedPrompt").and_then(Val::text) {
                a.extra.insert("modifiedTransformedPrompt".into(), Value::String(p));
            }
        }
        Event::PreMcpToolCall => {
            // An object replaces the request's `_meta`; null removes it.
            if let Some(v) = obj.get("metaToUse") {
                if v.is_null() || v.kind() == json::Kind::Object {
                    a.extra.insert("mcpMeta".into(), v.to_value().unwrap_or(Value::Null));
                }
            }
        }
        _ => {}
    }
    if !reads_context(event) {
        a.context = None;
    }
    if !ignored.is_empty() {
        a.failure = Some(format!("ignored: {}", ignored.join("; ")));
    }
    a
}

/// The events whose `additionalContext` Copilot uses.
fn reads_context(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse
            | Event::PostToolUse
            | Event::PostToolUseFailure
            | Event::SessionStart
            | Event::SubagentStart
            | Event::Notification
            | Event::UserPromptSubmit
    )
}

/// Combines one step's answers (the hooks of one layer kind, in configuration order).
pub fn merge(event: Event, answers: &[Answer]) -> Decision {
    let mut d = Decision { stop_ends_walk: false, ..Decision::default() };
    let contexts: Vec<&str> = answers.iter().filter_map(|a| a.context.as_deref()).filter(|c| !c.is_empty()).collect();
    // Copilot joins them with a blank line; the walk then keeps this step's as one.
    if !contexts.is_empty() {
        d.contexts.push(contexts.join("\n\n"));
    }
    for a in answers {
        for (k, v) in &a.extra {
            d.extra.insert(k.clone(), v.clone());
        }
    }
    match event {
        Event::PermissionRequest => {
            // Merged in order, a later answer's key overriding an earlier one's.
            let (mut behavior, mut message, mut interrupt) = (None, None, false);
            for a in answers {
                if a.permission.is_some() {
                    behavior = a.permission;
                    interrupt = a.interrupt;
                }
                message = a.reason.clone().or(message);
            }
            d.permission = behavior;
            if behavior == Some(Permission::Deny) {
                d.block = true;
                d.reason = message;
                d.interrupt = interrupt;
            }
        }
        Event::TurnStop | Event::SubagentStop => {
            if let Some(first) = answers.iter().find(|a| a.block) {
                d.block = true;
                d.reason = first.reason.clone();
                d.extra.remove("modifiedResponse");
            }
        }
        _ => {
            // Any deny wins (the first's reason); else ask; else allow.
            for wanted in [Permission::Deny, Permission::Ask, Permission::Allow] {
                if let Some(a) = answers.iter().find(|a| a.permission == Some(wanted)) {
                    d.permission = Some(wanted);
                    d.reason = a.reason.clone();
                    break;
                }
            }
            if d.permission == Some(Permission::Deny) {
                d.block = true;
            } else {
                d.updated_input = answers.iter().rev().find_map(|a| a.updated_input.clone());
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran<'a>(exit: i32, stdout: &'a str, stderr: &'a str) -> Ran<'a> {
        Ran { exit: Some(exit), stdout: stdout.as_bytes(), stderr: stderr.as_bytes(), name: "h", ..Ran::default() }
    }

    fn cmd(event: Event, exit: i32, stdout: &str, stderr: &str) -> Read {
        read(event, Via::Command, &ran(exit, stdout, stderr))
    }

    fn ans(event: Event, exit: i32, stdout: &str) -> Answer {
        cmd(event, exit, stdout, "").into_answer()
    }

    #[test]
    fn pre_tool_use_answers() {
        let a = cmd(Event::PreToolUse, 0, r#"{"permissionDecision":"deny","permissionDecisionReason":"no rm"}"#, "");
        assert_eq!((a.permission, a.reason.as_deref()), (Some(Permission::Deny), Some("no rm")));
        let a = cmd(
            Event::PreToolUse,
            0,
            r#"{"permissionDecision":"allow","modifiedArgs":{"command":"ls -a"},"additionalContext":"c"}"#,
            "",
        );
        assert_eq!(a.permission, Some(Permission::Allow));
        assert_eq!(a.modified_args, Some(serde_json::json!({"command": "ls -a"})));
        assert_eq!(a.context.as_deref(), Some("c"));
        let a = cmd(Event::PreToolUse, 0, r#"{"permissionDecision":"ask"}"#, "");
        assert_eq!(a.permission, Some(Permission::Ask));
        let a = cmd(
            Event::PreToolUse,
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"Whatever","permissionDecision":"deny","permissionDecisionReason":"hso"}}"#,
            "",
        );
        assert_eq!((a.permission, a.reason.as_deref()), (Some(Permission::Deny), Some("hso")));
        let a = cmd(
            Event::PreToolUse,
            0,
            r#"{"permissionDecision":"allow","hookSpecificOutput":{"permissionDecision":"deny"}}"#,
            "",
        );
        assert!(a.denies(), "a deny in either place denies");
        let a = cmd(Event::PreToolUse, 0, r#"{"permissionDecision":"deny","permissionDecision":"allow"}"#, "");
        assert!(a.denies(), "a repeated key cannot erase a deny");
        for meaningless in
            [r#"{"continue":false,"stopReason":"x"}"#, r#"{"decision":"block"}"#, r#"{"systemMessage":"m"}"#]
        {
            assert_eq!(cmd(Event::PreToolUse, 0, meaningless, ""), Read::default(), "{meaningless}");
        }
    }

    #[test]
    fn stdout_is_one_object_after_progress_lines() {
        let a = cmd(
            Event::PreToolUse,
            0,
            "{\"type\":\"progress\",\"message\":\"checking\"}\n{\"permissionDecision\":\n\"deny\"}\n",
            "",
        );
        assert!(a.denies());
        for none in ["", "  \n", "not json", "[1]", r#"{"permissionDecision":"deny"}{"permissionDecision":"deny"}"#] {
            let a = cmd(Event::PreToolUse, 0, none, "");
            assert_eq!(a.permission, None, "{none:?}: no output");
        }
        assert!(cmd(Event::PreToolUse, 0, "\u{feff}{\"permissionDecision\":\"deny\"}", "").denies(), "BOM");
        assert!(
            cmd(Event::PreToolUse, 0, "{\"permissionDecision\":\"deny\",\"r\":\"\\ud800\",\"n\":1e999}", "").denies()
        );
    }

    #[test]
    fn pre_tool_use_failures_deny() {
        let a = cmd(Event::PreToolUse, 1, r#"{"permissionDecision":"allow"}"#, "boom");
        assert!(a.denies(), "exit 1 denies even when stdout says allow");
        assert!(a.reason.unwrap().contains("hook errored"));
        let a = cmd(Event::PreToolUse, 2, r#"{"permissionDecision":"allow","permissionDecisionReason":"why"}"#, "err");
        assert_eq!((a.permission, a.reason.as_deref()), (Some(Permission::Deny), Some("why")));
        assert_eq!(cmd(Event::PreToolUse, 2, "", "from stderr").reason.as_deref(), Some("from stderr"));
        let killed = Ran { failed: Some("killed by signal 9".into()), name: "h", ..Ran::default() };
        assert!(read(Event::PreToolUse, Via::Command, &killed).denies());
        let no_start = Ran { failed: Some("cannot start: No such file".into()), name: "h", ..Ran::default() };
        assert!(read(Event::PreToolUse, Via::Command, &no_start).denies());
        let timed_out =
            Ran { failed: Some("timed out after 30 s".into()), timed_out: true, name: "h", ..Ran::default() };
        let a = read(Event::PreToolUse, Via::Command, &timed_out);
        assert!(!a.denies() && a.failure.is_some(), "a timeout proceeds");
        let http = Ran { failed: Some("HTTP 500".into()), name: "h", ..Ran::default() };
        assert!(!read(Event::PreToolUse, Via::Http, &http).denies(), "HTTP failures proceed");
        let overflow = Ran { overflow: true, max_output_bytes: 10, name: "h", ..Ran::default() };
        assert!(read(Event::PreToolUse, Via::Http, &overflow).denies(), "size never decides");
        assert!(read(Event::PermissionRequest, Via::Command, &overflow).denies());
        assert!(!read(Event::TurnStop, Via::Command, &overflow).block);
        assert!(!cmd(Event::PostToolUse, 1, "", "").denies());
        assert!(
            cmd(Event::SessionStart, 1, r#"{"additionalContext":"x"}"#, "").context.is_none(),
            "only exit 0 is read"
        );
    }

    #[test]
    fn permission_request() {
        let a = cmd(Event::PermissionRequest, 0, r#"{"behavior":"deny","message":"m","interrupt":true}"#, "");
        assert_eq!((a.permission, a.message.as_deref(), a.interrupt), (Some(Permission::Deny), Some("m"), Some(true)));
        let a = cmd(Event::PermissionRequest, 2, r#"{"behavior":"allow","message":"json"}"#, "stderr");
        assert_eq!((a.permission, a.message.as_deref()), (Some(Permission::Deny), Some("json")));
        let a = cmd(Event::PermissionRequest, 1, r#"{"behavior":"deny"}"#, "");
        assert_eq!(a.permission, None, "other failures: no decision");
        let deny = ans(Event::PermissionRequest, 0, r#"{"behavior":"deny","message":"no"}"#);
        let allow = ans(Event::PermissionRequest, 0, r#"{"behavior":"allow"}"#);
        let d = merge(Event::PermissionRequest, &[deny.clone(), allow.clone()]);
        assert_eq!((d.block, d.permission), (false, Some(Permission::Allow)), "a later answer overrides");
        let d = merge(Event::PermissionRequest, &[allow, deny]);
        assert_eq!((d.block, d.reason.as_deref()), (true, Some("no")));
    }

    #[test]
    fn stop_events() {
        let a = cmd(Event::TurnStop, 0, r#"{"decision":"block","reason":"tests fail"}"#, "");
        assert!(a.block && a.reason.as_deref() == Some("tests fail"));
        let a = cmd(Event::TurnStop, 2, r#"{"decision":"block","reason":"x"}"#, "err");
        assert!(!a.block && a.failure.unwrap().contains("warning"), "exit 2 on a stop event is a warning");
        assert!(!cmd(Event::SubagentStop, 0, r#"{"decision":"block"}"#, "").block, "needs a reason");
        assert!(cmd(Event::TurnStop, 0, r#"{"additionalContext":"x"}"#, "").context.is_none());
        let d = merge(
            Event::TurnStop,
            &[
                Answer::default(),
                ans(Event::TurnStop, 0, r#"{"decision":"block","reason":"first"}"#),
                ans(Event::TurnStop, 0, r#"{"decision":"block","reason":"second"}"#),
            ],
        );
        assert_eq!((d.block, d.reason.as_deref()), (true, Some("first")));
    }

    #[test]
    fn merge_any_deny_wins_contexts_blank_line() {
        let allow = ans(
            Event::PreToolUse,
            0,
            r#"{"permissionDecision":"allow","modifiedArgs":{"a":1},"additionalContext":"one"}"#,
        );
        let ask = ans(
            Event::PreToolUse,
            0,
            r#"{"permissionDecision":"ask","permissionDecisionReason":"hmm","additionalContext":"two"}"#,
        );
        let deny = ans(Event::PreToolUse, 0, r#"{"permissionDecision":"deny","permissionDecisionReason":"no"}"#);
        let d = merge(Event::PreToolUse, &[allow.clone(), ask.clone()]);
        assert_eq!((d.permission, d.reason.as_deref()), (Some(Permission::Ask), Some("hmm")));
        assert_eq!(d.contexts, ["one\n\ntwo"]);
        assert_eq!(d.updated_input, Some(serde_json::json!({"a": 1})));
        let d = merge(Event::PreToolUse, &[allow, deny, ask]);
        assert!(d.block && d.permission == Some(Permission::Deny) && d.updated_input.is_none());
        let ctx = |t: &str| ans(Event::SessionStart, 0, &format!(r#"{{"additionalContext":"{t}"}}"#));
        assert_eq!(merge(Event::SessionStart, &[ctx("a"), ctx(""), ctx("b")]).contexts, ["a\n\nb"]);
    }

    #[test]
    fn extra_keys() {
        let a = cmd(Event::PostToolUse, 0, r#"{"modifiedResult":{"resultType":"success","textResultForLlm":"x"}}"#, "");
        assert_eq!(a.extra["modifiedResult"]["textResultForLlm"], "x");
        let a = cmd(Event::UserPromptTransformed, 0, r#"{"modifiedTransformedPrompt":"p"}"#, "");
        assert_eq!(a.extra["modifiedTransformedPrompt"], "p");
        let a = cmd(Event::PreMcpToolCall, 0, r#"{"metaToUse":null}"#, "");
        assert_eq!(a.extra["mcpMeta"], Value::Null);
        assert!(cmd(Event::PostToolUseFailure, 2, "look here", "").context.as_deref() == Some("look here"));
    }
}
