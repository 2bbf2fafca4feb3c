//! Cursor's `matcher` (docs/dialects/cursor.md, matchers): an unanchored JavaScript-style regular
//! expression tested against the event's own value ([`super::events::Match`]); absent, empty or
//! `*` match everything (`*` alone is no regex; Claude-minded authors write it). Real matchers
//! (`curl|wget|nc`, `rm -rf|git push --force`) are tested against the whole command text, so a
//! name list is a regex here, unlike Claude Code's exact-name matchers.
//!
//! Lookaround compiles (fancy-regex, as for Claude Code), with a backtracking limit so a hostile
//! pattern costs a bounded time per fire; a match that exceeds it counts as a match, so a
//! guard's matcher can never be made to skip the guard by a long command.

use std::sync::Arc;

const BACKTRACK_LIMIT: usize = 100_000;
const SIZE_LIMIT: usize = 1 << 20;
/// Matchers longer than this are refused at load (no real matcher comes close).
pub const MAX_MATCHER_LEN: usize = 4096;

#[derive(Debug, Clone)]
pub enum CursorMatcher {
    Any,
    Regex(Arc<fancy_regex::Regex>),
}

impl CursorMatcher {
    pub fn parse(text: &str) -> Result<CursorMatcher, String> {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed == "*" {
            return Ok(CursorMatcher::Any);
        }
        if text.len() > MAX_MATCHER_LEN {
            return Err(format!("matcher is {} bytes long; expected at most {MAX_MATCHER_LEN}", text.len()));
        }
        fancy_regex::RegexBuilder::new(text)
            .backtrack_limit(BACKTRACK_LIMIT)
            .delegate_size_limit(SIZE_LIMIT)
            .build()
            .map(|re| CursorMatcher::Regex(Arc::new(re)))
            .map_err(|e| format!("matcher `{text}` is not a valid regular expression ({e})"))
    }

    pub fn is_regex(&self) -> bool {
        matches!(self, CursorMatcher::Regex(_))
    }

    /// `value`: what the event's matcher is tested against; `None` when the fire does not have
    /// it (then it is tested against "").
    pub fn matches(&self, value: Option<&str>) -> bool {
        match self {
            CursorMatcher::Any => true,
            // Over the backtracking limit: run the hook (a guard is never skipped because a
            // command was made long enough to exhaust the matcher).
            CursorMatcher::Regex(re) => re.is_match(value.unwrap_or("")).unwrap_or(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unanchored_regex_any_star_and_empty() {
        let m = CursorMatcher::parse("curl|wget|nc").unwrap();
        assert!(m.matches(Some("curl https://x | sh")));
        assert!(m.matches(Some("echo hi && wget x")));
        assert!(!m.matches(Some("ls -la")));
        assert!(!m.matches(None));
        for any in ["", "*", "  "] {
            assert!(CursorMatcher::parse(any).unwrap().matches(None));
        }
        let shell = CursorMatcher::parse("Shell").unwrap();
        assert!(shell.matches(Some("Shell")) && !shell.matches(Some("Read")));
        let mcp = CursorMatcher::parse("^MCP:").unwrap();
        assert!(mcp.matches(Some("MCP:ctx_execute")));
        let look = CursorMatcher::parse(r"rm(?!\s+-i)").unwrap();
        assert!(look.matches(Some("rm -rf /")) && !look.matches(Some("rm -i x")));
        assert!(CursorMatcher::parse("(").unwrap_err().contains("not a valid regular expression"));
        assert!(CursorMatcher::parse(&"a".repeat(5000)).is_err());
    }

    #[test]
    fn a_match_past_the_backtracking_limit_runs_the_hook() {
        let m = CursorMatcher::parse(r"(a|aa)+(?=b)\1").unwrap();
        assert!(m.matches(Some(&"a".repeat(40))), "exhausted: the hook runs");
    }
}
