//! Claude Code's merge (README "Claude Code hooks"): the Claude Code hooks of a fire all run, in parallel and
//! to completion, and their answers combine by precedence — `continue: false` above all, then
//! deny > defer > ask > allow; every additionalContext is kept, and the last `updatedInput` in
//! configuration order wins. The hooks of one layer kind are one step of the walk, after the
//! openHarness hooks of that kind (own layers' steps before project layers', README "Merging").

use super::{join, Merged, Walk};
use crate::event::Event;
use crate::response::claude::ClaudeAnswer;
use crate::response::Permission;
use serde_json::Value;
use std::ops::ControlFlow;

/// The Claude Code hooks' combined answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaudeMerged {
    /// The event is blocked (or, on Stop/SubagentStop, the agent must not stop yet).
    pub block: bool,
    pub permission: Option<Permission>,
    pub reason: Option<String>,
    pub contexts: Vec<String>,
    pub updated_input: Option<Value>,
    pub updated_prompt: Option<String>,
    pub updated_permissions: Option<Value>,
    pub interrupt: bool,
    pub stop: Option<String>,
    pub system_messages: Vec<String>,
}

/// Events whose answers carry a permission decision.
fn has_permission(event: Event) -> bool {
    matches!(event, Event::PreToolUse | Event::PermissionRequest | Event::PreModelSwitch)
}

/// `answers` in configuration order.
pub fn merge(event: Event, answers: &[ClaudeAnswer]) -> ClaudeMerged {
    let mut m = ClaudeMerged::default();
    let blockers: Vec<&ClaudeAnswer> = answers.iter().filter(|a| a.block).collect();
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
        if event.claude_can_block() {
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

impl Walk {
    /// The Claude Code hooks of one layer kind as one step of the walk (the walk is not yet
    /// decided). `Break`: decided, later steps do not run — a block, or `continue: false` on an
    /// event that waits for it. Otherwise the step's decision (allow, ask, defer) is remembered
    /// and ranked against the other steps' as Claude Code ranks them, its reason kept; a rewrite
    /// applies to the envelope the later steps receive. An allow does not end the walk: a later
    /// step may still deny.
    ///
    /// `who` names the hook that blocked or stopped (see [`super::denied_by`]), for a block that
    /// has no reason otherwise.
    pub fn claude_step(&mut self, event: Event, m: ClaudeMerged, who: impl FnOnce() -> String) -> ControlFlow<()> {
        debug_assert!(self.done.is_none(), "Claude Code step after the walk was decided");
        self.contexts.extend(m.contexts);
        self.system_messages.extend(m.system_messages);
        self.interrupt |= m.interrupt;
        if self.stop.is_none() {
            self.stop = m.stop.clone();
        }
        let stop_blocks = m.stop.is_some() && event.waits_for_claude();
        if m.block || stop_blocks {
            self.done = Some(Merged {
                allowed: false,
                permission: m.permission.filter(|p| *p == Permission::Deny && m.block),
                // A block gives its own reason; `continue: false` alone overrules the decisions,
                // so theirs (an allow's "fine") must not explain why the agent stops.
                reason: Some(super::deny_reason(
                    if m.block { m.reason } else { None }
                        .or_else(|| m.stop.clone().filter(|s| !s.is_empty()))
                        .or_else(|| self.step_reason.take()),
                    self.first_reason.take(),
                    who,
                )),
                context: join(&self.contexts),
                ..Merged::default()
            });
            return ControlFlow::Break(());
        }
        if m.updated_input.is_some() {
            self.updated_input = m.updated_input;
        }
        if m.updated_prompt.is_some() {
            self.updated_prompt = m.updated_prompt;
        }
        if m.updated_permissions.is_some() {
            self.updated_permissions = m.updated_permissions;
        }
        match m.permission {
            Some(p @ (Permission::Allow | Permission::Ask | Permission::Defer)) => {
                // Across steps as inside one: defer > ask > allow; the first of a rank keeps it.
                let rank = |p: Permission| match p {
                    Permission::Defer => 3,
                    Permission::Ask => 2,
                    _ => 1,
                };
                if self.decision.as_ref().map_or(true, |(q, _)| rank(p) > rank(*q)) {
                    self.decision = Some((p, m.reason.filter(|r| !r.is_empty())));
                }
            }
            _ => {
                if self.step_reason.is_none() {
                    self.step_reason = m.reason.filter(|r| !r.is_empty());
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Non-blocking events with `waitNonBlocking`: decisions ignored, context, the first
    /// reason, messages and `continue: false` kept.
    pub fn claude_gather(&mut self, m: ClaudeMerged) -> (Option<String>, Option<String>) {
        self.contexts.extend(m.contexts);
        if self.first_reason.is_none() {
            self.first_reason = m.reason.filter(|r| !r.is_empty());
        }
        (m.stop, join_lines(&m.system_messages))
    }
}

pub(crate) fn join_lines(parts: &[String]) -> Option<String> {
    (!parts.is_empty()).then(|| parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn a(permission: Option<Permission>, reason: Option<&str>) -> ClaudeAnswer {
        ClaudeAnswer {
            block: permission == Some(Permission::Deny),
            permission,
            reason: reason.map(Into::into),
            ..ClaudeAnswer::default()
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
        let first = ClaudeAnswer {
            context: Some("one".into()),
            updated_input: Some(json!({"n": 1})),
            permission: Some(Permission::Allow),
            ..ClaudeAnswer::default()
        };
        let second = ClaudeAnswer {
            context: Some("two".into()),
            updated_input: Some(json!({"n": 2})),
            ..ClaudeAnswer::default()
        };
        let m = merge(Event::PreToolUse, &[first, second]);
        assert_eq!(m.contexts, ["one", "two"]);
        assert_eq!(m.updated_input, Some(json!({"n": 2})));
    }

    #[test]
    fn stop_family_and_non_blocking_events() {
        let ctx = ClaudeAnswer { context: Some("keep going".into()), ..ClaudeAnswer::default() };
        assert!(merge(Event::TurnStop, std::slice::from_ref(&ctx)).block, "context on Stop continues the turn");
        assert!(!merge(Event::PostToolUse, &[ctx]).block);
        let blocked = ClaudeAnswer { block: true, reason: Some("lint failed".into()), ..ClaudeAnswer::default() };
        let m = merge(Event::PostToolUse, &[blocked]);
        assert!(!m.block, "PostToolUse cannot be blocked");
        assert_eq!(m.reason.as_deref(), Some("lint failed"), "but the text is feedback");
    }

    /// Version 1.2: a Claude Code step need not be the last. Its allow is remembered, not final:
    /// a later step's deny still denies, a later ask outranks it.
    #[test]
    fn a_step_is_not_the_last() {
        use crate::response::{Decision, HookResult};
        let allow = || merge(Event::PreToolUse, &[a(Some(Permission::Allow), Some("ok"))]);
        let mut w = Walk::new();
        assert!(w.claude_step(Event::PreToolUse, allow(), String::new).is_continue());
        let deny = HookResult { decision: Some(Decision::Deny), reason: Some("no".into()), ..HookResult::default() };
        assert!(w.step(deny, String::new).is_break());
        let m = w.finish();
        assert_eq!((m.allowed, m.reason.as_deref()), (false, Some("no")));

        let mut w = Walk::new();
        assert!(w.claude_step(Event::PreToolUse, allow(), String::new).is_continue());
        let ask = merge(Event::PreToolUse, &[a(Some(Permission::Ask), Some("hmm"))]);
        assert!(w.claude_step(Event::PreToolUse, ask, String::new).is_continue());
        let m = w.finish();
        assert_eq!((m.allowed, m.permission, m.reason.as_deref()), (true, Some(Permission::Ask), Some("hmm")));

        let mut w = Walk::new();
        assert!(w.claude_step(Event::PreToolUse, allow(), String::new).is_continue());
        let blocked = merge(Event::PreToolUse, &[a(Some(Permission::Deny), Some("never"))]);
        assert!(w.claude_step(Event::PreToolUse, blocked, String::new).is_break());
        assert_eq!(w.finish().permission, Some(Permission::Deny));
    }

    #[test]
    fn continue_false_above_all() {
        let mut w = Walk::new();
        let stop = ClaudeAnswer { stop: Some("halt".into()), ..ClaudeAnswer::default() };
        let allow = ClaudeAnswer {
            permission: Some(Permission::Allow),
            reason: Some("fine".into()),
            ..ClaudeAnswer::default()
        };
        let _ = w.claude_step(Event::PreToolUse, merge(Event::PreToolUse, &[allow, stop]), || "unused".into());
        let m = w.finish();
        assert!(!m.allowed);
        assert_eq!(m.permission, None, "the overruled allow is not the outcome's decision");
        assert_eq!((m.stop.as_deref(), m.reason.as_deref()), (Some("halt"), Some("halt")));
    }
}
