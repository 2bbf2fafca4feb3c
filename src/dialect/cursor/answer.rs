//! Reading and merging Cursor hooks' answers (docs/dialects/cursor.md, answers), pure functions
//! over what a hook did.
//!
//! Cursor reads stdout **only on exit 0**, as one flat snake_case JSON object: `permission`
//! (`allow`/`deny`/`ask`, per event), `agent_message`/`user_message`, `updated_input`
//! (`preToolUse`), `additional_context`, `continue` (`beforeSubmitPrompt`) and
//! `followup_message` (`stop`, `subagentStop`). Exit 2 refuses where something can be refused;
//! any other exit, a timeout, a hook that could not start, or output that is not a JSON object
//! lets the action through — unless the entry says `failClosed: true`, and then it refuses, also
//! when the hook printed nothing. Claude Code's shapes (`hookSpecificOutput`, `decision`) mean
//! nothing to Cursor and nothing here.
//!
//! Every answer goes through the one tolerant reader: invalid UTF-8, a byte-order mark, any
//! depth or number are read, and a repeated key never turns a refusal into agreement (docs/envelope.md
//! "Reading answers"). An answer over `maxOutputBytes` is not read; where the hook could refuse,
//! it refuses (docs/envelope.md "Size never decides").

use super::events::{CursorEvent, PermissionSupport};
use super::parse::event_of;
use crate::dialect::{Answer, Decision, Handler, Hook, Raw, Via};
use crate::event::Event;
use crate::response::json::{self, Kind, Obj, Val};
use crate::response::Permission;
use serde_json::Value;

/// What the fire says that the answers depend on (from [`super::view::CursorView`]).
#[derive(Debug, Clone, Copy)]
pub struct Fire<'a> {
    /// Follow-ups already triggered in this conversation (the envelope's `loopCount`).
    pub loop_count: u64,
    /// `status` of `stop`/`subagentStop`.
    pub status: &'a str,
}

/// One Cursor hook's answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CursorAnswer {
    /// Refuses: a `permission: "deny"` (or `subagentStart`'s `ask`), exit 2, `continue: false`
    /// on `beforeSubmitPrompt`, a `failClosed` failure, an unread (oversized) answer.
    pub refuse: bool,
    /// `allow` or an enforced `ask` (a refusal is [`Self::refuse`]).
    pub permission: Option<Permission>,
    /// `agent_message`, else `user_message`, else the exit-2 text or the failure (only with a
    /// refusal or an ask).
    pub reason: Option<String>,
    /// `user_message`, with a refusal or an ask: for the user (`systemMessage`).
    pub user_message: Option<String>,
    pub context: Option<String>,
    /// `updated_input` (`preToolUse`), in Cursor's field names.
    pub updated_input: Option<Value>,
    /// `followup_message` under the entry's `loop_limit`: the agent continues with it.
    pub followup: Option<String>,
    /// Why the hook failed (the action went through unless [`Self::refuse`]).
    pub failure: Option<String>,
}

fn trimmed(bytes: &[u8]) -> Option<String> {
    let text = json::text(bytes);
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// A failure: the action proceeds, unless the entry fails closed where the event can refuse.
fn failure(why: String, event: &CursorEvent, hook: &Hook, ran: &Raw) -> CursorAnswer {
    let mut answer = CursorAnswer { failure: Some(why.clone()), ..CursorAnswer::default() };
    if !event.refuses {
        return answer;
    }
    if ran.overflow {
        // Its answer may have been a deny: where it could refuse, it refuses.
        answer.refuse = true;
        answer.reason = Some(format!("Cursor hook `{}`: {why}; its answer was not read, so it refuses", ran.name));
    } else if hook.fail_closed {
        answer.refuse = true;
        answer.reason = Some(format!("Cursor hook `{}` failed ({why}) and is configured failClosed", ran.name));
    }
    answer
}

/// Reads one hook's answer by the rules of the Cursor event it was written under.
pub fn read(hook: &Hook, ran: &Raw, fire: Fire) -> CursorAnswer {
    let Some(event) = event_of(hook) else { return CursorAnswer::default() };
    if ran.via == Via::Callback && ran.failed.is_none() {
        return read_callback(hook, event, ran.stdout, ran.name, fire);
    }
    if let Some(why) = &ran.failed {
        return failure(why.clone(), event, hook, ran);
    }
    let Some(code) = ran.exit else {
        return failure("the hook did not finish".to_string(), event, hook, ran);
    };
    if ran.overflow {
        return failure("its answer is larger than maxOutputBytes".to_string(), event, hook, ran);
    }
    if code == 2 {
        if !event.refuses {
            return CursorAnswer {
                failure: Some(format!("exit 2 cannot refuse anything on {}; ignored", event.name)),
                ..CursorAnswer::default()
            };
        }
        // Cursor shows the hook's raw stdout as the reason; stderr when it printed none.
        let reason = trimmed(ran.stdout)
            .or_else(|| trimmed(ran.stderr))
            .unwrap_or_else(|| format!("blocked by Cursor hook `{}` (exit 2 on {})", ran.name, event.name));
        return CursorAnswer { refuse: true, reason: Some(reason), ..CursorAnswer::default() };
    }
    if code != 0 {
        let first = trimmed(ran.stderr).and_then(|s| s.lines().next().map(str::to_string)).unwrap_or_default();
        let why = if first.is_empty() { format!("exit code {code}") } else { format!("exit code {code}: {first}") };
        return failure(why, event, hook, ran);
    }
    let text = json::text(ran.stdout);
    let body = text.trim();
    if body.is_empty() {
        if hook.fail_closed && event.refuses {
            return failure("it returned no output".to_string(), event, hook, ran);
        }
        return CursorAnswer::default();
    }
    match json::object(body) {
        Ok(obj) => interpret(event, &obj, hook, fire),
        Err(json::NotAnObject::OtherValue) => failure("stdout is JSON but not an object".to_string(), event, hook, ran),
        Err(json::NotAnObject::Invalid(e)) => failure(format!("stdout is not JSON ({e})"), event, hook, ran),
    }
}

/// The answer of the host's `prompt` callback serving a `type: "prompt"` hook: a model's
/// verdict `{"ok": bool, "reason": str}` (Cursor's prompt hooks), `ok: false` refusing where the
/// event can refuse; anything else is read as a command hook's stdout on exit 0. Blank: no
/// decision.
fn read_callback(hook: &Hook, event: &CursorEvent, answer: &[u8], name: &str, fire: Fire) -> CursorAnswer {
    if answer.iter().all(u8::is_ascii_whitespace) {
        return CursorAnswer::default();
    }
    let text = json::text(answer);
    if let Ok(obj) = json::object(text.trim()) {
        if let Some(ok) = obj.get_by("ok", |v| v.as_bool() == Some(false)).and_then(Val::as_bool) {
            if ok || !event.refuses {
                return CursorAnswer::default();
            }
            let reason = obj.get_by("reason", |v| v.kind() == Kind::String).and_then(Val::text);
            return CursorAnswer {
                refuse: true,
                reason: Some(reason.unwrap_or_else(|| format!("Cursor prompt hook `{name}` answered ok: false"))),
                ..CursorAnswer::default()
            };
        }
    }
    read(hook, &Raw { exit: Some(0), stdout: answer, name, ..Raw::default() }, fire)
}

/// Every value of a repeated key, in order.
fn all<'a>(obj: &Obj<'a>, key: &str) -> Vec<Val<'a>> {
    obj.entries().filter(|(k, _)| *k == key).map(|(_, v)| v).collect()
}

/// A string key: the last string value.
fn string(obj: &Obj, key: &str) -> Option<String> {
    obj.get_by(key, |v| v.kind() == Kind::String).and_then(Val::text)
}

fn interpret(event: &CursorEvent, obj: &Obj, hook: &Hook, fire: Fire) -> CursorAnswer {
    let mut answer = CursorAnswer::default();
    // `permission`: a repeated key decides by its most restrictive value (deny, then ask).
    let values = all(obj, "permission");
    let said = |p: &str| values.iter().any(|v| v.is(p));
    let (deny, ask, allow) = (said("deny"), said("ask"), said("allow"));
    match event.permission {
        PermissionSupport::None => {}
        _ if deny => answer.refuse = true,
        PermissionSupport::AskIsDeny if ask => answer.refuse = true,
        PermissionSupport::AllowDenyAsk if ask => answer.permission = Some(Permission::Ask),
        _ if allow => answer.permission = Some(Permission::Allow),
        _ => {}
    }
    if event.name == "beforeSubmitPrompt" && all(obj, "continue").iter().any(|v| v.as_bool() == Some(false)) {
        answer.refuse = true;
    }
    let user_message = string(obj, "user_message");
    if answer.refuse || answer.permission == Some(Permission::Ask) {
        let what = match &hook.handler {
            Handler::Command { command, .. } => command.as_str(),
            _ => hook.type_name(),
        };
        let said = if answer.refuse { "denied by" } else { "approval asked by" };
        answer.reason = string(obj, "agent_message")
            .or_else(|| user_message.clone())
            .or_else(|| Some(format!("{said} Cursor hook `{what}` on {}", event.name)));
        answer.user_message = user_message;
    }
    answer.context = string(obj, "additional_context");
    if event.name == "preToolUse" && !answer.refuse {
        answer.updated_input =
            obj.get_by("updated_input", |_| false).filter(|v| v.kind() == Kind::Object).and_then(Val::to_value);
    }
    let followup_consumed = match event.name {
        "stop" => true,
        "subagentStop" => fire.status == "completed",
        _ => false,
    };
    if followup_consumed {
        let under_limit = hook.loop_limit.map_or(true, |limit| fire.loop_count < limit);
        match string(obj, "followup_message") {
            Some(text) if under_limit => answer.followup = Some(text),
            Some(_) => {
                answer.failure = Some(format!(
                    "followup_message dropped: loop_limit {} reached (loop_count {})",
                    hook.loop_limit.unwrap_or_default(),
                    fire.loop_count
                ))
            }
            None => {}
        }
    }
    answer
}

impl CursorAnswer {
    /// In the seam's terms: a refusal, and a follow-up (which keeps the agent going), block.
    pub fn into_answer(self, event: &CursorEvent) -> Answer {
        let block = self.refuse || self.followup.is_some();
        Answer {
            block,
            permission: if self.refuse && event.has_permission() { Some(Permission::Deny) } else { self.permission },
            reason: self.followup.or(self.reason),
            context: self.context,
            updated_input: self.updated_input,
            system_message: self.user_message,
            failure: self.failure,
            ..Answer::default()
        }
    }
}

/// Whether a refusal of `event`'s Cursor hooks carries a permission decision (`deny`): every
/// refusing Cursor event but `beforeSubmitPrompt`, whose refusal is `allowed: false` alone.
fn has_permission(event: Event) -> bool {
    super::events::ALL.iter().any(|e| e.engine == event && e.has_permission())
}

/// The Cursor hooks of one step combined (docs/dialects/cursor.md, merge), `answers` in
/// configuration order: any refusal wins (the first refusing hook's reason), then any enforced
/// ask, then the last `updated_input`, then any allow. On `stop`/`subagentStop` every
/// follow-up is kept, joined by a blank line, and the agent continues with them. Every context
/// is kept; the refusing and asking hooks' `user_message`s become the system message.
pub fn merge(event: Event, answers: &[Answer]) -> Decision {
    let mut d = Decision {
        contexts: answers.iter().filter_map(|a| a.context.clone()).collect(),
        // Set by `read` only with a refusal or an ask.
        system_messages: answers.iter().filter_map(|a| a.system_message.clone()).collect(),
        ..Decision::default()
    };
    if matches!(event, Event::TurnStop | Event::SubagentStop) {
        let followups: Vec<&str> = answers.iter().filter(|a| a.block).filter_map(|a| a.reason.as_deref()).collect();
        if !followups.is_empty() {
            d.block = true;
            d.reason = Some(followups.join("\n\n"));
        }
        return d;
    }
    if let Some(first) = answers.iter().find(|a| a.block) {
        d.block = true;
        d.permission = has_permission(event).then_some(Permission::Deny);
        d.reason = first.reason.clone();
        return d;
    }
    if let Some(first) = answers.iter().find(|a| a.permission == Some(Permission::Ask)) {
        d.permission = Some(Permission::Ask);
        d.reason = first.reason.clone();
        return d;
    }
    d.updated_input = answers.iter().rev().find_map(|a| a.updated_input.clone());
    if answers.iter().any(|a| a.permission == Some(Permission::Allow)) {
        d.permission = Some(Permission::Allow);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::cursor::parse::{parse, CursorParser};
    use crate::dialect::{File, LayerKind};
    use std::path::PathBuf;

    fn hook(event: &str, extra: &str) -> Hook {
        let text = format!(r#"{{"version":1,"hooks":{{"{event}":[{{"command":"h"{extra}}}]}}}}"#);
        let file =
            File { path: PathBuf::from("/h.json"), kind: LayerKind::Own, plugin: None, change_source: None, dir: None };
        let p = parse(&file, text.as_bytes(), &mut CursorParser::default());
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        p.hooks.into_iter().next().unwrap().1
    }

    const FIRE: Fire = Fire { loop_count: 0, status: "completed" };

    fn ran(exit: i32, stdout: &str) -> Raw<'_> {
        Raw { exit: Some(exit), stdout: stdout.as_bytes(), name: "h", ..Raw::default() }
    }

    fn answer(event: &str, extra: &str, exit: i32, stdout: &str) -> CursorAnswer {
        read(&hook(event, extra), &ran(exit, stdout), FIRE)
    }

    #[test]
    fn permission_per_event() {
        let deny = r#"{"permission":"deny","agent_message":"for the agent","user_message":"for you"}"#;
        for event in [
            "preToolUse",
            "beforeShellExecution",
            "beforeMCPExecution",
            "beforeReadFile",
            "subagentStart",
            "beforeTabFileRead",
        ] {
            let a = answer(event, "", 0, deny);
            assert!(a.refuse, "{event}");
            assert_eq!(a.reason.as_deref(), Some("for the agent"));
            assert_eq!(a.user_message.as_deref(), Some("for you"));
        }
        for event in ["stop", "postToolUse", "sessionStart", "afterShellExecution", "beforeSubmitPrompt"] {
            assert!(!answer(event, "", 0, deny).refuse, "{event}: permission means nothing");
        }
        let ask = r#"{"permission":"ask","user_message":"sure?"}"#;
        assert_eq!(answer("beforeShellExecution", "", 0, ask).permission, Some(Permission::Ask));
        assert_eq!(answer("beforeShellExecution", "", 0, ask).reason.as_deref(), Some("sure?"));
        assert_eq!(answer("beforeMCPExecution", "", 0, ask).permission, Some(Permission::Ask));
        assert_eq!(answer("preToolUse", "", 0, ask), CursorAnswer::default(), "ask is not enforced on preToolUse");
        assert_eq!(answer("beforeReadFile", "", 0, ask), CursorAnswer::default());
        assert!(answer("subagentStart", "", 0, ask).refuse, "ask is a deny on subagentStart");
        let allow = answer("preToolUse", "", 0, r#"{"permission":"allow","user_message":"fine"}"#);
        assert_eq!(allow.permission, Some(Permission::Allow));
        assert_eq!((allow.reason, allow.user_message), (None, None), "messages only with a deny or an ask");
        assert_eq!(answer("preToolUse", "", 0, r#"{"permission":"DENY"}"#), CursorAnswer::default());
        assert_eq!(
            answer("preToolUse", "", 0, r#"{"decision":"block","hookSpecificOutput":{"permissionDecision":"deny"}}"#),
            CursorAnswer::default()
        );
    }

    #[test]
    fn a_repeated_key_never_lifts_a_deny() {
        assert!(answer("preToolUse", "", 0, r#"{"permission":"deny","permission":"allow"}"#).refuse);
        assert!(answer("preToolUse", "", 0, r#"{"permission":"deny","permission":null}"#).refuse);
        assert!(answer("preToolUse", "", 0, "\u{feff}{\"permission\":\"deny\",\"agent_message\":\"x\\ud800\"}").refuse);
        let a = answer("beforeShellExecution", "", 0, r#"{"permission":"ask","permission":"allow"}"#);
        assert_eq!(a.permission, Some(Permission::Ask));
        assert!(answer("beforeSubmitPrompt", "", 0, r#"{"continue":false,"continue":true}"#).refuse);
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(answer("preToolUse", "", 0, &format!(r#"{{"x":{deep},"permission":"deny"}}"#)).refuse);
        let mut bytes = br#"{"permission":"deny","agent_message":"cut "#.to_vec();
        bytes.extend_from_slice(b"\xe2\x82\"}");
        let a =
            read(&hook("preToolUse", ""), &Raw { exit: Some(0), stdout: &bytes, name: "h", ..Raw::default() }, FIRE);
        assert!(a.refuse && a.reason.unwrap().starts_with("cut "));
    }

    #[test]
    fn exit_codes_and_fail_closed() {
        let a =
            read(&hook("preToolUse", ""), &Raw { exit: Some(2), stderr: b"no\n", name: "h", ..Raw::default() }, FIRE);
        assert!(a.refuse);
        assert_eq!(a.reason.as_deref(), Some("no"));
        assert_eq!(answer("beforeShellExecution", "", 2, "blocked!").reason.as_deref(), Some("blocked!"));
        assert!(answer("beforeSubmitPrompt", "", 2, "").refuse);
        let stop = answer("stop", "", 2, r#"{"followup_message":"go on"}"#);
        assert!(!stop.refuse && stop.followup.is_none() && stop.failure.unwrap().contains("exit 2 cannot refuse"));
        // Only exit 0's stdout is read: a deny printed with exit 3 lets the action through.
        let a = answer("preToolUse", "", 3, r#"{"permission":"deny"}"#);
        assert!(!a.refuse && a.failure.as_deref() == Some("exit code 3"));
        for (exit, out) in [(3, r#"{"permission":"deny"}"#), (0, "not json"), (0, "[1]"), (0, ""), (127, "")] {
            let open = answer("preToolUse", "", exit, out);
            assert!(!open.refuse, "fail open: {exit} {out:?}");
            let closed = answer("preToolUse", r#","failClosed":true"#, exit, out);
            assert!(closed.refuse, "fail closed: {exit} {out:?}");
            assert!(closed.reason.unwrap().contains("configured failClosed"));
            assert!(!answer("postToolUse", r#","failClosed":true"#, exit, out).refuse, "nothing to refuse");
        }
        assert_eq!(answer("preToolUse", "", 0, "").failure, None, "no output: no decision");
        assert!(answer("preToolUse", r#","failClosed":true"#, 0, "{}").refuse == false, "an object decides nothing");
        let timed_out =
            Raw { failed: Some("timed out after 1 s".into()), timed_out: true, name: "h", ..Raw::default() };
        assert!(!read(&hook("preToolUse", ""), &timed_out, FIRE).refuse);
        assert!(read(&hook("preToolUse", r#","failClosed":true"#), &timed_out, FIRE).refuse);
        let big = Raw {
            exit: Some(0),
            overflow: true,
            failed: Some("output over 1 MiB".into()),
            name: "h",
            ..Raw::default()
        };
        assert!(read(&hook("preToolUse", ""), &big, FIRE).refuse, "size never decides");
        assert!(!read(&hook("stop", ""), &big, FIRE).refuse);
    }

    #[test]
    fn prompt_context_rewrite_and_followups() {
        let a = answer("beforeSubmitPrompt", "", 0, r#"{"continue":false,"user_message":"no secrets"}"#);
        assert!(
            a.refuse && a.reason.as_deref() == Some("no secrets") && a.user_message.as_deref() == Some("no secrets")
        );
        assert!(!answer("preToolUse", "", 0, r#"{"continue":false}"#).refuse, "continue is ignored elsewhere");
        assert!(!answer("sessionStart", "", 0, r#"{"continue":false}"#).refuse);
        assert_eq!(answer("postToolUse", "", 0, r#"{"additional_context":"ctx"}"#).context.as_deref(), Some("ctx"));
        let a = answer("preToolUse", "", 0, r#"{"permission":"allow","updated_input":{"command":"ls -la"}}"#);
        assert_eq!(a.updated_input, Some(serde_json::json!({"command": "ls -la"})));
        assert_eq!(answer("beforeShellExecution", "", 0, r#"{"updated_input":{"command":"x"}}"#).updated_input, None);
        assert_eq!(
            answer("preToolUse", "", 0, r#"{"permission":"deny","updated_input":{"command":"x"}}"#).updated_input,
            None
        );
        let f = answer("stop", "", 0, r#"{"followup_message":"keep going"}"#);
        assert_eq!(f.followup.as_deref(), Some("keep going"));
        let h = hook("stop", "");
        let capped = read(&h, &ran(0, r#"{"followup_message":"again"}"#), Fire { loop_count: 5, status: "completed" });
        assert!(capped.followup.is_none() && capped.failure.unwrap().contains("loop_limit 5"));
        let h = hook("stop", r#","loop_limit":null"#);
        assert!(read(&h, &ran(0, r#"{"followup_message":"again"}"#), Fire { loop_count: 500, status: "completed" })
            .followup
            .is_some());
        let h = hook("subagentStop", r#","loop_limit":2"#);
        let out = r#"{"followup_message":"more"}"#;
        assert!(read(&h, &ran(0, out), Fire { loop_count: 1, status: "completed" }).followup.is_some());
        assert!(read(&h, &ran(0, out), Fire { loop_count: 2, status: "completed" }).followup.is_none());
        assert!(read(&h, &ran(0, out), Fire { loop_count: 0, status: "aborted" }).followup.is_none());
        assert!(answer("afterAgentResponse", "", 0, out).followup.is_none());
    }

    #[test]
    fn prompt_hook_verdicts() {
        let h = Hook {
            handler: Handler::Callback { kind: "prompt", fields: Default::default() },
            ..hook("preToolUse", "")
        };
        let cb =
            |out: &'static [u8]| read(&h, &Raw { via: Via::Callback, stdout: out, name: "p", ..Raw::default() }, FIRE);
        assert!(cb(br#"{"ok":false,"reason":"unsafe"}"#).refuse);
        assert_eq!(cb(br#"{"ok":false,"reason":"unsafe"}"#).reason.as_deref(), Some("unsafe"));
        assert!(!cb(br#"{"ok":true}"#).refuse);
        assert!(cb(br#"{"permission":"deny"}"#).refuse);
        assert_eq!(cb(b"  "), CursorAnswer::default());
        let stop = Hook { handler: h.handler.clone(), ..hook("stop", "") };
        assert!(!read(&stop, &Raw { via: Via::Callback, stdout: br#"{"ok":false}"#, ..Raw::default() }, FIRE).refuse);
    }

    #[test]
    fn merge_any_deny_then_ask_then_last_rewrite() {
        let ev = |n: &str| CursorEvent::by_name(n).unwrap();
        let to = |a: CursorAnswer, n: &str| a.into_answer(ev(n));
        let allow = || CursorAnswer { permission: Some(Permission::Allow), ..Default::default() };
        let rewrite = |n: i32| CursorAnswer {
            updated_input: Some(serde_json::json!({ "a": n })),
            context: Some(format!("c{n}")),
            ..Default::default()
        };
        let ask = || CursorAnswer {
            permission: Some(Permission::Ask),
            reason: Some("ask?".into()),
            user_message: Some("u-ask".into()),
            ..Default::default()
        };
        let deny = |r: &str, u: Option<&str>| CursorAnswer {
            refuse: true,
            reason: Some(r.into()),
            user_message: u.map(str::to_string),
            ..Default::default()
        };
        let m = merge(
            Event::PreToolUse,
            &[to(allow(), "preToolUse"), to(rewrite(1), "preToolUse"), to(rewrite(2), "preToolUse")],
        );
        assert_eq!(m.permission, Some(Permission::Allow));
        assert_eq!(m.updated_input, Some(serde_json::json!({"a": 2})));
        assert_eq!(m.contexts, ["c1", "c2"]);
        let m = merge(
            Event::PreToolUse,
            &[to(rewrite(1), "preToolUse"), to(ask(), "beforeShellExecution"), to(allow(), "preToolUse")],
        );
        assert_eq!((m.permission, m.reason.as_deref(), m.updated_input), (Some(Permission::Ask), Some("ask?"), None));
        assert_eq!(m.system_messages, ["u-ask"]);
        let m = merge(
            Event::PreToolUse,
            &[
                to(allow(), "preToolUse"),
                to(ask(), "beforeShellExecution"),
                to(deny("no", Some("u-no")), "preToolUse"),
                to(deny("no2", None), "beforeShellExecution"),
            ],
        );
        assert!(m.block);
        assert_eq!((m.permission, m.reason.as_deref()), (Some(Permission::Deny), Some("no")));
        assert_eq!(m.system_messages, ["u-ask", "u-no"]);
        let m = merge(Event::UserPromptSubmit, &[to(deny("no", None), "beforeSubmitPrompt")]);
        assert!(m.block && m.permission.is_none(), "a refused prompt has no permission decision");
        let m = merge(Event::SubagentStart, &[to(deny("no", None), "subagentStart")]);
        assert_eq!(m.permission, Some(Permission::Deny));
        let f = |t: &str| CursorAnswer { followup: Some(t.into()), ..Default::default() }.into_answer(ev("stop"));
        let m = merge(Event::TurnStop, &[f("one"), Answer::default(), f("two")]);
        assert!(m.block);
        assert_eq!(m.reason.as_deref(), Some("one\n\ntwo"));
        assert!(!merge(Event::TurnStop, &[Answer::default()]).block);
    }
}
