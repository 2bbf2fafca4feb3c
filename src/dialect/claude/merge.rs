//! Claude Code's merge (docs/dialects/claude.md "Claude Code hooks"): the Claude Code hooks of a fire all run, in parallel and
//! to completion, and their answers combine by precedence — `continue: false` above all, then
//! deny > defer > ask > allow; every additionalContext is kept, and the last `updatedInput` in
//! configuration order wins. The hooks of one layer kind are one step of the walk, after the
//! openHarness hooks of that kind (own layers' steps before project layers', docs/config.md "Merging");
//! the walk's side of a step is `Walk::step` (`merge/`).

use super::events::{can_block, waits};
use crate::dialect::{Answer, Decision};
use crate::event::Event;
use crate::response::Permission;

/// Events whose answers carry a permission decision.
fn has_permission(event: Event) -> bool {
    matches!(event, Event::PreToolUse | Event::PermissionRequest | Event::PreModelSwitch)
}

/// `answers` in configuration order.
pub fn merge(event: Event, answers: &[Answer]) -> Decision {
    // `continue: false` ends the walk where `fire` waits for these hooks.
    let mut m = Decision { stop_ends_walk: waits(event), ..Decision::default() };
    let blockers: Vec<&Answer> = answers.iter().filter(|a| a.block).collect();
    let block_reason = || {
        let reasons: Vec<&str> =
            blockers.iter().filter_map(|a| a.reason.as_deref()).filter(|r| !r.is_empty()).collect();
        (!reasons.is_empty()).then(|| reasons.join("\n"))
    };
    for a in answers {
        m.contexts.extend(a.context.clone().filter(|c| !c.is_empty()));
        m.system_messages.extend(a.system_message.clone().filter(|s| !s.is_empty()));
        if m.stop.is_none() {
            m.stop = a.stop.clone();
        }
        m.extra.extend(a.extra.clone());
        m.interrupt |= a.interrupt;
        if !matches!(a.permission, Some(Permission::Deny | Permission::Defer)) && !a.block {
            if let Some(input) = &a.updated_input {
                m.updated_input = Some(input.clone());
            }
            if let Some(p) = &a.updated_permissions {
                m.updated_permissions = Some(p.clone());
            }
        }
        if let Some(p) = &a.updated_prompt {
            m.updated_prompt = Some(p.clone());
        }
    }
    if !blockers.is_empty() {
        m.reason = block_reason();
        if can_block(event) {
            m.block = true;
            m.permission = has_permission(event).then_some(Permission::Deny);
            m.updated_input = None;
            m.updated_permissions = None;
            return m;
        }
        // An event that cannot be blocked: the text is feedback for the model.
        return m;
    }
    // deny is handled above; then defer > ask > allow.
    for wanted in [Permission::Defer, Permission::Ask, Permission::Allow] {
        if let Some(a) = answers.iter().find(|a| a.permission == Some(wanted)) {
            m.permission = Some(wanted);
            m.reason = a.reason.clone();
            break;
        }
    }
    if m.permission.is_none() {
        m.reason = answers.iter().find_map(|a| a.reason.clone());
    }
    // Stop and SubagentStop: context means "continue with this", like a block.
    if matches!(event, Event::TurnStop | Event::SubagentStop) && !m.contexts.is_empty() {
        m.block = true;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::Walk;
    use serde_json::json;

    fn a(permission: Option<Permission>, reason: Option<&str>) -> Answer {
        Answer {
            block: permission == Some(Permission::Deny),
            permission,
            reason: reason.map(Into::into),
            ..Answer::default()
        }
    }

    #[test]
    fn precedence() {
        let m = merge(
            Event::PreToolUse,
            &[
                a(Some(Permission::Allow), Some("ok")),
                a(Some(Permission::Ask), Some("hmm")),
                a(Some(Permission::Defer), Some("later")),
            ],
        );
        assert_eq!((m.permission, m.reason.as_deref()), (Some(Permission::Defer), Some("later")));
        let m = merge(Event::PreToolUse, &[a(Some(Permission::Allow), None), a(Some(Permission::Ask), Some("hmm"))]);
        assert_eq!(m.permission, Some(Permission::Ask));
        let m = merge(
            Event::PreToolUse,
            &[
                a(Some(Permission::Deny), Some("no")),
                a(Some(Permission::Allow), None),
                a(Some(Permission::Deny), Some("never")),
            ],
        );
        assert!(m.block);
        assert_eq!((m.permission, m.reason.as_deref()), (Some(Permission::Deny), Some("no\nnever")));
    }

    #[test]
    fn context_kept_and_last_updated_input_wins() {
        let first = Answer {
            context: Some("one".into()),
            updated_input: Some(json!({"n": 1})),
            permission: Some(Permission::Allow),
            ..Answer::default()
        };
        let second = Answer { context: Some("two".into()), updated_input: Some(json!({"n": 2})), ..Answer::default() };
        let m = merge(Event::PreToolUse, &[first, second]);
        assert_eq!(m.contexts, ["one", "two"]);
        assert_eq!(m.updated_input, Some(json!({"n": 2})));
    }

    #[test]
    fn stop_family_and_non_blocking_events() {
        let ctx = Answer { context: Some("keep going".into()), ..Answer::default() };
        assert!(merge(Event::TurnStop, std::slice::from_ref(&ctx)).block, "context on Stop continues the turn");
        assert!(!merge(Event::PostToolUse, &[ctx]).block);
        let blocked = Answer { block: true, reason: Some("lint failed".into()), ..Answer::default() };
        let m = merge(Event::PostToolUse, &[blocked]);
        assert!(!m.block, "PostToolUse cannot be blocked");
        assert_eq!(m.reason.as_deref(), Some("lint failed"), "but the text is feedback");
    }

    /// Version 1.2: a Claude Code step need not be the last. Its allow is remembered, not final:
    /// a later step's deny still denies, a later ask outranks it.
    #[test]
    fn a_step_is_not_the_last() {
        let allow = || merge(Event::PreToolUse, &[a(Some(Permission::Allow), Some("ok"))]);
        let mut w = Walk::new();
        assert!(w.step(allow(), String::new).is_continue());
        let deny = Answer { block: true, reason: Some("no".into()), ..Answer::default() };
        assert!(w.step(crate::dialect::openharness::merge::decision(deny), String::new).is_break());
        let m = w.finish();
        assert_eq!((!m.block, m.reason.as_deref()), (false, Some("no")));

        let mut w = Walk::new();
        assert!(w.step(allow(), String::new).is_continue());
        let ask = merge(Event::PreToolUse, &[a(Some(Permission::Ask), Some("hmm"))]);
        assert!(w.step(ask, String::new).is_continue());
        let m = w.finish();
        assert_eq!((!m.block, m.permission, m.reason.as_deref()), (true, Some(Permission::Ask), Some("hmm")));

        let mut w = Walk::new();
        assert!(w.step(allow(), String::new).is_continue());
        let blocked = merge(Event::PreToolUse, &[a(Some(Permission::Deny), Some("never"))]);
        assert!(w.step(blocked, String::new).is_break());
        assert_eq!(w.finish().permission, Some(Permission::Deny));
    }

    #[test]
    fn continue_false_above_all() {
        let mut w = Walk::new();
        let stop = Answer { stop: Some("halt".into()), ..Answer::default() };
        let allow = Answer { permission: Some(Permission::Allow), reason: Some("fine".into()), ..Answer::default() };
        let _ = w.step(merge(Event::PreToolUse, &[allow, stop]), || "unused".into());
        let m = w.finish();
        assert!(m.block);
        assert_eq!(m.permission, None, "the overruled allow is not the outcome's decision");
        assert_eq!((m.stop.as_deref(), m.reason.as_deref()), (Some("halt"), Some("halt")));
    }
}
