//! How the answers of one step of Codex hooks combine (docs/dialects/codex.md "Merging"),
//! as Codex folds the results of the hooks it started at once: any block wins, and its reason is
//! the first blocking hook's in configuration order; Stop and SubagentStop reasons of every
//! blocking hook are joined by a blank line, and `continue: false` there beats a block; the
//! rewrite that counts is the one of the hook that finished last; on PermissionRequest the first
//! deny wins, else an allow. Pure.

use super::answer::CodexAnswer;
use crate::event::Event;
use crate::response::Permission;
use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CodexMerged {
    /// Refused (PreToolUse, UserPromptSubmit), or do not stop yet (Stop, SubagentStop).
    pub block: bool,
    pub permission: Option<Permission>,
    pub reason: Option<String>,
    pub contexts: Vec<String>,
    /// In Codex's field names (the caller renames it back to the host's).
    pub updated_input: Option<Value>,
    /// `continue: false`: the first `stopReason` given (empty when none was).
    pub stop: Option<String>,
    pub system_messages: Vec<String>,
}

/// `answers` in configuration order, each with its rank in completion order.
pub fn merge(event: Event, answers: &[(CodexAnswer, usize)]) -> CodexMerged {
    let mut m = CodexMerged::default();
    for (a, _) in answers {
        m.contexts.extend(a.context.clone().filter(|c| !c.is_empty()));
        m.system_messages.extend(a.system_message.clone().filter(|s| !s.is_empty()));
        if a.stop.is_some() && m.stop.as_deref().map_or(true, str::is_empty) {
            m.stop = a.stop.clone();
        }
    }
    let blockers = || answers.iter().map(|(a, _)| a).filter(|a| a.block);
    match event {
        Event::PermissionRequest => {
            if let Some(a) = answers.iter().map(|(a, _)| a).find(|a| a.permission == Some(Permission::Deny)) {
                m.permission = Some(Permission::Deny);
                m.reason = a.reason.clone();
            } else if answers.iter().any(|(a, _)| a.permission == Some(Permission::Allow)) {
                m.permission = Some(Permission::Allow);
            }
        }
        Event::TurnStop | Event::SubagentStop => {
            if m.stop.is_none() && blockers().next().is_some() {
                m.block = true;
                let reasons: Vec<&str> = blockers().filter_map(|a| a.reason.as_deref()).collect();
                m.reason = Some(reasons.join("\n\n"));
            }
        }
        Event::PostToolUse => {
            let feedback: Vec<&str> = answers.iter().filter_map(|(a, _)| a.feedback.as_deref()).collect();
            if !feedback.is_empty() {
                m.reason = Some(feedback.join("\n\n"));
            }
        }
        _ => {
            if let Some(first) = blockers().next() {
                m.block = true;
                m.permission = (event == Event::PreToolUse).then_some(Permission::Deny);
                m.reason = first.reason.clone();
            } else if event == Event::PreToolUse {
                m.updated_input = answers
                    .iter()
                    .filter(|(a, _)| a.updated_input.is_some())
                    .max_by_key(|(_, finished)| *finished)
                    .and_then(|(a, _)| a.updated_input.clone());
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn block(r: &str) -> CodexAnswer {
        CodexAnswer {
            block: true,
            permission: Some(Permission::Deny),
            reason: Some(r.into()),
            ..CodexAnswer::default()
        }
    }

    fn rewrite(c: &str) -> CodexAnswer {
        CodexAnswer { updated_input: Some(json!({"command": c})), ..CodexAnswer::default() }
    }

    #[test]
    fn any_block_wins_with_the_first_reason_in_configuration_order() {
        let m = merge(Event::PreToolUse, &[(rewrite("a"), 0), (block("second"), 2), (block("third"), 1)]);
        assert!(m.block && m.permission == Some(Permission::Deny));
        assert_eq!(m.reason.as_deref(), Some("second"), "configuration order, not completion order");
        assert_eq!(m.updated_input, None, "no rewrite when blocked");
    }

    #[test]
    fn the_rewrite_of_the_hook_that_finished_last_wins() {
        let m = merge(Event::PreToolUse, &[(rewrite("first-configured"), 1), (rewrite("second-configured"), 0)]);
        assert_eq!(m.updated_input, Some(json!({"command": "first-configured"})));
        assert!(!m.block && m.permission.is_none());
    }

    #[test]
    fn stop_reasons_are_joined_and_continue_false_beats_a_block() {
        let stop = |r: &str| CodexAnswer { block: true, reason: Some(r.into()), ..CodexAnswer::default() };
        let m = merge(Event::TurnStop, &[(stop("run tests"), 0), (CodexAnswer::default(), 1), (stop("fix lint"), 2)]);
        assert_eq!((m.block, m.reason.as_deref()), (true, Some("run tests\n\nfix lint")));
        let halt = CodexAnswer { stop: Some("enough".into()), ..CodexAnswer::default() };
        let m = merge(Event::TurnStop, &[(stop("run tests"), 0), (halt, 1)]);
        assert_eq!((m.block, m.stop.as_deref()), (false, Some("enough")));
    }

    #[test]
    fn permission_request_any_deny_else_allow() {
        let allow = CodexAnswer { permission: Some(Permission::Allow), ..CodexAnswer::default() };
        let deny = |r: &str| CodexAnswer {
            permission: Some(Permission::Deny),
            reason: Some(r.into()),
            ..CodexAnswer::default()
        };
        let m = merge(
            Event::PermissionRequest,
            &[(allow.clone(), 0), (deny("no"), 1), (deny("later"), 2), (allow.clone(), 3)],
        );
        assert_eq!((m.permission, m.reason.as_deref()), (Some(Permission::Deny), Some("no")));
        let m = merge(Event::PermissionRequest, &[(CodexAnswer::default(), 0), (allow, 1)]);
        assert_eq!(m.permission, Some(Permission::Allow));
        assert_eq!(merge(Event::PermissionRequest, &[(CodexAnswer::default(), 0)]).permission, None);
    }

    #[test]
    fn feedback_contexts_messages_and_user_prompt_submit() {
        let fb = |f: &str| CodexAnswer {
            feedback: Some(f.into()),
            context: Some(format!("c-{f}")),
            system_message: Some(format!("m-{f}")),
            ..CodexAnswer::default()
        };
        let m = merge(Event::PostToolUse, &[(fb("a"), 0), (fb("b"), 1)]);
        assert_eq!((m.block, m.reason.as_deref()), (false, Some("a\n\nb")));
        assert_eq!((m.contexts.len(), m.system_messages.len()), (2, 2));
        let ups = CodexAnswer {
            block: true,
            reason: Some("no secrets".into()),
            context: Some("ctx".into()),
            ..CodexAnswer::default()
        };
        let m = merge(Event::UserPromptSubmit, &[(ups, 0)]);
        assert!(m.block && m.permission.is_none() && m.contexts == ["ctx"]);
    }
}
