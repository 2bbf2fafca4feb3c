//! openHarness's precedence (docs/config.md "Merging"): each hook is a step of its own, so one
//! answer makes one [`Decision`], which the walk takes by [`Precedence::FirstDecides`]. Pure.

use super::answer::is_deny;
use crate::dialect::{Answer, Decision, Precedence};
use crate::response::Permission;

/// Whether [`decision`] of `answer` is a step that changes nothing in the walk: no block, no
/// permission, no reason, no context, no rewrite (what it reads of an answer). The commonest
/// answer, `{}` (a callback's "fine"), is one; the blocking walk skips its step
/// (src/engine/fire.rs), and a test pins that the step would have changed nothing.
pub fn decides_nothing(answer: &Answer) -> bool {
    !answer.block
        && answer.permission.is_none()
        && answer.reason.is_none()
        && answer.context.is_none()
        && answer.updated_input.is_none()
        && answer.updated_prompt.is_none()
}

/// One openHarness hook's answer as a step of the walk. A deny is a deny whatever permission
/// decision came with it (`permissionDecision: "deny"` when it carried any); a top-level
/// `decision: "allow"` decides nothing.
pub fn decision(answer: Answer) -> Decision {
    let deny = is_deny(&answer);
    Decision {
        block: deny,
        permission: if deny { answer.permission.map(|_| Permission::Deny) } else { answer.permission },
        reason: answer.reason,
        contexts: answer.context.into_iter().collect(),
        updated_input: answer.updated_input,
        updated_prompt: answer.updated_prompt,
        precedence: Precedence::FirstDecides,
        ..Decision::default()
    }
}
