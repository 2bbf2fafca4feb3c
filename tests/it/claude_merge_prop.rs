//! Claude Code's parallel merge (CONTRACT §8) against a model written from the rules, over
//! random answers: deny > defer > ask > allow, `continue: false` above all, every context kept,
//! the last `updatedInput` in configuration order.

use oh_hooks::dialect::claude::merge::merge;
use oh_hooks::dialect::Answer as ClaudeAnswer;
use oh_hooks::event::Event;
use oh_hooks::merge::Walk;
use oh_hooks::response::Permission;
use proptest::prelude::*;
use serde_json::json;

fn answer() -> impl Strategy<Value = ClaudeAnswer> {
    let permission = prop_oneof![
        Just(None),
        Just(Some(Permission::Allow)),
        Just(Some(Permission::Ask)),
        Just(Some(Permission::Defer)),
        Just(Some(Permission::Deny)),
    ];
    (permission, any::<bool>(), proptest::option::of("[a-c]{0,2}"), proptest::option::of(0u8..5), any::<bool>())
        .prop_map(|(permission, exit2, context, input, stop)| ClaudeAnswer {
            block: exit2 || permission == Some(Permission::Deny),
            permission,
            reason: Some(format!("{permission:?}")),
            context,
            updated_input: input.map(|n| json!({ "n": n })),
            stop: stop.then(|| "halt".to_string()),
            ..ClaudeAnswer::default()
        })
}

proptest! {
    #[test]
    fn pre_tool_use_merge_follows_claude_codes_precedence(answers in proptest::collection::vec(answer(), 0..6)) {
        let m = merge(Event::PreToolUse, &answers);
        let blocked = answers.iter().any(|a| a.block);
        prop_assert_eq!(m.block, blocked);
        if blocked {
            prop_assert_eq!(m.permission, Some(Permission::Deny));
            prop_assert_eq!(m.updated_input.clone(), None);
        } else {
            let has = |p| answers.iter().any(|a| a.permission == Some(p));
            let want = [Permission::Defer, Permission::Ask, Permission::Allow].into_iter().find(|p| has(*p));
            prop_assert_eq!(m.permission, want);
            let last = answers
                .iter()
                .rev()
                .filter(|a| a.permission != Some(Permission::Defer))
                .find_map(|a| a.updated_input.clone());
            prop_assert_eq!(m.updated_input.clone(), last);
        }
        let contexts: Vec<String> = answers.iter().filter_map(|a| a.context.clone()).filter(|c| !c.is_empty()).collect();
        prop_assert_eq!(&m.contexts, &contexts, "every context kept, in order");

        let stop = answers.iter().any(|a| a.stop.is_some());
        let mut walk = Walk::new();
        let _ = walk.step(m, || "denied by the hook".into());
        let out = walk.finish();
        if out.block {
            prop_assert!(out.reason.as_deref().is_some_and(|r| !r.is_empty()), "every deny has a reason (1.2)");
        }
        prop_assert_eq!(!out.block, !blocked && !stop, "continue:false and deny both refuse");
        prop_assert_eq!(out.stop.is_some(), stop);
        if stop && !blocked {
            prop_assert_eq!(out.reason.as_deref(), Some("halt"), "an overruled decision's reason is not the stop's");
        }
    }

    #[test]
    fn non_blocking_events_never_block(answers in proptest::collection::vec(answer(), 0..6)) {
        let m = merge(Event::PostToolUse, &answers);
        prop_assert!(!m.block);
    }
}
