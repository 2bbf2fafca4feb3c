//! Property tests of the blocking-event merge (CONTRACT §3.8) against oh_hooks::merge::Walk:
//! random result sequences compared with an independent model of the four rules, plus the
//! individual rules stated on their own.

use oh_hooks::dialect::openharness::merge::decision;
use oh_hooks::dialect::{Answer, Decision as Step};
use oh_hooks::merge::Walk;
use oh_hooks::response::Permission;
use proptest::prelude::*;

/// What the harness sees of a walk's end: the outcome's fields the four rules set (the walk
/// ends with a `Decision`; `allowed` is `!block`, `additionalContext` its joined contexts).
#[derive(Debug, Default, PartialEq)]
struct Merged {
    allowed: bool,
    permission: Option<Permission>,
    reason: Option<String>,
    context: Option<String>,
}

fn merged(d: Step) -> Merged {
    Merged { allowed: !d.block, permission: d.permission, context: d.context(), reason: d.reason }
}

/// An openHarness answer's top-level `decision`.
#[derive(Debug, Clone, Copy)]
enum Decision {
    Allow,
    Deny,
}

fn result() -> impl Strategy<Value = Answer> {
    (
        prop::option::of(prop_oneof![Just(Decision::Allow), Just(Decision::Deny)]),
        prop::option::of(prop_oneof![Just(Permission::Allow), Just(Permission::Deny), Just(Permission::Ask)]),
        // Reasons as the engine produces them: absent or non-empty.
        prop::option::of("[a-z]{1,3}"),
        // Contexts may be empty strings: those are skipped when joining.
        prop::option::of("[a-z]{0,3}"),
    )
        .prop_map(|(decision, permission, reason, context)| Answer {
            block: matches!(decision, Some(Decision::Deny)),
            allow: matches!(decision, Some(Decision::Allow)),
            permission,
            reason,
            context,
            ..Answer::default()
        })
}

/// Results biased towards "no decision", so that walks often run long.
fn results() -> impl Strategy<Value = Vec<Answer>> {
    let quiet = (prop::option::of("[a-z]{1,3}"), prop::option::of("[a-z]{0,3}")).prop_map(|(reason, context)| Answer {
        permission: None,
        reason,
        context,
        ..Answer::default()
    });
    prop::collection::vec(prop_oneof![2 => quiet, 3 => result()], 0..8)
}

/// Feeds the walk as the engine does; returns the merge and how many results were taken.
fn walk(results: &[Answer]) -> (Merged, usize) {
    let mut w = Walk::new();
    let mut taken = 0;
    for (i, r) in results.iter().enumerate() {
        taken += 1;
        if w.step(decision(r.clone()), || format!("denied by hook {i}")).is_break() {
            break;
        }
    }
    (merged(w.finish()), taken)
}

fn is_deny(r: &Answer) -> bool {
    r.block || r.permission == Some(Permission::Deny)
}

fn join(parts: &[String]) -> Option<String> {
    let parts: Vec<&str> = parts.iter().map(String::as_str).filter(|c| !c.is_empty()).collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// CONTRACT §3.8, written from the text.
fn model(results: &[Answer]) -> (Merged, usize) {
    let mut contexts: Vec<String> = Vec::new();
    let mut first_reason: Option<String> = None;
    let mut ask = false;
    for (i, r) in results.iter().enumerate() {
        if is_deny(r) {
            return (
                Merged {
                    allowed: false,
                    permission: r.permission.map(|_| Permission::Deny),
                    // Every deny has a reason (1.2): its own, the first seen, else the hook's name.
                    reason: Some(
                        r.reason
                            .clone()
                            .filter(|s| !s.is_empty())
                            .or(first_reason)
                            .unwrap_or(format!("denied by hook {i}")),
                    ),
                    ..Merged::default()
                },
                i + 1,
            );
        }
        if r.permission == Some(Permission::Allow) {
            contexts.extend(r.context.clone());
            return (
                Merged {
                    allowed: true,
                    permission: Some(Permission::Allow),
                    context: join(&contexts),
                    ..Merged::default()
                },
                i + 1,
            );
        }
        ask |= r.permission == Some(Permission::Ask);
        contexts.extend(r.context.clone());
        if first_reason.is_none() {
            first_reason = r.reason.clone().filter(|s| !s.is_empty());
        }
    }
    (
        Merged {
            allowed: true,
            permission: ask.then_some(Permission::Ask),
            reason: first_reason,
            context: join(&contexts),
        },
        results.len(),
    )
}

/// Index of the first result that decides the walk (a deny or a permission allow).
fn first_stop(results: &[Answer]) -> Option<usize> {
    results.iter().position(|r| is_deny(r) || r.permission == Some(Permission::Allow))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn walk_equals_the_contract_model(rs in results()) {
        prop_assert_eq!(walk(&rs), model(&rs), "results: {:?}", rs);
    }

    /// Any deny before the first permission allow: not allowed.
    #[test]
    fn deny_before_permission_allow_denies(rs in results()) {
        let first_deny = rs.iter().position(is_deny);
        let first_allow = rs.iter().position(|r| r.permission == Some(Permission::Allow) && !is_deny(r));
        if let Some(d) = first_deny {
            if first_allow.map_or(true, |a| d < a) {
                let (m, _) = walk(&rs);
                prop_assert!(!m.allowed, "{:?}", rs);
                prop_assert_eq!(m.context, None, "context is dropped on a deny");
                prop_assert_eq!(m.permission, rs[d].permission.map(|_| Permission::Deny));
            }
        }
    }

    /// A permission allow before any deny: allowed, permissionDecision allow, no reason.
    #[test]
    fn permission_allow_before_deny_allows(rs in results()) {
        if let Some(a) = first_stop(&rs) {
            if !is_deny(&rs[a]) {
                let (m, _) = walk(&rs);
                prop_assert!(m.allowed);
                prop_assert_eq!(m.permission, Some(Permission::Allow));
                prop_assert_eq!(m.reason, None);
            }
        }
    }

    /// The walk takes results up to and including the first deny or permission allow, and no
    /// further (later hooks must not run).
    #[test]
    fn walk_stops_exactly_at_the_first_decider(rs in results()) {
        let (_, taken) = walk(&rs);
        prop_assert_eq!(taken, first_stop(&rs).map_or(rs.len(), |i| i + 1));
    }

    /// Context: the non-empty contexts up to the stop, in order, joined by a blank line.
    #[test]
    fn context_order_preserved(rs in results()) {
        let (m, taken) = walk(&rs);
        if m.allowed {
            let expected: Vec<String> = rs[..taken].iter().filter_map(|r| r.context.clone()).filter(|c| !c.is_empty()).collect();
            let expected = (!expected.is_empty()).then(|| expected.join("\n\n"));
            prop_assert_eq!(m.context, expected);
        }
    }

    /// Reason fallback on a deny: its own, else the first non-empty reason before it, else (1.2:
    /// every deny has a reason) one naming the hook. An empty own reason is no reason.
    #[test]
    fn deny_reason_fallback(rs in results()) {
        if let Some(i) = first_stop(&rs) {
            if is_deny(&rs[i]) {
                let earlier = rs[..i].iter().find_map(|r| r.reason.clone().filter(|s| !s.is_empty()));
                let own = rs[i].reason.clone().filter(|s| !s.is_empty());
                prop_assert_eq!(walk(&rs).0.reason, Some(own.or(earlier).unwrap_or(format!("denied by hook {i}"))));
            }
        }
    }

    /// Without a stop: allowed, `ask` when any ask was seen, and the first reason.
    #[test]
    fn no_stop_keeps_ask_and_first_reason(rs in results()) {
        if first_stop(&rs).is_none() {
            let (m, _) = walk(&rs);
            prop_assert!(m.allowed);
            let any_ask = rs.iter().any(|r| r.permission == Some(Permission::Ask));
            prop_assert_eq!(m.permission, any_ask.then_some(Permission::Ask));
            prop_assert_eq!(m.reason, rs.iter().find_map(|r| r.reason.clone()));
        }
    }

    /// A top-level `decision: "allow"` never stops the walk.
    #[test]
    fn top_level_allow_does_not_stop(rest in results()) {
        let mut rs = vec![Answer { allow: true, ..Answer::default() }];
        rs.extend(rest);
        let (_, taken) = walk(&rs);
        prop_assert!(taken >= 2 || rs.len() == 1);
    }

    /// `gather` alone (non-blocking events): always allowed, decisions ignored, every
    /// non-empty context in order, the first reason.
    #[test]
    fn gather_ignores_decisions(rs in results()) {
        let mut w = Walk::new();
        for r in &rs {
            w.gather(decision(r.clone()));
        }
        let m = merged(w.finish());
        prop_assert!(m.allowed);
        prop_assert_eq!(m.permission, None);
        prop_assert_eq!(m.reason, rs.iter().find_map(|r| r.reason.clone()));
        let all: Vec<String> = rs.iter().filter_map(|r| r.context.clone()).collect();
        prop_assert_eq!(m.context, join(&all));
    }
}
