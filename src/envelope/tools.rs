//! Host tools by kind (README "Host tools"): which tool names the engine knows, and each kind's
//! main field, which a tool's arguments given as plain text (`"toolArgs": "rm -rf /"`) fill for
//! a hook that reads the tool's input. Dialect-agnostic: a dialect asks for a kind by the host's
//! tool name. Today only Claude Code's tool names are known (the defaults); option `tools` will
//! add the host's own.

/// The kinds of tool, each with its canonical fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Shell,
    Read,
    Write,
    Edit,
    Fetch,
    Search,
    Glob,
    Agent,
    Mcp,
}

impl Kind {
    /// The field a tool's arguments given as text stand for (`None`: the kind has no single one).
    pub fn main_field(self) -> Option<&'static str> {
        match self {
            Kind::Shell => Some("command"),
            Kind::Read | Kind::Write | Kind::Edit => Some("path"),
            Kind::Fetch => Some("url"),
            Kind::Search | Kind::Glob => Some("pattern"),
            Kind::Agent => Some("prompt"),
            Kind::Mcp => None,
        }
    }
}

/// Claude Code's tool names, known as their kinds without any option.
const DEFAULTS: &[(&str, Kind)] = &[
    ("Bash", Kind::Shell),
    ("Read", Kind::Read),
    ("Write", Kind::Write),
    ("Edit", Kind::Edit),
    ("MultiEdit", Kind::Edit),
    ("WebFetch", Kind::Fetch),
    ("Grep", Kind::Search),
    ("Glob", Kind::Glob),
    ("Task", Kind::Agent),
];

/// The kind of the host's tool `name`, when the engine knows it.
pub fn kind(name: &str) -> Option<Kind> {
    if let Some((_, kind)) = DEFAULTS.iter().find(|(n, _)| *n == name) {
        return Some(*kind);
    }
    let mcp = name.strip_prefix("mcp__").and_then(|rest| rest.split_once("__"));
    mcp.filter(|(server, tool)| !server.is_empty() && !tool.is_empty()).map(|_| Kind::Mcp)
}

/// The host's name for canonical field `canonical` of the host's tool `name` (Claude Code's
/// field names for Claude Code's tools: `file_path`, `content`, `old_string`, `new_string`);
/// `None` when the tool is not of a known kind or its kind has no such field. A dialect renames
/// the host's fields to its own harness's through this (README "Host tools").
pub fn field(name: &str, canonical: &str) -> Option<&'static str> {
    let kind = kind(name)?;
    let fields: &[(&str, &str)] = match kind {
        Kind::Shell => &[("command", "command"), ("cwd", "cwd")],
        Kind::Read => &[("path", "file_path")],
        Kind::Write => &[("path", "file_path"), ("content", "content")],
        Kind::Edit => &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")],
        Kind::Fetch => &[("url", "url")],
        Kind::Search | Kind::Glob => &[("pattern", "pattern"), ("path", "path")],
        Kind::Agent => &[("prompt", "prompt")],
        Kind::Mcp => &[],
    };
    fields.iter().find(|(c, _)| *c == canonical).map(|(_, h)| *h)
}

/// The tool input a hook reading fields sees for arguments given only as text: the kind's main
/// field holding that text, as JSON text of an object (`text` is the JSON string as received).
pub fn input_from_text(tool: &str, text: &str) -> Option<String> {
    let field = kind(tool)?.main_field()?;
    Some(format!("{{\"{field}\":{text}}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_main_fields() {
        assert_eq!(input_from_text("Bash", r#""rm -rf /""#).as_deref(), Some(r#"{"command":"rm -rf /"}"#));
        assert_eq!(input_from_text("MultiEdit", r#""a.rs""#).as_deref(), Some(r#"{"path":"a.rs"}"#));
        assert_eq!(input_from_text("WebFetch", r#""http://x""#).as_deref(), Some(r#"{"url":"http://x"}"#));
        assert_eq!(input_from_text("Task", r#""go""#).as_deref(), Some(r#"{"prompt":"go"}"#));
        assert_eq!(kind("mcp__fs__read"), Some(Kind::Mcp));
        assert_eq!(input_from_text("mcp__fs__read", r#""x""#), None);
        assert_eq!(input_from_text("bash", r#""x""#), None, "names are exact");
        assert_eq!(kind("mcp____x"), None);
    }
}
