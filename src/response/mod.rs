//! What every dialect's answer reader stands on: [`json`], the one tolerant JSON reader, and
//! [`Permission`], the permission decision of the outcome. What an answer's keys mean is each
//! dialect's own (`src/dialect/<name>/answer.rs`; openHarness's in `src/dialect/openharness/`).

pub mod json;

use crate::outcome::Verdict;

/// The permission decision of `hookSpecificOutput.decision` (and Claude Code's
/// `permissionDecision`, which adds `defer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    Allow,
    Deny,
    Ask,
    /// Claude Code only: the harness should pause the tool call for later.
    Defer,
}

impl From<Permission> for Verdict {
    fn from(p: Permission) -> Verdict {
        match p {
            Permission::Allow => Verdict::Allow,
            Permission::Deny => Verdict::Deny,
            Permission::Ask => Verdict::Ask,
            Permission::Defer => Verdict::Defer,
        }
    }
}

impl Permission {
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Deny => "deny",
            Permission::Ask => "ask",
            Permission::Defer => "defer",
        }
    }
}
