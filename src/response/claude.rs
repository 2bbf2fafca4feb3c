//! Reading a Claude Code hook's answer exactly as Claude Code does (CONTRACT §8): exit 2 blocks,
//! JSON on stdout is read on every exit code, `hookSpecificOutput` must name its
//! `hookEventName`, plain stdout is context only where Claude Code makes it context, and every
//! failure lets the action through unless the hook says `onFailure: "block"`.

use super::Permission;
use crate::event::Event;
use serde_json::{Map, Value};

/// What happened when the hook ran, in the terms the rules need.
#[derive(Debug, Default)]
pub struct Ran<'a> {
    /// The exit code; `None` when the hook did not start, was killed or timed out.
    pub exit: Option<i32>,
    /// Why the hook did not produce an exit code (spawn failure, timeout, signal, HTTP error).
    pub failed: Option<String>,
    pub timed_out: bool,
    pub stdout: &'a [u8],
    pub stderr: &'a [u8],
    pub on_failure_block: bool,
    /// Names the hook in a reason when nothing better is at hand.
    pub name: &'a str,
}

/// One Claude Code hook's answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeAnswer {
    /// Exit 2, `decision: "block"`, a permission deny, or a failure with `onFailure: "block"`.
    pub block: bool,
    pub permission: Option<Permission>,
    pub reason: Option<String>,
    pub context: Option<String>,
    pub updated_input: Option<Value>,
    pub updated_prompt: Option<String>,
    pub updated_permissions: Option<Value>,
    pub interrupt: bool,
    /// `continue: false`: its `stopReason` (else its reason, else empty).
    pub stop: Option<String>,
    pub system_message: Option<String>,
    /// Why this answer was a failure (the action went through unless `block`).
    pub failure: Option<String>,
}

impl ClaudeAnswer {
    /// The trace's `result`.
    pub fn label(&self) -> &'static str {
        match (self.block, self.permission) {
            (true, _) | (_, Some(Permission::Deny)) => "deny",
            (_, Some(p)) => p.as_str(),
            _ => "none",
        }
    }
}

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
fn failure(why: String, ran: &Ran, event: Event) -> ClaudeAnswer {
    let mut answer = ClaudeAnswer { failure: Some(why.clone()), ..ClaudeAnswer::default() };
    if ran.on_failure_block && !on_failure_ignored(event) {
        answer.block = true;
        answer.reason = Some(format!("Claude Code hook `{}` failed ({why}) and has onFailure: \"block\"", ran.name));
    }
    answer
}

pub fn read(event: Event, ran: &Ran) -> ClaudeAnswer {
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
    let text = String::from_utf8_lossy(ran.stdout);
    let trimmed = text.trim();
    let looks_like_json = trimmed.starts_with('{') && trimmed.ends_with('}');
    let json: Option<Result<Map<String, Value>, String>> =
        looks_like_json.then(|| match super::parse_json(trimmed.as_bytes()) {
            Ok(Value::Object(map)) => validate(event, map),
            Ok(_) => Err("stdout is JSON but not an object".to_string()),
            Err(e) => Err(format!("stdout looks like JSON but does not parse ({e})")),
        });
    let stderr = trimmed_text(ran.stderr);
    let claude_name = event.claude_name().unwrap_or(event.name());

    if code == 2 && event != Event::PermissionRequest {
        // Blocks (where the event can be blocked); JSON is still read but cannot undo it.
        let mut answer = match &json {
            Some(Ok(map)) => interpret(event, map),
            _ => ClaudeAnswer::default(),
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
        None if code != 0 && matches!(event, Event::WorktreeCreate | Event::WorktreeRemove) => ClaudeAnswer {
            block: true,
            reason: Some(
                stderr.unwrap_or_else(|| format!("Claude Code hook `{}` exited with status {code}", ran.name)),
            ),
            ..ClaudeAnswer::default()
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
        None => ClaudeAnswer {
            context: if stdout_is_context(event) { Some(trimmed.to_string()).filter(|t| !t.is_empty()) } else { None },
            ..ClaudeAnswer::default()
        },
    }
}

/// The answer of a host callback serving a `prompt`, `agent` or `mcp_tool` Claude Code hook
/// (blank: no decision):
/// either a model's verdict `{"ok": bool, "reason": str, "impossible": bool}` (Claude Code's
/// prompt/agent schema) or anything a command hook may print, read as its stdout on exit 0.
/// `ok: false` denies where the event can be blocked, except on PermissionRequest (no effect)
/// and on Stop/SubagentStop when `impossible` (the agent may stop after all).
pub fn read_callback(event: Event, answer: &[u8], name: &str) -> ClaudeAnswer {
    if answer.iter().all(u8::is_ascii_whitespace) {
        return ClaudeAnswer::default();
    }
    if let Ok(Value::Object(map)) = super::parse_json(answer) {
        if let Some(ok) = map.get("ok").and_then(Value::as_bool) {
            let reason = map.get("reason").and_then(Value::as_str).filter(|r| !r.is_empty()).map(str::to_string);
            let impossible = map.get("impossible") == Some(&Value::Bool(true));
            let stop_event = matches!(event, Event::TurnStop | Event::SubagentStop);
            if ok || event == Event::PermissionRequest || (stop_event && impossible) {
                return ClaudeAnswer { reason: if ok { None } else { reason }, ..ClaudeAnswer::default() };
            }
            return ClaudeAnswer {
                block: true,
                permission: matches!(event, Event::PreToolUse | Event::PreModelSwitch).then_some(Permission::Deny),
                reason: Some(reason.unwrap_or_else(|| format!("Claude Code {name} hook answered ok: false"))),
                ..ClaudeAnswer::default()
            };
        }
    }
    read(event, &Ran { exit: Some(0), stdout: answer, name, ..Ran::default() })
}

/// Claude Code's schema checks that decide whether JSON counts at all: a wrong value or a
/// `hookSpecificOutput` for another event makes the whole answer a failure ("Hook JSON output
/// validation failed").
fn validate(event: Event, map: Map<String, Value>) -> Result<Map<String, Value>, String> {
    let claude_name = event.claude_name().unwrap_or(event.name());
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    };
    for (key, want_bool) in [
        ("continue", true),
        ("suppressOutput", true),
        ("stopReason", false),
        ("systemMessage", false),
        ("reason", false),
    ] {
        match map.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Bool(_)) if want_bool => {}
            Some(Value::String(_)) if !want_bool => {}
            Some(v) => {
                return Err(format!(
                    "`{key}` is {}, expected {}",
                    kind(v),
                    if want_bool { "a boolean" } else { "a string" }
                ))
            }
        }
    }
    match map.get("decision") {
        None | Some(Value::Null) => {}
        Some(Value::String(d)) if d == "block" => {}
        Some(Value::String(d)) if d == "approve" && event == Event::PreToolUse => {}
        Some(v) => return Err(format!("`decision` is {v}, expected \"block\"")),
    }
    match map.get("hookSpecificOutput") {
        None | Some(Value::Null) => {}
        Some(Value::Object(hso)) => {
            match hso.get("hookEventName").and_then(Value::as_str) {
                Some(name) if name == claude_name => {}
                Some(name) => {
                    return Err(format!(
                        "hookSpecificOutput.hookEventName is `{name}`, but the event is `{claude_name}`"
                    ))
                }
                None => return Err(format!("hookSpecificOutput has no hookEventName (expected \"{claude_name}\")")),
            }
            if let Some(v) = hso.get("permissionDecision") {
                if !matches!(v.as_str(), Some("allow" | "deny" | "ask" | "defer")) {
                    return Err(format!(
                        "hookSpecificOutput.permissionDecision is {v}, expected allow, deny, ask or defer"
                    ));
                }
            }
            if let Some(v) = hso.get("additionalContext") {
                if !v.is_string() && !v.is_null() {
                    return Err(format!("hookSpecificOutput.additionalContext is {}, expected a string", kind(v)));
                }
            }
            if let Some(v) = hso.get("updatedInput") {
                if !v.is_object() && !v.is_null() {
                    return Err(format!("hookSpecificOutput.updatedInput is {}, expected an object", kind(v)));
                }
            }
            if let Some(d) = hso.get("decision") {
                if event == Event::PermissionRequest {
                    let behavior = d.get("behavior").and_then(Value::as_str);
                    if !d.is_object() || !matches!(behavior, Some("allow" | "deny")) {
                        return Err("hookSpecificOutput.decision.behavior must be \"allow\" or \"deny\"".to_string());
                    }
                }
            }
        }
        Some(v) => return Err(format!("hookSpecificOutput is {}, expected an object", kind(v))),
    }
    Ok(map)
}

/// A validated JSON answer.
fn interpret(event: Event, map: &Map<String, Value>) -> ClaudeAnswer {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let hso = map.get("hookSpecificOutput").and_then(Value::as_object);
    let from_hso = |key: &str| hso.and_then(|h| h.get(key));
    let mut answer = ClaudeAnswer {
        reason: text(map.get("reason")),
        context: text(from_hso("additionalContext")),
        system_message: text(map.get("systemMessage")),
        ..ClaudeAnswer::default()
    };
    if map.get("continue") == Some(&Value::Bool(false)) {
        // Without `stopReason`, its reason is filled in once the reason is known (below).
        answer.stop = Some(text(map.get("stopReason")).unwrap_or_default());
    }
    match map.get("decision").and_then(Value::as_str) {
        Some("block") if event == Event::PreToolUse => answer.permission = Some(Permission::Deny),
        Some("block") => answer.block = true,
        Some("approve") => answer.permission = Some(Permission::Allow),
        _ => {}
    }
    match event {
        Event::PreToolUse | Event::PreModelSwitch => {
            if let Some(p) = from_hso("permissionDecision").and_then(Value::as_str) {
                answer.permission = match p {
                    "allow" => Some(Permission::Allow),
                    "deny" => Some(Permission::Deny),
                    "ask" => Some(Permission::Ask),
                    "defer" => Some(Permission::Defer),
                    _ => answer.permission,
                };
            }
            if let Some(r) = text(from_hso("permissionDecisionReason")) {
                answer.reason = Some(r);
            }
            answer.updated_input = from_hso("updatedInput").filter(|v| v.is_object()).cloned();
        }
        Event::PermissionRequest => {
            if let Some(d) = from_hso("decision").and_then(Value::as_object) {
                match d.get("behavior").and_then(Value::as_str) {
                    Some("allow") => {
                        answer.permission = Some(Permission::Allow);
                        answer.updated_input = d.get("updatedInput").filter(|v| v.is_object()).cloned();
                        answer.updated_permissions = d.get("updatedPermissions").filter(|v| !v.is_null()).cloned();
                    }
                    Some("deny") => {
                        answer.permission = Some(Permission::Deny);
                        answer.reason = text(d.get("message")).or(answer.reason);
                        answer.interrupt = d.get("interrupt") == Some(&Value::Bool(true));
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

    fn answer(event: Event, exit: i32, stdout: &str, stderr: &str) -> ClaudeAnswer {
        read(
            event,
            &Ran {
                exit: Some(exit),
                stdout: stdout.as_bytes(),
                stderr: stderr.as_bytes(),
                name: "h",
                ..Ran::default()
            },
        )
    }

    /// A valid deny must be read whatever the numbers and depth around it (CONTRACT §3.4): a
    /// hook that echoes a 127-deep tool input back, or whose JSON holds `1e999` or `NaN`.
    #[test]
    fn valid_denies_with_big_numbers_and_depth() {
        let deny = r#""hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}"#;
        let deep = format!("{}1{}", "[".repeat(127), "]".repeat(127));
        for extra in [r#""score":1e999"#, r#""score":-1E+400"#, r#""score":NaN"#, &format!(r#""echo":{deep}"#)] {
            let a = answer(Event::PreToolUse, 0, &format!("{{{deny},{extra}}}"), "");
            assert_eq!((a.permission, a.reason.as_deref()), (Some(Permission::Deny), Some("no")), "{extra:.40}");
        }
        // Beyond the bound the answer is unreadable: reported, not a crash (the stack is safe).
        let too_deep = format!("{{{deny},\"x\":{}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(crate::response::parse_json(too_deep.as_bytes()).unwrap_err().contains("levels deep"));
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
    fn failures_and_on_failure_block() {
        let ran = Ran {
            failed: Some("timed out after 1 s".into()),
            timed_out: true,
            on_failure_block: true,
            name: "h",
            ..Ran::default()
        };
        let a = read(Event::PreToolUse, &ran);
        assert!(a.block && a.reason.unwrap().contains("onFailure"));
        assert!(!read(Event::TurnStop, &ran).block, "ignored on Stop");
        let ran = Ran { exit: Some(1), on_failure_block: true, name: "h", ..Ran::default() };
        assert!(read(Event::UserPromptSubmit, &ran).block);
        let ran = Ran { failed: Some("timed out after 30 s".into()), timed_out: true, name: "h", ..Ran::default() };
        assert!(!read(Event::PreToolUse, &ran).block, "a timeout lets a tool call through");
        assert!(read(Event::PreModelSwitch, &ran).block, "but blocks a model switch");
        assert!(answer(Event::WorktreeCreate, 1, "", "no space").block, "worktree hooks fail on any non-zero exit");
        assert!(!answer(Event::PreToolUse, 1, "", "x").block);
        let ran = Ran { failed: Some("cannot start".into()), name: "h", ..Ran::default() };
        let a = read(Event::PreToolUse, &ran);
        assert!(!a.block && a.failure.is_some());
    }
}
