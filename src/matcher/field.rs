//! The `matcher` every dialect hook carries ([`crate::dialect::Hook`]), tested against the
//! value its dialect's view names for the event (a tool name, a session source, a trigger, …).
//!
//! [`FieldMatcher::parse`] reads Claude Code's syntax (docs/dialects/claude.md "Claude Code
//! hooks"), which Copilot shares; the other dialects build the variants from their own syntax.
//! `*`, empty or absent match everything; a matcher of only letters, digits, `_`, `-`, spaces,
//! `,` and `|` is an exact name or a list of them; anything else is an unanchored
//! JavaScript-style regex. Real matchers use lookaround, which the `regex` crate cannot compile,
//! so these go to `fancy-regex`, with a backtracking limit so a hostile pattern costs a bounded
//! time per fire.

/// Backtracking steps one regex match may take before it counts as no match.
const BACKTRACK_LIMIT: usize = 100_000;
/// Compiled-size limit of the parts fancy-regex hands to the `regex` crate.
const SIZE_LIMIT: usize = 1 << 20;
/// Matchers longer than this are refused at load (no real matcher comes close).
const MAX_MATCHER_LEN: usize = 4096;

#[derive(Debug, Clone)]
pub enum FieldMatcher {
    Any,
    /// Exact names (`Bash`, `Edit|Write`, `Edit, Write`).
    Names(Vec<String>),
    /// Shared: a pattern repeated across groups and files is compiled once.
    Regex(std::sync::Arc<fancy_regex::Regex>),
}

impl FieldMatcher {
    pub fn parse(text: &str) -> Result<FieldMatcher, String> {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed == "*" {
            return Ok(FieldMatcher::Any);
        }
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|');
        if trimmed.chars().all(plain) {
            let names: Vec<String> =
                trimmed.split(['|', ',']).map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect();
            return Ok(FieldMatcher::Names(names));
        }
        if text.len() > MAX_MATCHER_LEN {
            return Err(format!("regex matcher is {} bytes long; expected at most {MAX_MATCHER_LEN}", text.len()));
        }
        fancy_regex::RegexBuilder::new(text)
            .backtrack_limit(BACKTRACK_LIMIT)
            .delegate_size_limit(SIZE_LIMIT)
            .build()
            .map(|re| FieldMatcher::Regex(std::sync::Arc::new(re)))
            .map_err(|e| format!("matcher `{text}` is not a valid regular expression ({e})"))
    }

    /// `value`: the event's matcher field (`None`: the event has no such field, or the envelope
    /// lacks it, and then only `*`-like matchers and regexes matching "" run).
    pub fn matches(&self, value: Option<&str>) -> bool {
        let value = value.unwrap_or("");
        match self {
            FieldMatcher::Any => true,
            FieldMatcher::Names(names) => names.iter().any(|n| n == value),
            // A match that exceeds the backtracking limit is an error: no match.
            FieldMatcher::Regex(re) => re.is_match(value).unwrap_or(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(matcher: &str, value: &str) -> bool {
        FieldMatcher::parse(matcher).unwrap().matches(Some(value))
    }

    #[test]
    fn exact_names_and_lists() {
        assert!(m("Bash", "Bash"));
        assert!(!m("Bash", "BashOutput"), "exact, not a substring");
        assert!(!m("bash", "Bash"), "case-sensitive");
        assert!(m("Edit|Write", "Write"));
        assert!(m("Edit, Write", "Write"));
        assert!(!m("Edit|Write", "NotebookEdit"));
        assert!(m("my-tool", "my-tool"), "hyphens are exact since 2.1.195");
        assert!(!m("mcp__memory", "mcp__memory__create"), "an exact name, not a prefix");
        for any in ["", "*", "  "] {
            assert!(m(any, "anything"));
            assert!(FieldMatcher::parse(any).unwrap().matches(None));
        }
        assert!(!m("startup", ""), "a missing field matches only everything-matchers");
    }

    #[test]
    fn unanchored_regex_with_lookaround() {
        assert!(m("Edit.*", "NotebookEdit"), "unanchored");
        assert!(!m("^Edit$", "NotebookEdit"));
        assert!(m("mcp__memory__.*", "mcp__memory__create"));
        assert!(m("^(?!Read$).*", "Write"), "negative lookahead");
        assert!(!m("^(?!Read$).*", "Read"));
        assert!(m("(?<=mcp__)github", "mcp__github__x"), "lookbehind");
        assert!(FieldMatcher::parse("(unclosed").unwrap_err().contains("not a valid regular expression"));
        assert!(FieldMatcher::parse(&"a".repeat(5000)).is_ok(), "plain names have no length cost");
        assert!(FieldMatcher::parse(&format!("{}.", "a".repeat(5000))).is_err());
    }

    #[test]
    fn catastrophic_backtracking_is_bounded() {
        let re = FieldMatcher::parse("^(a+)+\\1$").unwrap();
        let start = std::time::Instant::now();
        assert!(!re.matches(Some(&format!("{}b", "a".repeat(40)))));
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
}
