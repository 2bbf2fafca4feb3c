//! Reading a Claude Code hook's answer exactly as Claude Code does (docs/dialects/claude.md "Claude Code hooks"): exit 2 blocks,
//! JSON on stdout is read on every exit code, `hookSpecificOutput` must name its
//! `hookEventName`, plain stdout is context only where Claude Code makes it context, and every
//! failure lets the action through unless the hook says `onFailure: "block"`.

use super::events::{can_block, name_or_engine};
use crate::dialect::{Answer, Raw, Via};
use crate::event::Event;
use crate::response::json::{self, Kind, Obj, Val};
use crate::response::Permission;

/// Events where plain stdout on exit 0 becomes context (the reference's "Exit code 0").
fn stdout_is_context(event: Event) -> bool {
    matches!(event, Event::UserPromptSubmit | Event::UserPromptExpansion | Event::SessionStart | Event::PostModelSwitch)
}

/// Events where `onFailure: "block"` is ignored (Claude Code: "not blocking").
fn on_failure_ignored(event: Event) -> bool {
    matches!(event, Event::TurnStop | Event::SubagentStop | Event::TaskCompleted | Event::TeammateIdle)
}

fn trimmed_text(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(bytes);
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// A failure: the action proceeds, unless the hook has `onFailure: "block"`.
fn failure(why: String, ran: &Raw, event: Event) -> Answer {
    let mut answer = Answer { failure: Some(why.clone()), ..Answer::default() };
    // Size never decides: an answer too large to read may have been a deny, so where the hook
    // can block (and failures block at all) the overflow blocks (docs/envelope.md "Size never decides").
    if ran.overflow && can_block(event) && !on_failure_ignored(event) {
        answer.block = true;
        answer.permission = matches!(event, Event::PreToolUse | Event::PreModelSwitch | Event::PermissionRequest)
            .then_some(Permission::Deny);
        answer.reason = Some(format!("Claude Code hook `{}`: {why}; its answer was not read, so it blocks", ran.name));
    } else if ran.fail_closed && !on_failure_ignored(event) {
        answer.block = true;
        answer.reason = Some(format!("Claude Code hook `{}` failed ({why}) and has onFailure: \"block\"", ran.name));
    }
    answer
}

/// One answer, whichever way the hook ran: a callback's answer is read by [`read_callback`], an
/// HTTP body must be a JSON object (or empty), an overflowing stdout is a failure unless the hook
/// exited 2 (which blocks whatever stdout holds).
pub fn read_raw(event: Event, raw: &Raw) -> Answer {
    if raw.failed.is_none() {
        match raw.via {
            Via::Callback => return read_callback(event, raw.stdout, raw.name),
            Via::Http { status } => {
                // Read as the answer reader reads it (a byte-order mark, invalid UTF-8).
                let text = json::text(raw.stdout);
                let t = text.trim();
                if !(t.is_empty() || (t.starts_with('{') && t.ends_with('}'))) {
                    let why = format!("HTTP {status} body is not a JSON object");
                    return read(event, &Raw { failed: Some(why), stdout: b"", ..*raw });
                }
            }
            Via::Command if raw.overflow && raw.exit != Some(2) => {
                let why = format!("stdout exceeded maxOutputBytes ({} bytes)", raw.max_output_bytes);
                return read(event, &Raw { failed: Some(why), ..*raw });
            }
            Via::Command => {}
        }
    }
    read(event, raw)
}

/// The rules of one answer, once [`read_raw`] has told a failure from an answer.
pub fn read(event: Event, ran: &Raw) -> Answer {
    if let Some(why) = &ran.failed {
        // A timed-out hook is cancelled and its output discarded; one that could not start
        // or was killed said nothing either. PreModelSwitch is the exception: there a timeout
        // blocks (the reference's "Timeouts").
        let mut answer = failure(why.clone(), ran, event);
        if ran.timed_out && event == Event::PreModelSwitch {
            answer.block = true;
            answer.permission = Some(Permission::Deny);
            answer.reason.get_or_insert_with(|| format!("Claude Code hook `{}` {why}", ran.name));
        }
        return answer;
    }
    let Some(code) = ran.exit else {
        return failure("the hook did not finish".to_string(), ran, event);
    };
    // The one tolerant reader: invalid UTF-8 as U+FFFD, a byte-order mark skipped.
    let text = json::text(ran.stdout);
    let trimmed = text.trim();
    let looks_like_json = trimmed.starts_with('{') && trimmed.ends_with('}');
    let json: Option<Result<Obj, String>> = looks_like_json.then(|| match json::object(trimmed) {
        Ok(obj) => validate(event, &obj).map(|()| obj),
        Err(json::NotAnObject::OtherValue) => Err("stdout is JSON but not an object".to_string()),
        Err(json::NotAnObject::Invalid(e)) => Err(format!("stdout looks like JSON but does not parse ({e})")),
    });
    let stderr = trimmed_text(ran.stderr);
    let claude_name = name_or_engine(event);

    if code == 2 && event != Event::PermissionRequest {
        // Blocks (where the event can be blocked); JSON is still read but cannot undo it.
        let mut answer = match &json {
            Some(Ok(map)) => interpret(event, map),
            _ => Answer::default(),
        };
        let json_reason = answer.block.then(|| answer.reason.clone()).flatten();
        answer.block = true;
        answer.permission = matches!(event, Event::PreToolUse | Event::PreModelSwitch).then_some(Permission::Deny);
        answer.updated_input = None;
        answer.reason = Some(
            json_reason
                .or(stderr)
                .unwrap_or_else(|| format!("blocked by Claude Code hook `{}` (exit 2 on {claude_name})", ran.name)),
        );
        if answer.stop.as_deref() == Some("") {
            answer.stop = answer.reason.clone();
        }
        return answer;
    }
    match json {
        Some(Ok(map)) => interpret(event, &map),
        Some(Err(why)) => failure(why, ran, event),
        // Worktree hooks fail the operation on any non-zero exit.
        None if code != 0 && matches!(event, Event::WorktreeCreate | Event::WorktreeRemove) => Answer {
            block: true,
            reason: Some(
                stderr.unwrap_or_else(|| format!("Claude Code hook `{}` exited with status {code}", ran.name)),
            ),
            ..Answer::default()
        },
        None if code != 0 => {
            let first = stderr.as_deref().and_then(|s| s.lines().next()).unwrap_or("");
            let why = if code == 2 {
                "exit 2 is not honoured on PermissionRequest".to_string()
            } else {
                format!(
                    "non-blocking status code {code}{}",
                    if first.is_empty() { String::new() } else { format!(": {first}") }
                )
            };
            failure(why, ran, event)
        }
        None => Answer {
            context: if stdout_is_context(event) { Some(trimmed.to_string()).filter(|t| !t.is_empty()) } else { None },
            ..Answer::default()
        },
    }
}

/// The answer of a host callback serving a `prompt`, `agent` or `mcp_tool` Claude Code hook
/// (blank: no decision):
/// either a model's verdict `{"ok": bool, "reason": str, "impossible": bool}` (Claude Code's
/// prompt/agent schema) or anything a command hook may print, read as its stdout on exit 0.
/// `ok: false` denies where the event can be blocked, except on PermissionRequest (no effect)
/// and on Stop/SubagentStop when `impossible` (the agent may stop after all).
pub fn read_callback(event: Event, answer: &[u8], name: &str) -> Answer {
    if answer.iter().all(u8::is_ascii_whitespace) {
        return Answer::default();
    }
    let text = json::text(answer);
    if let Ok(map) = json::object(&text) {
        if let Some(ok) = map.get_by("ok", |v| v.as_bool() == Some(false)).and_then(Val::as_bool) {
            let reason = map.get_by("reason", last).and_then(Val::text);
            // A repeated `impossible` is true only when no value says otherwise.
            let impossible =
                map.get_by("impossible", |v| v.as_bool() != Some(true)).and_then(Val::as_bool) == Some(true);
            let stop_event = matches!(event, Event::TurnStop | Event::SubagentStop);
            if ok || event == Event::PermissionRequest || (stop_event && impossible) {
                return Answer { reason: if ok { None } else { reason }, ..Answer::default() };
            }
            return Answer {
                block: true,
                permission: matches!(event, Event::PreToolUse | Event::PreModelSwitch).then_some(Permission::Deny),
                reason: Some(reason.unwrap_or_else(|| format!("Claude Code {name} hook answered ok: false"))),
                ..Answer::default()
            };
        }
    }
    read(event, &Raw { exit: Some(0), stdout: answer, name, ..Raw::default() })
}

/// The last value of a repeated key (for keys that cannot refuse anything).
fn last(_: Val) -> bool {
    false
}

/// What refuses among the repeated values of each key Claude Code reads: a repeated key never
/// turns a deny into an allow or into nothing (docs/envelope.md "Reading answers").
fn refusing(key: &str) -> fn(Val) -> bool {
    match key {
        "decision" => |v| v.is("block") || behavior_deny(v),
        "continue" => |v| v.as_bool() == Some(false),
        "permissionDecision" => |v| v.is("deny"),
        "hookSpecificOutput" => |v| v.as_object().is_some_and(|h| hso_refuses(&h)),
        _ => last,
    }
}

fn behavior_deny(v: Val) -> bool {
    v.as_object().and_then(|d| d.get_by("behavior", |b| b.is("deny"))).is_some_and(|b| b.is("deny"))
}

fn hso_refuses(h: &Obj) -> bool {
    get(h, "permissionDecision").is_some_and(|p| p.is("deny")) || get(h, "decision").is_some_and(behavior_deny)
}

/// A key's value by Claude Code's vocabulary; `null` is absent.
fn get<'a>(map: &Obj<'a>, key: &str) -> Option<Val<'a>> {
    map.get_by(key, refusing(key)).filter(|v| !v.is_null())
}

/// Claude Code's schema checks that decide whether JSON counts at all: a wrong value or a
/// `hookSpecificOutput` for another event makes the whole answer a failure ("Hook JSON output
/// validation failed").
fn validate(event: Event, map: &Obj) -> Result<(), String> {
    let claude_name = name_or_engine(event);
    for (key, want) in [
        ("continue", Kind::Bool),
        ("suppressOutput", Kind::Bool),
        ("stopReason", Kind::String),
        ("systemMessage", Kind::String),
        ("reason", Kind::String),
    ] {
        // A repeated key is valid when one of its values is: a repeat cannot fail a deny open.
        match map.get_by(key, |v| v.kind() == want).filter(|v| !v.is_null()) {
            None => {}
            Some(v) if v.kind() == want => {}
            Some(v) => return Err(format!("`{key}` is {}, expected {}", v.kind().describe(), want.describe())),
        }
    }
    match get(map, "decision") {
        None => {}
        Some(d) if d.is("block") => {}
        Some(d) if d.is("approve") && event == Event::PreToolUse => {}
        Some(v) => return Err(format!("`decision` is {}, expected \"block\"", v.raw())),
    }
    match get(map, "hookSpecificOutput") {
        None => {}
        Some(v) => {
            let Some(hso) = v.as_object() else {
                return Err(format!("hookSpecificOutput is {}, expected an object", v.kind().describe()));
            };
            match hso.get_by("hookEventName", |v| v.is(claude_name)).and_then(Val::as_str) {
                Some(name) if name == claude_name => {}
                Some(name) => {
                    return Err(format!(
                        "hookSpecificOutput.hookEventName is `{name}`, but the event is `{claude_name}`"
                    ))
                }
                None => return Err(format!("hookSpecificOutput has no hookEventName (expected \"{claude_name}\")")),
            }
            if let Some(v) = hso.get_by("permissionDecision", refusing("permissionDecision")) {
                if !["allow", "deny", "ask", "defer"].iter().any(|d| v.is(d)) {
                    return Err(format!(
                        "hookSpecificOutput.permissionDecision is {}, expected allow, deny, ask or defer",
                        v.raw()
                    ));
                }
            }
            if let Some(v) = hso.get_by("additionalContext", |v| v.kind() == Kind::String).filter(|v| !v.is_null()) {
                if v.kind() != Kind::String {
                    return Err(format!(
                        "hookSpecificOutput.additionalContext is {}, expected a string",
                        v.kind().describe()
                    ));
                }
            }
            if let Some(v) = hso.get_by("updatedInput", |v| v.kind() == Kind::Object).filter(|v| !v.is_null()) {
                if v.kind() != Kind::Object {
                    return Err(format!(
                        "hookSpecificOutput.updatedInput is {}, expected an object",
                        v.kind().describe()
                    ));
                }
            }
            if let Some(d) = hso.get_by("decision", refusing("decision")) {
                if event == Event::PermissionRequest {
                    let behavior = d.as_object().and_then(|d| get(&d, "behavior"));
                    if !behavior.is_some_and(|b| b.is("allow") || b.is("deny")) {
                        return Err("hookSpecificOutput.decision.behavior must be \"allow\" or \"deny\"".to_string());
                    }
                }
            }
        }
    }
    Ok(())
}

/// A validated JSON answer.
fn interpret(event: Event, map: &Obj) -> Answer {
    let text = |v: Option<Val>| v.and_then(Val::text);
    let hso = get(map, "hookSpecificOutput").and_then(Val::as_object);
    let from_hso = |key: &str| hso.as_ref().and_then(|h| get(h, key));
    let mut answer = Answer {
        reason: text(get(map, "reason")),
        context: text(from_hso("additionalContext")),
        system_message: text(get(map, "systemMessage")),
        ..Answer::default()
    };
    if get(map, "continue").and_then(Val::as_bool) == Some(false) {
        // Without `stopReason`, its reason is filled in once the reason is known (below).
        answer.stop = Some(text(get(map, "stopReason")).unwrap_or_default());
    }
    match get(map, "decision") {
        Some(d) if d.is("block") && event == Event::PreToolUse => answer.permission = Some(Permission::Deny),
        Some(d) if d.is("block") => answer.block = true,
        Some(d) if d.is("approve") => answer.permission = Some(Permission::Allow),
        _ => {}
    }
    let object = |v: Option<Val>| v.filter(|v| v.kind() == Kind::Object).and_then(Val::to_value);
    match event {
        Event::PreToolUse | Event::PreModelSwitch => {
            if let Some(p) = from_hso("permissionDecision") {
                answer.permission = match () {
                    _ if p.is("allow") => Some(Permission::Allow),
                    _ if p.is("deny") => Some(Permission::Deny),
                    _ if p.is("ask") => Some(Permission::Ask),
                    _ if p.is("defer") => Some(Permission::Defer),
                    _ => answer.permission,
                };
            }
            if let Some(r) = text(from_hso("permissionDecisionReason")) {
                answer.reason = Some(r);
            }
            answer.updated_input = object(from_hso("updatedInput"));
        }
        Event::PermissionRequest => {
            if let Some(d) = from_hso("decision").and_then(Val::as_object) {
                match get(&d, "behavior") {
                    Some(b) if b.is("allow") => {
                        answer.permission = Some(Permission::Allow);
                        answer.updated_input = object(get(&d, "updatedInput"));
                        answer.updated_permissions = get(&d, "updatedPermissions").and_then(Val::to_value);
                    }
                    Some(b) if b.is("deny") => {
                        answer.permission = Some(Permission::Deny);
                        answer.reason = text(get(&d, "message")).or(answer.reason);
                        answer.interrupt = get(&d, "interrupt").and_then(Val::as_bool) == Some(true);
                    }
                    _ => {}
                }
            }
        }
        Event::UserPromptSubmit => answer.updated_prompt = text(from_hso("updatedPrompt")),
        _ => {}
    }
    if answer.permission == Some(Permission::Deny) {
        answer.block = true;
    }
    // `continue: false` without `stopReason`: the hook's reason, however it gave one.
    if answer.stop.as_deref() == Some("") {
        answer.stop = answer.reason.clone().or(Some(String::new()));
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(event: Event, exit: i32, stdout: &str, stderr: &str) -> Answer {
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

    /// A valid deny must be read whatever the numbers and depth around it (docs/config.md "Command hooks"): a
    /// hook that echoes a 127-deep tool input back, or whose JSON holds `1e999` or `NaN`.
    #[test]
    fn valid_denies_with_big_numbers_and_depth() {
        let deny = r#""hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}"#;
        let deep = format!("{}1{}", "[".repeat(127), "]".repeat(127));
        for extra in [r#""score":1e999"#, r#""score":-1E+400"#, r#""score":NaN"#, &format!(r#""echo":{deep}"#)] {
            let a = answer(Event::PreToolUse, 0, &format!("{{{deny},{extra}}}"), "");
            assert_eq!((a.permission, a.reason.as_deref()), (Some(Permission::Deny), Some("no")), "{extra:.40}");
        }
        // Any depth is read (version 1.2): only the values an answer's meaning needs are built.
        let too_deep = format!("{{{deny},\"x\":{}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(answer(Event::PreToolUse, 0, &too_deep, "").permission, Some(Permission::Deny));
    }

    #[test]
    fn exit_codes() {
        let a = answer(Event::PreToolUse, 2, "", "no rm\n");
        assert!(a.block);
        assert_eq!((a.permission, a.reason.as_deref()), (Some(Permission::Deny), Some("no rm")));
        let a = answer(Event::PreToolUse, 2, r#"{"decision":"block","reason":"json says"}"#, "stderr says");
        assert_eq!(a.reason.as_deref(), Some("json says"), "the JSON's blocking reason wins");
        let a = answer(
            Event::PreToolUse,
            2,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#,
            "",
        );
        assert!(a.block, "JSON cannot undo exit 2");
        assert!(a.reason.unwrap().contains("exit 2"), "a fixed text names the hook");
        let a = answer(Event::PreToolUse, 1, "", "oops\nmore");
        assert!(!a.block && a.permission.is_none());
        assert_eq!(a.failure.as_deref(), Some("non-blocking status code 1: oops"));
        let a = answer(
            Event::PreToolUse,
            1,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}"#,
            "",
        );
        assert!(a.block && a.failure.is_none(), "a valid JSON object decides on any exit code");
        let a = answer(Event::PermissionRequest, 2, "", "x");
        assert!(!a.block && a.failure.is_some(), "exit 2 is not honoured on PermissionRequest");
    }

    #[test]
    fn json_answers() {
        let a = answer(
            Event::PreToolUse,
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check","updatedInput":{"command":"ls -a"},"additionalContext":"c"}}"#,
            "",
        );
        assert_eq!(a.permission, Some(Permission::Ask));
        assert_eq!(a.reason.as_deref(), Some("check"));
        assert_eq!(a.updated_input, Some(serde_json::json!({"command": "ls -a"})));
        assert_eq!(a.context.as_deref(), Some("c"));
        assert_eq!(answer(Event::PreToolUse, 0, r#"{"decision":"approve"}"#, "").permission, Some(Permission::Allow));
        assert_eq!(answer(Event::PreToolUse, 0, r#"{"decision":"block"}"#, "").permission, Some(Permission::Deny));
        let a = answer(Event::PreToolUse, 0, r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#, "");
        assert!(!a.block && a.failure.unwrap().contains("no hookEventName"), "fails open");
        let a = answer(
            Event::PreToolUse,
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}"#,
            "",
        );
        assert!(!a.block && a.failure.is_some());
        let a = answer(Event::PreToolUse, 0, "{not json}", "");
        assert!(!a.block && a.failure.unwrap().contains("does not parse"));
        let a = answer(Event::UserPromptSubmit, 0, r#"{"decision":"continue"}"#, "");
        assert!(a.failure.is_some());
        let a = answer(
            Event::PreToolUse,
            0,
            r#"{"continue":false,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"why"}}"#,
            "",
        );
        assert_eq!(a.stop.as_deref(), Some("why"), "stopReason falls back to the hook's reason");
        let a = answer(Event::PreToolUse, 2, r#"{"continue":false}"#, "from stderr");
        assert_eq!(a.stop.as_deref(), Some("from stderr"));
        let a = answer(Event::TurnStop, 0, r#"{"continue":false,"stopReason":"done","systemMessage":"bye"}"#, "");
        assert_eq!((a.stop.as_deref(), a.system_message.as_deref()), (Some("done"), Some("bye")));
        let a = answer(
            Event::PermissionRequest,
            0,
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m","interrupt":true}}}"#,
            "",
        );
        assert!(a.block && a.interrupt);
        assert_eq!(a.reason.as_deref(), Some("m"));
    }

    #[test]
    fn callback_answers() {
        let a = read_callback(Event::PreToolUse, br#"{"ok": false, "reason": "touches prod"}"#, "prompt");
        assert!(a.block && a.permission == Some(Permission::Deny));
        assert_eq!(a.reason.as_deref(), Some("touches prod"));
        assert!(!read_callback(Event::PreToolUse, br#"{"ok": true}"#, "prompt").block);
        assert!(!read_callback(Event::PermissionRequest, br#"{"ok": false}"#, "prompt").block, "no effect");
        assert!(read_callback(Event::TurnStop, br#"{"ok": false, "reason": "tests fail"}"#, "agent").block);
        assert!(!read_callback(Event::TurnStop, br#"{"ok": false, "impossible": true}"#, "agent").block);
        let hso = br#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}"#;
        assert_eq!(read_callback(Event::PreToolUse, hso, "mcp_tool").permission, Some(Permission::Ask));
    }

    #[test]
    fn plain_stdout_is_context_only_where_claude_code_reads_it() {
        assert_eq!(answer(Event::UserPromptSubmit, 0, "ctx\n", "").context.as_deref(), Some("ctx"));
        assert_eq!(answer(Event::SessionStart, 0, "ctx", "").context.as_deref(), Some("ctx"));
        assert_eq!(answer(Event::PreToolUse, 0, "ctx", "").context, None);
        assert_eq!(
            answer(Event::UserPromptSubmit, 0, "[1,2]", "").context.as_deref(),
            Some("[1,2]"),
            "an array is text"
        );
    }

    #[test]
    fn failures_and_fail_closed() {
        let ran = Raw {
            failed: Some("timed out after 1 s".into()),
            timed_out: true,
            fail_closed: true,
            name: "h",
            ..Raw::default()
        };
        let a = read(Event::PreToolUse, &ran);
        assert!(a.block && a.reason.unwrap().contains("onFailure"));
        assert!(!read(Event::TurnStop, &ran).block, "ignored on Stop");
        let ran = Raw { exit: Some(1), fail_closed: true, name: "h", ..Raw::default() };
        assert!(read(Event::UserPromptSubmit, &ran).block);
        let ran = Raw { failed: Some("timed out after 30 s".into()), timed_out: true, name: "h", ..Raw::default() };
        assert!(!read(Event::PreToolUse, &ran).block, "a timeout lets a tool call through");
        assert!(read(Event::PreModelSwitch, &ran).block, "but blocks a model switch");
        assert!(answer(Event::WorktreeCreate, 1, "", "no space").block, "worktree hooks fail on any non-zero exit");
        assert!(!answer(Event::PreToolUse, 1, "", "x").block);
        let ran = Raw { failed: Some("cannot start".into()), name: "h", ..Raw::default() };
        let a = read(Event::PreToolUse, &ran);
        assert!(!a.block && a.failure.is_some());
    }
}
