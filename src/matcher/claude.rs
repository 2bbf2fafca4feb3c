//! Claude Code's hook filters (CONTRACT §8): the `matcher` of a matcher group, tested against the
//! event's own field, and the `if` permission rule of a handler, tested against the tool call.
//!
//! Matchers follow Claude Code's reference: `*`, empty or absent match everything; a matcher of
//! only letters, digits, `_`, `-`, spaces, `,` and `|` is an exact name or a list of them;
//! anything else is an unanchored JavaScript-style regex. Real matchers use lookaround, which the
//! `regex` crate cannot compile, so these go to `fancy-regex`, with a backtracking limit so a
//! hostile pattern costs a bounded time per fire.

use crate::event::Event;
use serde_json::{Map, Value};
use std::path::Path;

/// Backtracking steps one regex match may take before it counts as no match.
const BACKTRACK_LIMIT: usize = 100_000;
/// Compiled-size limit of the parts fancy-regex hands to the `regex` crate.
const SIZE_LIMIT: usize = 1 << 20;
/// Matchers longer than this are refused at load (no real matcher comes close).
const MAX_MATCHER_LEN: usize = 4096;

#[derive(Debug, Clone)]
pub enum ClaudeMatcher {
    Any,
    /// Exact names (`Bash`, `Edit|Write`, `Edit, Write`).
    Names(Vec<String>),
    Regex(Box<fancy_regex::Regex>),
}

impl ClaudeMatcher {
    pub fn parse(text: &str) -> Result<ClaudeMatcher, String> {
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed == "*" {
            return Ok(ClaudeMatcher::Any);
        }
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|');
        if trimmed.chars().all(plain) {
            let names: Vec<String> =
                trimmed.split(['|', ',']).map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect();
            return Ok(ClaudeMatcher::Names(names));
        }
        if text.len() > MAX_MATCHER_LEN {
            return Err(format!("regex matcher is {} bytes long; expected at most {MAX_MATCHER_LEN}", text.len()));
        }
        fancy_regex::RegexBuilder::new(text)
            .backtrack_limit(BACKTRACK_LIMIT)
            .delegate_size_limit(SIZE_LIMIT)
            .build()
            .map(|re| ClaudeMatcher::Regex(Box::new(re)))
            .map_err(|e| format!("matcher `{text}` is not a valid regular expression ({e})"))
    }

    /// `value`: the event's matcher field (`None`: the event has no such field, or the envelope
    /// lacks it, and then only `*`-like matchers and regexes matching "" run).
    pub fn matches(&self, value: Option<&str>) -> bool {
        let value = value.unwrap_or("");
        match self {
            ClaudeMatcher::Any => true,
            ClaudeMatcher::Names(names) => names.iter().any(|n| n == value),
            // A match that exceeds the backtracking limit is an error: no match.
            ClaudeMatcher::Regex(re) => re.is_match(value).unwrap_or(false),
        }
    }
}

/// The envelope field (snake_case, Claude Code's spelling) an event's matcher is tested against;
/// `None` for events whose matcher Claude Code ignores.
pub fn matcher_field(event: Event) -> Option<&'static str> {
    Some(match event {
        Event::PreToolUse
        | Event::PostToolUse
        | Event::PostToolUseFailure
        | Event::PermissionRequest
        | Event::PermissionDenied => "tool_name",
        Event::SessionStart | Event::ConfigChange | Event::DirectoryAdded => "source",
        Event::Setup | Event::PreCompact | Event::PostCompact => "trigger",
        Event::Notification => "notification_type",
        Event::SubagentStart | Event::SubagentStop => "agent_type",
        Event::StopFailure => "error",
        Event::InstructionsLoaded => "load_reason",
        Event::Elicitation | Event::ElicitationResult => "mcp_server_name",
        Event::SessionEnd => "reason",
        Event::UserPromptExpansion => "command_name",
        Event::PreModelSwitch | Event::PostModelSwitch => "to_model",
        Event::FileChanged => "file_path",
        _ => return None,
    })
}

/// The events whose hooks may carry `if`; on the others such a hook never runs.
pub fn takes_if(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse
            | Event::PostToolUse
            | Event::PostToolUseFailure
            | Event::PermissionRequest
            | Event::PermissionDenied
    )
}

/// One permission rule: `Tool` or `Tool(pattern)`.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRule {
    pub tool: String,
    pub pattern: Option<String>,
}

impl PermissionRule {
    pub fn parse(text: &str) -> Result<PermissionRule, String> {
        let text = text.trim();
        let bad = || {
            format!("`if` rule `{text}` is not a permission rule; expected `Tool` or `Tool(pattern)`, such as `Bash(git *)`")
        };
        let (tool, pattern) = match text.find('(') {
            Some(open) => {
                let inner = text[open + 1..].strip_suffix(')').ok_or_else(bad)?;
                (&text[..open], Some(inner.to_string()))
            }
            None => (text, None),
        };
        let tool = tool.trim();
        if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad());
        }
        Ok(PermissionRule { tool: tool.to_string(), pattern: pattern.filter(|p| !p.is_empty() && p != "*") })
    }

    /// Whether a tool call falls under the rule. `cwd`: the session's directory (relative path
    /// patterns), `project`: the project root (`/path` patterns), `home`: `~/` patterns.
    pub fn matches(&self, tool: &str, input: Option<&Map<String, Value>>, dirs: &RuleDirs) -> bool {
        if self.tool != tool {
            return false;
        }
        let Some(pattern) = &self.pattern else { return true };
        let field = |k: &str| input.and_then(|i| i.get(k)).and_then(Value::as_str);
        match tool {
            "Bash" | "PowerShell" => match field("command") {
                Some(command) => bash_matches(pattern, command),
                // Nothing to analyse: Claude Code runs the hook anyway (best effort).
                None => true,
            },
            "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Glob" | "Grep" | "LS" => {
                match field("file_path").or_else(|| field("notebook_path")).or_else(|| field("path")) {
                    Some(path) => path_matches(pattern, path, dirs),
                    None => true,
                }
            }
            "WebFetch" => match (pattern.strip_prefix("domain:"), field("url")) {
                (Some(domain), Some(url)) => host_of(url).is_some_and(|h| glob(domain, &h, true)),
                (None, Some(url)) => glob(pattern, url, true),
                _ => true,
            },
            // Other tools: the pattern against any of the input's top-level strings.
            _ => input.map_or(true, |i| i.values().filter_map(Value::as_str).any(|s| glob(pattern, s, true))),
        }
    }
}

/// Directories path patterns are relative to.
pub struct RuleDirs<'a> {
    pub cwd: &'a Path,
    pub project: &'a Path,
    pub home: Option<&'a Path>,
}

/// `Bash(git *)`: each subcommand (split at `&&`, `||`, `;`, `|`, newlines, and the insides of
/// `$(…)` and backticks), with leading `VAR=x` assignments stripped, against the pattern; the
/// legacy `prefix:*` form means "starts with prefix".
fn bash_matches(pattern: &str, command: &str) -> bool {
    let pattern = match pattern.strip_suffix(":*") {
        Some(prefix) => format!("{prefix} *"),
        None => pattern.to_string(),
    };
    subcommands(command)
        .iter()
        .any(|sub| glob(&pattern, sub, true) || pattern.strip_suffix(" *").is_some_and(|bare| bare == sub.as_str()))
}

fn subcommands(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut text = command.replace("$(", "\n").replace(['`', ')'], "\n");
    for sep in ["&&", "||", ";", "|", "&"] {
        text = text.replace(sep, "\n");
    }
    for line in text.lines() {
        let mut words: Vec<&str> = line.split_whitespace().collect();
        while words.first().is_some_and(|w| is_assignment(w)) {
            words.remove(0);
        }
        if !words.is_empty() {
            parts.push(words.join(" "));
        }
    }
    parts
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Gitignore-style path patterns: `//abs` is absolute, `~/x` under home, `/x` under the project
/// root, one with another `/` under `cwd`, and one without any `/` matches a file name at any
/// depth. `**` crosses directories, `*` and `?` do not.
fn path_matches(pattern: &str, path: &str, dirs: &RuleDirs) -> bool {
    let base = |dir: &Path, rest: &str| format!("{}/{}", dir.display().to_string().trim_end_matches('/'), rest);
    let full = if let Some(abs) = pattern.strip_prefix("//") {
        format!("/{abs}")
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        match dirs.home {
            Some(home) => base(home, rest),
            None => return false,
        }
    } else if let Some(rest) = pattern.strip_prefix('/') {
        base(dirs.project, rest)
    } else if pattern.contains('/') {
        base(dirs.cwd, pattern.trim_start_matches("./"))
    } else {
        let name = path.rsplit('/').next().unwrap_or(path);
        return glob(pattern, name, false);
    };
    let absolute = if path.starts_with('/') { path.to_string() } else { base(dirs.cwd, path.trim_start_matches("./")) };
    glob(&full, &absolute, false)
}

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.split(':').next()?;
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Glob match: `**` any text; `*` any text (without `/` unless `star_crosses`); `?` one
/// character; everything else literal. Translated to a `regex` automaton, which matches in
/// linear time whatever the pattern, so a hostile rule or a huge input costs nothing special.
fn glob(pattern: &str, text: &str, star_crosses: bool) -> bool {
    let (star, one) = if star_crosses { (".*", ".") } else { ("[^/]*", "[^/]") };
    let mut re = String::with_capacity(pattern.len() * 2 + 8);
    re.push_str("(?s)^");
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                if chars.peek() == Some(&'/') {
                    chars.next();
                    re.push_str("(?:.*/)?");
                } else {
                    re.push_str(".*");
                }
            }
            '*' => re.push_str(star),
            '?' => re.push_str(one),
            c => re.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
        }
    }
    re.push('$');
    regex::RegexBuilder::new(&re).size_limit(SIZE_LIMIT).build().is_ok_and(|r| r.is_match(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(matcher: &str, value: &str) -> bool {
        ClaudeMatcher::parse(matcher).unwrap().matches(Some(value))
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
            assert!(ClaudeMatcher::parse(any).unwrap().matches(None));
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
        assert!(ClaudeMatcher::parse("(unclosed").unwrap_err().contains("not a valid regular expression"));
        assert!(ClaudeMatcher::parse(&"a".repeat(5000)).is_ok(), "plain names have no length cost");
        assert!(ClaudeMatcher::parse(&format!("{}.", "a".repeat(5000))).is_err());
    }

    #[test]
    fn catastrophic_backtracking_is_bounded() {
        let re = ClaudeMatcher::parse("^(a+)+\\1$").unwrap();
        let start = std::time::Instant::now();
        assert!(!re.matches(Some(&format!("{}b", "a".repeat(40)))));
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    fn dirs() -> RuleDirs<'static> {
        RuleDirs { cwd: Path::new("/repo"), project: Path::new("/repo"), home: Some(Path::new("/home/u")) }
    }

    fn rule(r: &str, tool: &str, input: Value) -> bool {
        PermissionRule::parse(r).unwrap().matches(tool, input.as_object(), &dirs())
    }

    #[test]
    fn if_rules() {
        assert!(rule("Bash(git *)", "Bash", json!({"command": "git status"})));
        assert!(rule("Bash(git *)", "Bash", json!({"command": "cd x && FOO=1 git push"})), "each subcommand");
        assert!(rule("Bash(git *)", "Bash", json!({"command": "echo $(git log)"})));
        assert!(!rule("Bash(git *)", "Bash", json!({"command": "gitk"})));
        assert!(!rule("Bash(git *)", "Edit", json!({"command": "git status"})), "tool name first");
        assert!(rule("Bash(npm run test:*)", "Bash", json!({"command": "npm run test -- x"})));
        assert!(rule("Bash(rm -rf /)", "Bash", json!({"command": "rm -rf /"})));
        assert!(!rule("Bash(rm -rf /)", "Bash", json!({"command": "rm -rf /tmp"})));
        assert!(rule("Bash", "Bash", json!({})));
        assert!(rule("Edit(src/**)", "Edit", json!({"file_path": "/repo/src/a/b.rs"})));
        assert!(!rule("Edit(src/**)", "Edit", json!({"file_path": "/repo/lib/src/b.rs"})));
        assert!(rule("Read(*.env)", "Read", json!({"file_path": "/repo/config/.env"})), "any depth");
        assert!(rule("Read(.env)", "Read", json!({"file_path": "/x/.env"})));
        assert!(!rule("Read(*.env)", "Read", json!({"file_path": "/repo/env.txt"})));
        assert!(rule("Read(~/.ssh/*)", "Read", json!({"file_path": "/home/u/.ssh/id_rsa"})));
        assert!(rule("Read(//etc/**)", "Read", json!({"file_path": "/etc/passwd"})));
        assert!(rule("Edit(/src/*.rs)", "Edit", json!({"file_path": "/repo/src/x.rs"})));
        assert!(!rule("Edit(/src/*.rs)", "Edit", json!({"file_path": "/repo/src/a/x.rs"})), "* stays in a directory");
        assert!(rule("WebFetch(domain:example.com)", "WebFetch", json!({"url": "https://example.com/a"})));
        assert!(!rule("WebFetch(domain:example.com)", "WebFetch", json!({"url": "https://evil.com/example.com"})));
        assert!(rule("mcp__db__query(*select*)", "mcp__db__query", json!({"sql": "select 1"})));
        for bad in ["", "Bash(", "(x)", "Ba sh(x)"] {
            assert!(PermissionRule::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn glob_is_not_exponential() {
        let pattern = "*a".repeat(30);
        let start = std::time::Instant::now();
        assert!(!glob(&pattern, &"a".repeat(29), true));
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
