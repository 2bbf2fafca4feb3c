//! Codex's matchers (docs/dialects/codex.md "Matchers"): absent, `""` or `"*"` match everything;
//! a matcher made only of ASCII letters, digits, `_` and `|` is an exact name or `|`-list;
//! anything else is an unanchored regex of the Rust `regex` crate (Codex's own engine, so the
//! syntax is exactly Codex's: no lookaround, no backreferences). Unlike Claude Code, `-`, spaces
//! and `,` make a regex, not a list: `Edit, Write` never matches `Edit` in Codex, nor here.
//!
//! A tool event's matcher is tested against the Codex tool name and its aliases (`apply_patch`
//! is also `Write` and `Edit`, `spawn_agent` is also `Agent`); the aliases are for matching
//! only and never appear on stdin.

use crate::event::Event;
use crate::matcher::field::FieldMatcher;
use std::sync::Arc;

/// Compiled-size limit of one matcher regex (a hostile file cannot make one costly).
const SIZE_LIMIT: usize = 1 << 20;
/// Matchers longer than this are refused at load (no real matcher comes close).
const MAX_MATCHER_LEN: usize = 4096;

#[derive(Debug, Clone)]
pub enum CodexMatcher {
    Any,
    /// Exact names (`Bash`, `Bash|apply_patch`).
    Names(Vec<String>),
    Regex(Arc<regex::Regex>),
}

impl PartialEq for CodexMatcher {
    fn eq(&self, other: &CodexMatcher) -> bool {
        match (self, other) {
            (CodexMatcher::Any, CodexMatcher::Any) => true,
            (CodexMatcher::Names(a), CodexMatcher::Names(b)) => a == b,
            (CodexMatcher::Regex(a), CodexMatcher::Regex(b)) => a.as_str() == b.as_str(),
            _ => false,
        }
    }
}

impl CodexMatcher {
    /// Codex's `is_exact_matcher` and `matches_matcher`: a compile error is the caller's
    /// warning (the group is skipped).
    pub fn parse(text: &str) -> Result<CodexMatcher, String> {
        if text.is_empty() || text == "*" {
            return Ok(CodexMatcher::Any);
        }
        if text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|') {
            return Ok(CodexMatcher::Names(text.split('|').map(str::to_string).collect()));
        }
        if text.len() > MAX_MATCHER_LEN {
            return Err(format!("matcher is {} bytes long; expected at most {MAX_MATCHER_LEN}", text.len()));
        }
        regex::RegexBuilder::new(text)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(SIZE_LIMIT)
            .build()
            .map(|re| CodexMatcher::Regex(Arc::new(re)))
            .map_err(|e| {
                let first = e.to_string().lines().last().unwrap_or("").trim().to_string();
                format!("matcher `{text}` is not a valid Rust regex ({first}); Codex skips this group")
            })
    }

    /// The same matcher as the engine's common hook carries it (`Names` and `Any` alike; a
    /// regex, already compiled by Codex's own `regex` syntax, is the same pattern).
    pub fn to_engine(&self, text: &str) -> Result<FieldMatcher, String> {
        Ok(match self {
            CodexMatcher::Any => FieldMatcher::Any,
            CodexMatcher::Names(n) => FieldMatcher::Names(n.clone()),
            CodexMatcher::Regex(_) => FieldMatcher::Regex(Arc::new(
                fancy_regex::RegexBuilder::new(text)
                    .delegate_size_limit(SIZE_LIMIT)
                    .build()
                    .map_err(|e| format!("matcher `{text}` cannot be compiled ({e})"))?,
            )),
        })
    }

    /// `values`: the matcher inputs of the fire (a tool name and its aliases); empty when the
    /// envelope lacks the field, and then only `Any` matches (Codex: no input, no match).
    pub fn matches(&self, values: &[&str]) -> bool {
        match self {
            CodexMatcher::Any => true,
            CodexMatcher::Names(names) => values.iter().any(|v| names.iter().any(|n| n == v)),
            CodexMatcher::Regex(re) => values.iter().any(|v| re.is_match(v)),
        }
    }
}

/// The stdin field a Codex event's matcher is tested against; `None` where Codex ignores the
/// matcher (UserPromptSubmit, Stop).
pub fn matcher_field(event: Event) -> Option<&'static str> {
    Some(match event {
        Event::PreToolUse | Event::PermissionRequest | Event::PostToolUse => "tool_name",
        Event::SessionStart => "source",
        Event::SubagentStart | Event::SubagentStop => "agent_type",
        Event::PreCompact | Event::PostCompact => "trigger",
        _ => return None,
    })
}

/// Codex's matcher aliases of a Codex tool name (its `hook_names.rs`).
pub fn aliases(tool: &str) -> &'static [&'static str] {
    match tool {
        "apply_patch" => &["Write", "Edit"],
        "spawn_agent" => &["Agent"],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> CodexMatcher {
        CodexMatcher::parse(text).unwrap()
    }

    #[test]
    fn exact_names_and_lists() {
        assert!(m("Bash").matches(&["Bash"]));
        assert!(!m("Bash").matches(&["BashOutput"]), "exact, not a prefix");
        assert!(!m("mcp__github").matches(&["mcp__github__create_issue"]));
        assert!(m("Bash|apply_patch").matches(&["apply_patch"]));
        assert!(m("").matches(&[]) && m("*").matches(&[]), "match-all also without a value");
        assert!(!m("Bash").matches(&[]), "no value: only match-all matches");
    }

    #[test]
    fn anything_else_is_an_unanchored_rust_regex() {
        assert!(m("my-tool").matches(&["my-tool-extra"]), "`-` makes a regex (Claude Code: a list)");
        assert!(!m("Edit, Write").matches(&["Edit"]), "`, ` makes a regex that never matches a name");
        assert!(m("^Bash$").matches(&["Bash"]) && !m("^Bash$").matches(&["Bashx"]));
        assert!(m("mcp__.*").matches(&["mcp__fs__read"]));
        assert!(!m("Bash(git *)").matches(&["Bash"]), "a permission rule is a regex that never matches");
        assert!(CodexMatcher::parse("(?=x)").unwrap_err().contains("not a valid Rust regex"), "no lookaround");
        assert!(CodexMatcher::parse("[").is_err());
        assert!(CodexMatcher::parse(&"a".repeat(5000).replace("aa", "a.")).is_err());
    }

    #[test]
    fn aliases_match_write_edit_and_agent() {
        let inputs: Vec<&str> = std::iter::once("apply_patch").chain(aliases("apply_patch").iter().copied()).collect();
        assert!(m("Edit|Write").matches(&inputs) && m("^Write$").matches(&inputs));
        let inputs: Vec<&str> = std::iter::once("spawn_agent").chain(aliases("spawn_agent").iter().copied()).collect();
        assert!(m("Agent").matches(&inputs));
        assert!(aliases("Bash").is_empty());
    }
}
