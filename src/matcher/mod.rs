//! `match` filters (docs/config.md "Matchers"), compiled once when the config loads.
//!
//! The fire path calls [`Matcher::matches`] for every hook of the event, so the common forms
//! (substring, glob) are plain string operations; only `/regex/` patterns use the regex engine.

pub mod claude;
pub mod field;
pub mod glob;
pub mod shell;

use regex_automata::meta;
use regex_automata::util::syntax;

/// Compiled size one regex may take (the config loader passes its own, the same today).
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

#[derive(Debug, Clone)]
pub enum Matcher {
    /// No `match`, or `""`.
    Any,
    /// `/pattern/flags`: unanchored regex. regex-automata's `meta::Regex` (what `regex::Regex`
    /// wraps) because it reports its memory, which the load budget adds up.
    Regex(meta::Regex),
    /// Contains `*`: anchored at both ends; `*` is any run of characters, all else literal.
    /// Stored as the literal pieces between the stars.
    Glob(Vec<String>),
    /// Anything else: case-sensitive substring, with its searcher built once.
    Substring(Box<memchr::memmem::Finder<'static>>),
}

impl Matcher {
    /// Compiles a `match` value with the default regex size limit ([`REGEX_SIZE_LIMIT`]).
    pub fn parse(pattern: &str) -> Result<Matcher, String> {
        Matcher::parse_limited(pattern, REGEX_SIZE_LIMIT)
    }

    /// Compiles a `match` value; a regex may compile to at most `size_limit` bytes. The error
    /// says what is wrong and what was expected.
    pub fn parse_limited(pattern: &str, size_limit: usize) -> Result<Matcher, String> {
        if pattern.is_empty() {
            return Ok(Matcher::Any);
        }
        if let Some((body, flags)) = split_regex_literal(pattern) {
            let mut syntax = syntax::Config::new();
            for flag in flags.chars() {
                match flag {
                    'i' => syntax = syntax.case_insensitive(true),
                    'm' => syntax = syntax.multi_line(true),
                    's' => syntax = syntax.dot_matches_new_line(true),
                    'u' => syntax = syntax.unicode(true),
                    // JavaScript's global, sticky and indices flags mean nothing for a yes/no test.
                    'g' | 'y' | 'd' => {}
                    other => {
                        return Err(format!(
                            "unknown regex flag `{other}` in `{pattern}`; expected flags among i, m, s, u (g, y, d are accepted and ignored)"
                        ))
                    }
                }
            }
            let config = meta::Config::new()
                .nfa_size_limit(Some(size_limit))
                .onepass_size_limit(Some(size_limit))
                .dfa_size_limit(Some(size_limit))
                .hybrid_cache_capacity(size_limit);
            return meta::Builder::new().configure(config).syntax(syntax).build(body).map(Matcher::Regex).map_err(|e| {
                if let Some(limit) = e.size_limit() {
                    format!(
                        "regex `{body}` compiles to more than {} KiB (the regex size limit); expected a smaller pattern (Unicode classes such as `\\w` repeated many times are large: `(?-u:\\w)` is ASCII-only and small)",
                        limit >> 10
                    )
                } else {
                    format!(
                        "regex `{body}` does not compile ({}); the Rust regex syntax has no lookaround or backreferences",
                        first_line(&e.syntax_error().map_or_else(|| e.to_string(), |s| s.to_string()))
                    )
                }
            });
        }
        if pattern.contains('*') {
            return Ok(Matcher::Glob(pattern.split('*').map(str::to_owned).collect()));
        }
        Ok(Matcher::Substring(Box::new(memchr::memmem::Finder::new(pattern.as_bytes()).into_owned())))
    }

    /// Heap bytes this matcher holds.
    pub fn memory_usage(&self) -> usize {
        match self {
            Matcher::Regex(re) => re.memory_usage(),
            Matcher::Glob(pieces) => pieces.iter().map(String::len).sum(),
            Matcher::Substring(f) => f.needle().len(),
            Matcher::Any => 0,
        }
    }

    /// Whether a hook with this matcher runs for `tool` (the envelope's `toolName`; `None` or
    /// `""` when the envelope has none, which matches every hook).
    pub fn matches(&self, tool: Option<&str>) -> bool {
        let tool = match tool {
            None | Some("") => return true,
            Some(t) => t,
        };
        match self {
            Matcher::Any => true,
            Matcher::Regex(re) => re.is_match(tool),
            Matcher::Substring(finder) => finder.find(tool.as_bytes()).is_some(),
            Matcher::Glob(pieces) => glob_matches(pieces, tool),
        }
    }
}

/// What a `match` text probably meant, when it looks like another dialect's syntax but is read
/// here as a literal substring or glob (docs/reliability.md "Reliability"): Claude Code's `Edit|Write` (a list of
/// names) or `Bash(rm:*)` (a permission rule), a bare regex like `^Bash$`. Such a hook
/// silently never runs, so the config loads with a warning naming the form that means it.
pub fn other_dialect_hint(text: &str) -> Option<String> {
    if split_regex_literal(text).is_some() {
        return None;
    }
    if let Some((name, rest)) = text.split_once('(') {
        if rest.ends_with(')') && !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Some(format!(
                "`{text}` is a permission rule of another dialect (Claude Code's `Tool(arguments)`), but `match` tests only the tool name, literally here, so this hook never runs; write `{name}` and check the arguments in the hook"
            ));
        }
    }
    const REGEX_ONLY: &[char] = &['|', '^', '$', '\\', '[', ']', '(', ')', '+', '{', '}'];
    if text.contains(REGEX_ONLY) || text.contains(".*") {
        let kind = if text.contains('*') { "a glob" } else { "a substring test" };
        return Some(format!(
            "`{text}` looks like a regex of another dialect, but without slashes it is {kind} matching those characters literally, so this hook never runs for a real tool name; write `/{text}/` for a regex"
        ));
    }
    None
}

/// `/body/flags` when the string is longer than 2 and its last `/` comes after the first.
fn split_regex_literal(pattern: &str) -> Option<(&str, &str)> {
    if pattern.len() <= 2 || !pattern.starts_with('/') {
        return None;
    }
    let last = pattern.rfind('/')?;
    if last == 0 {
        return None;
    }
    Some((&pattern[1..last], &pattern[last + 1..]))
}

/// `pieces` are the literals between stars (at least two: the pattern had a `*`). The first must
/// be a prefix, the last a suffix, and the middle ones must appear in order in between.
fn glob_matches(pieces: &[String], text: &str) -> bool {
    let (first, rest) = pieces.split_first().expect("a glob has a star, so two pieces");
    let (last, middle) = rest.split_last().expect("a glob has a star, so two pieces");
    if text.len() < first.len() + last.len() || !text.starts_with(first.as_str()) || !text.ends_with(last.as_str()) {
        return false;
    }
    let mut inner = &text[first.len()..text.len() - last.len()];
    for piece in middle {
        // memmem rather than str::find, which builds a two-way searcher on every call.
        match memchr::memmem::find(inner.as_bytes(), piece.as_bytes()) {
            Some(at) => inner = &inner[at + piece.len()..],
            None => return false,
        }
    }
    true
}

fn first_line(s: &str) -> String {
    // regex errors are multi-line diagrams; the last non-empty line names the problem.
    s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or(s).trim().trim_start_matches("error: ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, t: &str) -> bool {
        Matcher::parse(p).unwrap().matches(Some(t))
    }

    #[test]
    fn forms() {
        assert!(m("", "Bash"));
        assert!(m("Bash", "Bash"));
        assert!(m("ash", "Bash"));
        assert!(!m("bash", "Bash"));
        assert!(m("File*", "FileEdit"));
        assert!(m("File*", "File"));
        assert!(!m("File*", "MyFile"));
        assert!(m("*Edit", "FileEdit"));
        assert!(m("F*l*t", "FileEdit"));
        assert!(!m("F*x*t", "FileEdit"));
        assert!(m("a*a", "aa"));
        assert!(!m("a*a", "a"));
        assert!(m("File?*", "File?Edit"));
        assert!(!m("File?*", "FileXEdit"));
        assert!(m("/mcp__.*/", "mcp__github__x"));
        assert!(m("/mcp__.*/", "x_mcp__y"));
        assert!(!m("/^mcp/", "x_mcp"));
        assert!(m("/bash/i", "Bash"));
        assert!(m("/bash/gi", "BASH"));
        assert!(m("/^a.b$/s", "a\nb"));
        assert!(m("/^b$/m", "a\nb"));
        // "?" outside a glob is just a character of a substring
        assert!(m("a?", "xa?"));
    }

    #[test]
    fn no_tool_matches_all() {
        for p in ["", "Bash", "/x/", "F*"] {
            let matcher = Matcher::parse(p).unwrap();
            assert!(matcher.matches(None));
            assert!(matcher.matches(Some("")));
        }
    }

    #[test]
    fn other_dialects_are_named() {
        assert!(other_dialect_hint("Edit|Write").unwrap().contains("write `/Edit|Write/`"));
        assert!(other_dialect_hint("^Bash$").unwrap().contains("write `/^Bash$/`"));
        assert!(other_dialect_hint("mcp__.*").unwrap().contains("a glob"));
        assert!(other_dialect_hint("Bash(rm:*)").unwrap().contains("write `Bash`"));
        for fine in ["Bash", "mcp__*", "File*Edit", "/Edit|Write/", "", "a?"] {
            assert_eq!(other_dialect_hint(fine), None, "{fine}");
        }
    }

    #[test]
    fn errors_at_load() {
        assert!(Matcher::parse("/(?<=a)b/").unwrap_err().contains("does not compile"));
        assert!(Matcher::parse("/a/x").unwrap_err().contains("unknown regex flag `x`"));
        // two characters or a single slash are substrings, not regexes
        assert!(matches!(Matcher::parse("//").unwrap(), Matcher::Substring(_)));
        assert!(matches!(Matcher::parse("/ab").unwrap(), Matcher::Substring(_)));
    }
}
