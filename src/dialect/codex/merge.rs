//! How the answers of one step of Codex hooks combine (docs/dialects/codex.md "Merging"),
//! as Codex folds the results of the hooks it started at once: any block wins, and its reason is
//! the first blocking hook's in configuration order; Stop and SubagentStop reasons of every
//! blocking hook are joined by a blank line, and `continue: false` there beats a block; the
//! rewrite that counts is the one of the hook that finished last; on PermissionRequest the first
//! deny wins, else an allow. Pure.

use crate::dialect::{Answer, Decision};
use crate::event::Event;
use crate::response::Permission;

/// `answers` in configuration order, each with when it finished.
pub fn merge(event: Event, answers: &[Answer]) -> Decision {
    let mut m = Decision {
        // `continue: false` refuses the event where `fire` waits for Codex hooks to refuse it:
        // a prompt, a compaction. Elsewhere it is passed on to the harness (`continue: false`).
        stop_ends_walk: matches!(event, Event::UserPromptSubmit | Event::PreCompact),
        ..Decision::default()
    };
    for a in answers {
        m.contexts.extend(a.context.clone().filter(|c| !c.is_empty()));
        m.system_messages.extend(a.system_message.clone().filter(|s| !s.is_empty()));
        if a.stop.is_some() && m.stop.as_deref().map_or(true, str::is_empty) {
            m.stop = a.stop.clone();
        }
    }
    let blockers = || answers.iter().filter(|a| a.block);
    match event {
        Event::PermissionRequest => {
            if let Some(a) = answers.iter().find(|a| a.permission == Some(Permission::Deny)) {
                m.block = true;
                m.permission = Some(Permission::Deny);
                m.reason = a.reason.clone();
            } else if answers.iter().any(|a| a.permission == Some(Permission::Allow)) {
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
            let feedback: Vec<&str> = answers.iter().filter_map(|a| a.reason.as_deref()).collect();
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
                // Codex keeps the rewrite of the hook that finished last.
                m.updated_input = answers
                    .iter()
                    .filter(|a| a.updated_input.is_some())
                    .max_by_key(|a| a.finished)
                    .and_then(|a| a.updated_input.clone());
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::{Duration, Instant};

    /// Finished `rank` seconds after a common start.
    fn at(rank: u64) -> Option<Instant> {
        Some(Instant::now().checked_sub(Duration::from_secs(100)).unwrap() + Duration::from_secs(rank))
    }

    fn block(r: &str, rank: u64) -> Answer {
        Answer {
            block: true,
            permission: Some(Permission::Deny),
            reason: Some(r.into()),
            finished: at(rank),
            ..Answer::default()
        }
    }

    fn rewrite(c: &str, rank: u64) -> Answer {
        Answer { updated_input: Some(json!({"command": c})), finished: at(rank), ..Answer::default() }
    }

    #[test]
    fn any_block_wins_with_the_first_reason_in_configuration_order() {
        let m = merge(Event::PreToolUse, &[rewrite("a", 0), block("second", 2), block("third", 1)]);
        assert!(m.block && m.permission == Some(Permission::Deny));
        assert_eq!(m.reason.as_deref(), Some("second"), "configuration order, not completion order");
        assert_eq!(m.updated_input, None, "no rewrite when blocked");
    }

    #[test]
    fn the_rewrite_of_the_hook_that_finished_last_wins() {
        let m = merge(Event::PreToolUse, &[rewrite("first-configured", 1), rewrite("second-configured", 0)]);
        assert_eq!(m.updated_input, Some(json!({"command": "first-configured"})));
        assert!(!m.block && m.permission.is_none());
    }

    #[test]
    fn stop_reasons_are_joined_and_continue_false_beats_a_block() {
        let stop = |r: &str| Answer { block: true, reason: Some(r.into()), ..Answer::default() };
        let m = merge(Event::TurnStop, &[stop("run tests"), Answer::default(), stop("fix lint")]);
        assert_eq!((m.block, m.reason.as_deref()), (true, Some("run tests\n\nfix lint")));
        let halt = Answer { stop: Some("enough".into()), ..Answer::default() };
        let m = merge(Event::TurnStop, &[stop("run tests"), halt]);
        assert_eq!((m.block, m.stop.as_deref(), m.stop_ends_walk), (false, Some("enough"), false));
    }

    #[test]
    fn permission_request_any_deny_else_allow() {
        let allow = Answer { permission: Some(Permission::Allow), ..Answer::default() };
        let deny = |r: &str| Answer {
            block: true,
            permission: Some(Permission::Deny),
            reason: Some(r.into()),
            ..Answer::default()
        };
        let m = merge(Event::PermissionRequest, &[allow.clone(), deny("no"), deny("later"), allow.clone()]);
        assert_eq!((m.block, m.permission, m.reason.as_deref()), (true, Some(Permission::Deny), Some("no")));
        let m = merge(Event::PermissionRequest, &[Answer::default(), allow]);
        assert_eq!(m.permission, Some(Permission::Allow));
        assert_eq!(merge(Event::PermissionRequest, &[Answer::default()]).permission, None);
    }

    #[test]
    fn feedback_contexts_messages_and_user_prompt_submit() {
        let fb = |f: &str| Answer {
            reason: Some(f.into()),
            context: Some(format!("c-{f}")),
            system_message: Some(format!("m-{f}")),
            ..Answer::default()
        };
        let m = merge(Event::PostToolUse, &[fb("a"), fb("b")]);
        assert_eq!((m.block, m.reason.as_deref()), (false, Some("a\n\nb")));
        assert_eq!((m.contexts.len(), m.system_messages.len()), (2, 2));
        let ups =
            Answer { block: true, reason: Some("no secrets".into()), context: Some("ctx".into()), ..Answer::default() };
        let m = merge(Event::UserPromptSubmit, &[ups]);
        assert!(m.block && m.permission.is_none() && m.contexts == ["ctx"]);
        let halt = Answer { stop: Some("".into()), ..Answer::default() };
        assert!(merge(Event::UserPromptSubmit, &[halt]).stop_ends_walk, "continue: false refuses the prompt");
    }
}
