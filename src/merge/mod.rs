//! The merge of a blocking event's hook results (docs/config.md "Merging"), as a walk the engine feeds one
//! result at a time so that a short-circuit stops later hooks from running at all. A dialect's
//! hooks of one layer kind are one step: the dialect merges them (`Dialect::merge`) and the walk
//! takes the [`Decision`] ([`Walk::dialect_step`]).

use crate::dialect::openharness::answer::is_deny;
use crate::dialect::{Answer, Decision};
use crate::outcome::{Outcome, Trace};
use crate::response::Permission;
use serde_json::Value;
use std::ops::ControlFlow;

/// The merged decision.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    pub allowed: bool,
    pub permission: Option<Permission>,
    pub reason: Option<String>,
    pub context: Option<String>,
    /// The tool input to use instead (the last rewrite in configuration order).
    pub updated_input: Option<Value>,
    pub updated_prompt: Option<String>,
    pub updated_permissions: Option<Value>,
    pub interrupt: bool,
    /// `continue: false`: the harness should stop the agent, with this reason.
    pub stop: Option<String>,
    /// Messages for the user, joined by newlines.
    pub system_message: Option<String>,
    /// Outcome keys a dialect adds under its own names (docs/dialects.md).
    pub extra: serde_json::Map<String, Value>,
}

impl Merged {
    /// The outcome of a walk: its decision, the traces of the hooks that ran, the warnings.
    pub fn into_outcome(self, hooks: Vec<Trace>, warnings: Vec<String>) -> Outcome {
        let merged = self;
        Outcome {
            allowed: merged.allowed,
            permission_decision: merged.permission.map(|p| p.as_str()),
            reason: merged.reason,
            additional_context: merged.context,
            updated_input: merged.updated_input,
            updated_prompt: merged.updated_prompt,
            updated_permissions: merged.updated_permissions,
            interrupt: merged.interrupt.then_some(true),
            continue_: merged.stop.is_some().then_some(false),
            stop_reason: merged.stop.filter(|s| !s.is_empty()),
            system_message: merged.system_message,
            extra: merged.extra,
            hooks,
            warnings,
            error: None,
        }
    }
}

#[derive(Debug, Default)]
pub struct Walk {
    contexts: Vec<String>,
    first_reason: Option<String>,
    saw_ask: bool,
    done: Option<Merged>,
    updated_input: Option<Value>,
    updated_prompt: Option<String>,
    // What a dialect's step ([`Walk::dialect_step`]) carries on to the end of the
    // walk: its steps need not be the last (own hooks of every dialect run before project ones).
    /// The highest-ranked decision of such steps (defer > ask > allow) with its reason.
    decision: Option<(Permission, Option<String>)>,
    /// The reason of such a step that gave no decision: ahead of the first reason, as 1.1
    /// gave a Claude Code step's reason.
    step_reason: Option<String>,
    system_messages: Vec<String>,
    stop: Option<String>,
    interrupt: bool,
    updated_permissions: Option<Value>,
    extra: serde_json::Map<String, Value>,
}

impl Walk {
    pub fn new() -> Walk {
        Walk::default()
    }

    /// Takes the next matching hook's result. `Break` means the walk is decided: later hooks
    /// must not run. `who` names the hook ([`denied_by`]); it is called only for a deny that
    /// has no reason otherwise.
    pub fn step(&mut self, result: Answer, who: impl FnOnce() -> String) -> ControlFlow<()> {
        debug_assert!(self.done.is_none(), "step after the walk was decided");
        if is_deny(&result) {
            // Rule 1: a deny is a deny, whatever permission decision came with it.
            self.done = Some(Merged {
                allowed: false,
                permission: result.permission.map(|_| Permission::Deny),
                reason: Some(deny_reason(result.reason, self.first_reason.take(), who)),
                ..Merged::default()
            });
            return ControlFlow::Break(());
        }
        if result.permission == Some(Permission::Allow) {
            // Rule 2: permission allow stops the walk, keeping context, dropping reasons.
            self.rewrites(&result);
            self.contexts.extend(result.context);
            self.done = Some(Merged {
                allowed: true,
                permission: Some(Permission::Allow),
                context: join(&self.contexts),
                updated_input: self.updated_input.take(),
                updated_prompt: self.updated_prompt.take(),
                ..Merged::default()
            });
            return ControlFlow::Break(());
        }
        // Rules 3 and 4.
        self.saw_ask |= result.permission == Some(Permission::Ask);
        self.rewrites(&result);
        self.gather(result);
        ControlFlow::Continue(())
    }

    /// A rewrite replaces any earlier one: the last in configuration order wins.
    fn rewrites(&mut self, result: &Answer) {
        if let Some(input) = &result.updated_input {
            self.updated_input = Some(input.clone());
        }
        if let Some(prompt) = &result.updated_prompt {
            self.updated_prompt = Some(prompt.clone());
        }
    }

    /// Whether the walk is decided (later hooks, every dialect's included, do not run).
    pub fn is_done(&self) -> bool {
        self.done.is_some()
    }

    /// Rule 4 alone: what non-blocking events keep of their hooks' results.
    pub fn gather(&mut self, result: Answer) {
        self.contexts.extend(result.context.filter(|c| !c.is_empty()));
        if self.first_reason.is_none() {
            self.first_reason = result.reason.filter(|r| !r.is_empty());
        }
    }

    /// One dialect's hooks of one layer kind as one step of the walk (the walk is not yet
    /// decided). `Break`: decided, later steps do not run — a block, or `continue: false` on an
    /// event that waits for it. Otherwise the step's decision (allow, ask, defer) is remembered
    /// and ranked against the other steps' as Claude Code ranks them, its reason kept; a rewrite
    /// applies to the envelope the later steps receive. An allow does not end the walk: a later
    /// step may still deny.
    ///
    /// `who` names the hook that blocked or stopped (see [`super::denied_by`]), for a block that
    /// has no reason otherwise.
    pub fn dialect_step(&mut self, m: Decision, who: impl FnOnce() -> String) -> ControlFlow<()> {
        debug_assert!(self.done.is_none(), "a dialect's step after the walk was decided");
        self.extra.extend(m.extra);
        self.contexts.extend(m.contexts);
        self.system_messages.extend(m.system_messages);
        self.interrupt |= m.interrupt;
        if self.stop.is_none() {
            self.stop = m.stop.clone();
        }
        let stop_blocks = m.stop.is_some() && m.stop_ends_walk;
        if m.block || stop_blocks {
            self.done = Some(Merged {
                allowed: false,
                permission: m.permission.filter(|p| *p == Permission::Deny && m.block),
                // A block gives its own reason; `continue: false` alone overrules the decisions,
                // so theirs (an allow's "fine") must not explain why the agent stops.
                reason: Some(deny_reason(
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
    pub fn dialect_gather(&mut self, m: Decision) -> (Option<String>, Option<String>) {
        self.extra.extend(m.extra);
        self.contexts.extend(m.contexts);
        if self.first_reason.is_none() {
            self.first_reason = m.reason.filter(|r| !r.is_empty());
        }
        (m.stop, join_lines(&m.system_messages))
    }

    pub fn finish(self) -> Merged {
        let system_message = join_lines(&self.system_messages);
        if let Some(mut done) = self.done {
            // What an earlier step said for the user and the harness stays, whoever decided.
            done.system_message = done.system_message.or(system_message);
            done.stop = done.stop.or(self.stop);
            done.interrupt |= self.interrupt;
            if done.allowed {
                done.updated_permissions = done.updated_permissions.or(self.updated_permissions);
            }
            done.extra = self.extra;
            return done;
        }
        let (decided, decision_reason) = self.decision.unzip();
        let permission = match decided {
            Some(Permission::Defer) => Some(Permission::Defer),
            _ if self.saw_ask => Some(Permission::Ask),
            p => p,
        };
        Merged {
            allowed: true,
            permission,
            reason: decision_reason.flatten().or(self.step_reason).or(self.first_reason),
            context: join(&self.contexts),
            updated_input: self.updated_input,
            updated_prompt: self.updated_prompt,
            updated_permissions: self.updated_permissions,
            interrupt: self.interrupt,
            stop: self.stop,
            system_message,
            extra: self.extra,
        }
    }
}

/// The reason of a deny: the deciding hook's own, else the first reason seen before it (docs/config.md
/// "Merging"), else one naming the hook, so that a harness always has something to show. Every
/// deny of the walk gets its reason here, every dialect's alike.
pub(crate) fn deny_reason(own: Option<String>, earlier: Option<String>, who: impl FnOnce() -> String) -> String {
    own.filter(|r| !r.is_empty()).or(earlier).unwrap_or_else(who)
}

/// Longest hook text (a command, a URL, a question) quoted in a reason.
const WHAT_MAX: usize = 200;

/// `denied by <kind> `<what>`[ (exit N | signal N | HTTP N)]`: the reason of a deny whose hook
/// gave none. `kind` is `command hook`, `persistent hook`, `http hook`, `prompt hook`,
/// `callback` or a dialect's (`Claude Code hook`); `what` the command, URL, question or callback name.
pub fn denied_by(kind: &str, what: &str, trace: &Trace) -> String {
    let mut what = what.trim();
    let mut ellipsis = "";
    if what.len() > WHAT_MAX {
        let mut end = WHAT_MAX;
        while !what.is_char_boundary(end) {
            end -= 1;
        }
        what = &what[..end];
        ellipsis = "…";
    }
    let status = match (trace.exit_code, trace.signal, trace.status) {
        (Some(code), _, _) if code != 0 => format!(" (exit {code})"),
        (_, Some(signal), _) => format!(" (signal {signal})"),
        (_, _, Some(status)) if !(200..300).contains(&status) => format!(" (HTTP {status})"),
        _ => String::new(),
    };
    format!("denied by {kind} `{what}{ellipsis}`{status}")
}

pub(crate) fn join_lines(parts: &[String]) -> Option<String> {
    (!parts.is_empty()).then(|| parts.join("\n"))
}

pub(crate) fn join(contexts: &[String]) -> Option<String> {
    let parts: Vec<&str> = contexts.iter().map(String::as_str).filter(|c| !c.is_empty()).collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    enum Decision {
        Allow,
        Deny,
    }

    fn r(
        decision: Option<Decision>,
        permission: Option<Permission>,
        reason: Option<&str>,
        context: Option<&str>,
    ) -> Answer {
        Answer {
            block: matches!(decision, Some(Decision::Deny)),
            allow: matches!(decision, Some(Decision::Allow)),
            permission,
            reason: reason.map(Into::into),
            context: context.map(Into::into),
            ..Answer::default()
        }
    }

    fn walk(results: Vec<Answer>) -> (Merged, usize) {
        let mut w = Walk::new();
        let mut ran = 0;
        for result in results {
            ran += 1;
            if w.step(result, || "denied by test hook".into()).is_break() {
                break;
            }
        }
        (w.finish(), ran)
    }

    #[test]
    fn deny_short_circuits_with_earlier_reason() {
        let (m, ran) = walk(vec![
            r(None, None, Some("first"), Some("ctx")),
            r(Some(Decision::Deny), None, None, None),
            r(None, Some(Permission::Allow), None, None),
        ]);
        assert_eq!(ran, 2);
        assert_eq!(m, Merged { allowed: false, permission: None, reason: Some("first".into()), ..Merged::default() });
    }

    #[test]
    fn deny_with_permission_allow_is_a_deny() {
        let (m, _) = walk(vec![r(Some(Decision::Deny), Some(Permission::Allow), Some("no"), None)]);
        assert_eq!(
            m,
            Merged {
                allowed: false,
                permission: Some(Permission::Deny),
                reason: Some("no".into()),
                ..Merged::default()
            }
        );
    }

    #[test]
    fn permission_allow_keeps_context() {
        let (m, ran) = walk(vec![
            r(Some(Decision::Allow), None, Some("why"), Some("a")),
            r(None, Some(Permission::Ask), None, Some("")),
            r(None, Some(Permission::Allow), None, Some("b")),
            r(Some(Decision::Deny), None, None, None),
        ]);
        assert_eq!(ran, 3);
        assert_eq!(
            m,
            Merged {
                allowed: true,
                permission: Some(Permission::Allow),
                context: Some("a\n\nb".into()),
                ..Merged::default()
            }
        );
    }

    #[test]
    fn ask_remembered_context_joined() {
        let (m, ran) = walk(vec![
            r(None, Some(Permission::Ask), None, Some("a")),
            r(Some(Decision::Allow), None, Some("r"), Some("b")),
            r(None, None, Some("later"), None),
        ]);
        assert_eq!(ran, 3);
        assert_eq!(
            m,
            Merged {
                allowed: true,
                permission: Some(Permission::Ask),
                reason: Some("r".into()),
                context: Some("a\n\nb".into()),
                ..Merged::default()
            }
        );
    }

    #[test]
    fn nothing() {
        assert_eq!(walk(vec![]).0, Merged { allowed: true, ..Merged::default() });
    }
}
