//! The walk over a fire's steps (docs/config.md "Merging"), fed one step at a time so that a
//! short-circuit stops later hooks from running at all. A step is one [`Decision`]: one
//! openHarness hook's answer made one by its precedence rule (`dialect::openharness::merge`), or
//! a registered dialect's hooks of one layer kind combined by its `Dialect::merge`. The step's
//! [`Precedence`] says how the walk weighs it; the walk ends with one [`Decision`] too, the
//! outcome's ([`Decision::into_outcome`]).

use crate::dialect::{Decision, Precedence};
use crate::outcome::{Outcome, Trace};
use crate::response::Permission;
use serde_json::Value;
use std::ops::ControlFlow;

impl Decision {
    /// The outcome of a walk: its decision, the traces of the hooks that ran, the warnings.
    pub fn into_outcome(self, hooks: Vec<Trace>, warnings: Vec<String>) -> Outcome {
        Outcome {
            allowed: !self.block,
            permission_decision: self.permission.map(|p| p.as_str()),
            additional_context: self.context(),
            reason: self.reason,
            updated_input: self.updated_input,
            updated_prompt: self.updated_prompt,
            updated_permissions: self.updated_permissions,
            interrupt: self.interrupt.then_some(true),
            continue_: self.stop.is_some().then_some(false),
            stop_reason: self.stop.filter(|s| !s.is_empty()),
            system_message: join_lines(&self.system_messages),
            extra: self.extra,
            hooks,
            warnings,
            error: None,
        }
    }

    /// The outcome's `additionalContext`: the non-empty contexts joined by a blank line.
    pub fn context(&self) -> Option<String> {
        join(&self.contexts)
    }
}

#[derive(Debug, Default)]
pub struct Walk {
    contexts: Vec<String>,
    first_reason: Option<String>,
    saw_ask: bool,
    done: Option<Decision>,
    updated_input: Option<Value>,
    updated_prompt: Option<String>,
    // What a ranked step carries on to the end of the walk: its steps need not be the last
    // (own hooks of every dialect run before project ones).
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

    /// Takes the next step (the walk is not yet decided). `Break`: decided, later steps do not
    /// run — a block, `continue: false` on an event that waits for it, or (openHarness's
    /// precedence) a permission allow. Otherwise a ranked step's decision (allow, ask, defer)
    /// is remembered and ranked against the other steps' as Claude Code ranks them, its reason
    /// kept, and an openHarness step's ask is remembered and its reason kept if it is the
    /// first; a rewrite applies to the envelope the later steps receive.
    ///
    /// `who` names the hook that blocked or stopped (see [`denied_by`]), for a block that has no
    /// reason otherwise; it is called only then.
    pub fn step(&mut self, m: Decision, who: impl FnOnce() -> String) -> ControlFlow<()> {
        debug_assert!(self.done.is_none(), "a step after the walk was decided");
        self.extra.extend(m.extra);
        self.contexts.extend(m.contexts.into_iter().filter(|c| !c.is_empty()));
        self.system_messages.extend(m.system_messages);
        self.interrupt |= m.interrupt;
        if self.stop.is_none() {
            self.stop = m.stop.clone();
        }
        let stop_blocks = m.stop.is_some() && m.stop_ends_walk;
        if m.block || stop_blocks {
            let (reason, contexts) = match m.precedence {
                // A deny is a deny: its reason or the first seen; the context gathered is dropped.
                Precedence::FirstDecides => (deny_reason(m.reason, self.first_reason.take(), who), Vec::new()),
                // A block gives its own reason; `continue: false` alone overrules the decisions,
                // so theirs (an allow's "fine") must not explain why the agent stops.
                Precedence::Ranked => (
                    deny_reason(
                        if m.block { m.reason } else { None }
                            .or_else(|| m.stop.clone().filter(|s| !s.is_empty()))
                            .or_else(|| self.step_reason.take()),
                        self.first_reason.take(),
                        who,
                    ),
                    std::mem::take(&mut self.contexts),
                ),
            };
            self.done = Some(Decision {
                block: true,
                permission: m.permission.filter(|p| *p == Permission::Deny && m.block),
                reason: Some(reason),
                contexts,
                ..Decision::default()
            });
            return ControlFlow::Break(());
        }
        // A rewrite replaces any earlier one: the last in walk order wins.
        if m.updated_input.is_some() {
            self.updated_input = m.updated_input;
        }
        if m.updated_prompt.is_some() {
            self.updated_prompt = m.updated_prompt;
        }
        if m.updated_permissions.is_some() {
            self.updated_permissions = m.updated_permissions;
        }
        match (m.precedence, m.permission) {
            (Precedence::FirstDecides, Some(Permission::Allow)) => {
                // Keeping the context, dropping the reasons.
                self.done = Some(Decision {
                    permission: Some(Permission::Allow),
                    contexts: std::mem::take(&mut self.contexts),
                    updated_input: self.updated_input.take(),
                    updated_prompt: self.updated_prompt.take(),
                    ..Decision::default()
                });
                return ControlFlow::Break(());
            }
            (Precedence::FirstDecides, p) => {
                self.saw_ask |= p == Some(Permission::Ask);
                if self.first_reason.is_none() {
                    self.first_reason = m.reason.filter(|r| !r.is_empty());
                }
            }
            (Precedence::Ranked, Some(p @ (Permission::Allow | Permission::Ask | Permission::Defer))) => {
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
            (Precedence::Ranked, _) => {
                if self.step_reason.is_none() {
                    self.step_reason = m.reason.filter(|r| !r.is_empty());
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Whether the walk is decided (later hooks, every dialect's included, do not run).
    pub fn is_done(&self) -> bool {
        self.done.is_some()
    }

    /// A step of an event that cannot block (or of `waitNonBlocking`): decisions ignored;
    /// context, the first reason and outcome keys kept. Returns the step's `continue: false`
    /// and its messages, joined, for the caller to keep.
    pub fn gather(&mut self, m: Decision) -> (Option<String>, Option<String>) {
        self.extra.extend(m.extra);
        self.contexts.extend(m.contexts.into_iter().filter(|c| !c.is_empty()));
        if self.first_reason.is_none() {
            self.first_reason = m.reason.filter(|r| !r.is_empty());
        }
        (m.stop, join_lines(&m.system_messages))
    }

    pub fn finish(self) -> Decision {
        if let Some(mut done) = self.done {
            // What an earlier step said for the user and the harness stays, whoever decided.
            done.system_messages = self.system_messages;
            done.stop = self.stop;
            done.interrupt |= self.interrupt;
            if !done.block {
                done.updated_permissions = self.updated_permissions;
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
        Decision {
            permission,
            reason: decision_reason.flatten().or(self.step_reason).or(self.first_reason),
            contexts: self.contexts,
            updated_input: self.updated_input,
            updated_prompt: self.updated_prompt,
            updated_permissions: self.updated_permissions,
            interrupt: self.interrupt,
            stop: self.stop,
            system_messages: self.system_messages,
            extra: self.extra,
            ..Decision::default()
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
    use crate::dialect::openharness::merge::decision;
    use crate::dialect::Answer;

    /// An openHarness answer's top-level `decision`.
    #[derive(Clone, Copy)]
    enum Top {
        Allow,
        Deny,
    }

    fn r(top: Option<Top>, permission: Option<Permission>, reason: Option<&str>, context: Option<&str>) -> Answer {
        Answer {
            block: matches!(top, Some(Top::Deny)),
            allow: matches!(top, Some(Top::Allow)),
            permission,
            reason: reason.map(Into::into),
            context: context.map(Into::into),
            ..Answer::default()
        }
    }

    /// openHarness hooks one after another, each a step, as the engine walks them.
    fn walk(results: Vec<Answer>) -> (Decision, usize) {
        let mut w = Walk::new();
        let mut ran = 0;
        for result in results {
            ran += 1;
            if w.step(decision(result), || "denied by test hook".into()).is_break() {
                break;
            }
        }
        (w.finish(), ran)
    }

    /// A step that decides nothing ([`decides_nothing`]) changes nothing in the walk, whatever
    /// came before; and an untouched walk ends as the allowed outcome with its traces. The
    /// blocking walk counts on both when it skips such steps (src/engine/fire.rs).
    ///
    /// [`decides_nothing`]: crate::dialect::openharness::merge::decides_nothing
    #[test]
    fn a_step_that_decides_nothing_changes_nothing() {
        use crate::dialect::openharness::merge::decides_nothing;
        let mut extra = serde_json::Map::new();
        extra.insert("k".into(), Value::Bool(true));
        let quiet = [
            Answer::default(),
            r(Some(Top::Allow), None, None, None),
            Answer {
                interrupt: true,
                stop: Some("stop".into()),
                system_message: Some("message".into()),
                failure: Some("failed".into()),
                updated_permissions: Some(Value::Bool(true)),
                extra,
                finished: Some(std::time::Instant::now()),
                ..Answer::default()
            },
        ];
        let befores = [
            vec![],
            vec![r(None, Some(Permission::Ask), Some("why"), Some("ctx"))],
            vec![r(None, None, Some("first"), None), r(None, None, None, Some("more"))],
        ];
        for before in &befores {
            for answer in &quiet {
                assert!(decides_nothing(answer), "{answer:?}");
                let mut w = Walk::new();
                for b in before {
                    assert!(w.step(decision(b.clone()), || "denied by test hook".into()).is_continue());
                }
                let was = format!("{w:?}");
                assert!(w.step(decision(answer.clone()), || "denied by test hook".into()).is_continue());
                assert_eq!(format!("{w:?}"), was, "{answer:?} after {before:?}");
            }
        }
        let says = [
            r(Some(Top::Deny), None, None, None),
            r(None, Some(Permission::Allow), None, None),
            r(None, Some(Permission::Ask), None, None),
            r(None, None, Some(""), None),
            r(None, None, None, Some("")),
            Answer { updated_input: Some(Value::Null), ..Answer::default() },
            Answer { updated_prompt: Some(String::new()), ..Answer::default() },
        ];
        for answer in &says {
            assert!(!decides_nothing(answer), "{answer:?}");
        }
        let traces = vec![Trace::default(), Trace { index: 1, ..Trace::default() }];
        let warnings = vec!["w".to_string()];
        assert_eq!(
            Walk::new().finish().into_outcome(traces.clone(), warnings.clone()),
            Outcome { hooks: traces, ..Outcome::allowed(warnings) }
        );
    }

    fn contexts(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn deny_short_circuits_with_earlier_reason() {
        let (m, ran) = walk(vec![
            r(None, None, Some("first"), Some("ctx")),
            r(Some(Top::Deny), None, None, None),
            r(None, Some(Permission::Allow), None, None),
        ]);
        assert_eq!(ran, 2);
        assert_eq!(m, Decision { block: true, permission: None, reason: Some("first".into()), ..Decision::default() });
        assert_eq!(m.context(), None, "the context gathered is dropped");
    }

    #[test]
    fn deny_with_permission_allow_is_a_deny() {
        let (m, _) = walk(vec![r(Some(Top::Deny), Some(Permission::Allow), Some("no"), None)]);
        assert_eq!(
            m,
            Decision {
                block: true,
                permission: Some(Permission::Deny),
                reason: Some("no".into()),
                ..Decision::default()
            }
        );
    }

    #[test]
    fn permission_allow_keeps_context() {
        let (m, ran) = walk(vec![
            r(Some(Top::Allow), None, Some("why"), Some("a")),
            r(None, Some(Permission::Ask), None, Some("")),
            r(None, Some(Permission::Allow), None, Some("b")),
            r(Some(Top::Deny), None, None, None),
        ]);
        assert_eq!(ran, 3);
        assert_eq!(
            m,
            Decision {
                block: false,
                permission: Some(Permission::Allow),
                contexts: contexts(&["a", "b"]),
                ..Decision::default()
            }
        );
        assert_eq!(m.context(), Some("a\n\nb".into()));
    }

    #[test]
    fn ask_remembered_context_joined() {
        let (m, ran) = walk(vec![
            r(None, Some(Permission::Ask), None, Some("a")),
            r(Some(Top::Allow), None, Some("r"), Some("b")),
            r(None, None, Some("later"), None),
        ]);
        assert_eq!(ran, 3);
        assert_eq!(
            m,
            Decision {
                block: false,
                permission: Some(Permission::Ask),
                reason: Some("r".into()),
                contexts: contexts(&["a", "b"]),
                ..Decision::default()
            }
        );
        assert_eq!(m.context(), Some("a\n\nb".into()));
    }

    #[test]
    fn nothing() {
        assert_eq!(walk(vec![]).0, Decision { block: false, ..Decision::default() });
    }
}
