//! Cursor's tool names and field names (README "Host tools", the Cursor table): a host tool of a
//! known kind reaches Cursor hooks as `Shell`, `Read`, `Write`, `Grep`, `Glob`, `WebFetch`,
//! `Task` or `MCP:<tool>`, its input's fields renamed to Cursor's; a rewrite a Cursor hook
//! returns is renamed back to the host's fields. Fields without a counterpart pass as given.
//!
//! Renaming works on the input's JSON text, never on a rebuilt value: every value reaches the
//! hook as the host wrote it, a lone surrogate escape or `1e999` included (README "One
//! envelope").

use crate::envelope::tools::Kind;
use crate::response::json;
use serde_json::{Map, Value};

/// Cursor's name for a tool of `kind` (`host` names the MCP tool: `mcp__server__tool`).
pub fn name(kind: Kind, host: &str) -> String {
    match kind {
        Kind::Shell => "Shell".into(),
        Kind::Read => "Read".into(),
        // Cursor has no Edit tool: edits arrive as Write (Cursor's third-party-hooks map).
        Kind::Write | Kind::Edit => "Write".into(),
        Kind::Fetch => "WebFetch".into(),
        Kind::Search => "Grep".into(),
        Kind::Glob => "Glob".into(),
        Kind::Agent => "Task".into(),
        Kind::Mcp => format!("MCP:{}", mcp_tool(host).unwrap_or(host)),
    }
}

/// The MCP tool's own name of `mcp__server__tool`.
pub fn mcp_tool(host: &str) -> Option<&str> {
    let (server, tool) = host.strip_prefix("mcp__")?.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some(tool)
}

/// The MCP server's name of `mcp__server__tool`.
pub fn mcp_server(host: &str) -> Option<&str> {
    let (server, _) = host.strip_prefix("mcp__")?.split_once("__")?;
    (!server.is_empty()).then_some(server)
}

/// Cursor's field for each canonical field of `kind`.
pub fn fields(kind: Kind) -> &'static [(&'static str, &'static str)] {
    match kind {
        Kind::Shell => &[("command", "command"), ("cwd", "cwd")],
        Kind::Read => &[("path", "file_path")],
        Kind::Write => &[("path", "file_path"), ("content", "content")],
        Kind::Edit => &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")],
        Kind::Fetch => &[("url", "url")],
        Kind::Search => &[("pattern", "pattern"), ("path", "file_path")],
        Kind::Glob => &[("pattern", "pattern"), ("path", "path")],
        Kind::Agent => &[("prompt", "prompt")],
        Kind::Mcp => &[],
    }
}

/// The host's field for each canonical field of one of its tools (the defaults: Claude Code's
/// tools and field names).
pub type HostFields<'a> = &'a [(&'a str, &'a str)];

/// Claude Code's field names for its tools, the engine's default host tools.
pub fn default_host_fields(kind: Kind) -> HostFields<'static> {
    match kind {
        Kind::Shell => &[("command", "command")],
        Kind::Read => &[("path", "file_path")],
        Kind::Write => &[("path", "file_path"), ("content", "content")],
        Kind::Edit => &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")],
        Kind::Fetch => &[("url", "url")],
        Kind::Search | Kind::Glob => &[("pattern", "pattern"), ("path", "path")],
        Kind::Agent => &[("prompt", "prompt")],
        Kind::Mcp => &[],
    }
}

/// A host field's Cursor name, `None` when it has no counterpart (passed as given).
fn to_cursor_field(kind: Kind, host: HostFields, field: &str) -> Option<&'static str> {
    let canonical = host.iter().find(|(_, h)| *h == field).map(|(c, _)| *c).unwrap_or(field);
    fields(kind).iter().find(|(c, _)| *c == canonical).map(|(_, cursor)| *cursor)
}

/// The tool input's JSON text (an object) with its keys renamed to Cursor's, values as written.
/// Not an object: `None` (the hook gets it as given).
pub fn input_to_cursor(kind: Kind, host: HostFields, raw: &str) -> Option<String> {
    let obj = json::value(raw)?.as_object()?;
    let mut out = String::with_capacity(raw.len() + 16);
    out.push('{');
    let mut seen: Vec<String> = Vec::new();
    for (key, val) in obj.entries() {
        let renamed = to_cursor_field(kind, host, key).map(str::to_string).unwrap_or_else(|| key.to_string());
        // A renamed key may meet a field the host already had under Cursor's name: the first
        // one stays (a repeated key would be read differently by different hook languages).
        if seen.contains(&renamed) {
            continue;
        }
        if !seen.is_empty() {
            out.push(',');
        }
        out.push_str(&Value::String(renamed.clone()).to_string());
        out.push(':');
        out.push_str(val.raw());
        seen.push(renamed);
    }
    out.push('}');
    Some(out)
}

/// A Cursor hook's `updated_input` in the host's field names.
pub fn input_from_cursor(kind: Kind, host: HostFields, input: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in input {
        let canonical = fields(kind).iter().find(|(_, c)| c == key).map(|(c, _)| *c);
        let host_key = canonical
            .and_then(|c| host.iter().find(|(hc, _)| *hc == c).map(|(_, h)| *h))
            .unwrap_or(key.as_str());
        out.entry(host_key.to_string()).or_insert_with(|| value.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(name(Kind::Shell, "Bash"), "Shell");
        assert_eq!(name(Kind::Edit, "Edit"), "Write");
        assert_eq!(name(Kind::Mcp, "mcp__fs__read_text"), "MCP:read_text");
        assert_eq!(mcp_server("mcp__fs__read_text"), Some("fs"));
        assert_eq!(mcp_tool("mcp____x"), None);
    }

    #[test]
    fn renamed_there_and_back_values_as_written() {
        let host: HostFields = &[("path", "filename"), ("content", "text")];
        let raw = r#"{"filename":"a\ud800.txt","text":1e999,"mode":"w"}"#;
        let cursor = input_to_cursor(Kind::Write, host, raw).unwrap();
        assert_eq!(cursor, r#"{"file_path":"a\ud800.txt","content":1e999,"mode":"w"}"#);
        let back: Map<String, Value> =
            serde_json::from_str(r#"{"file_path":"b.txt","content":"x","mode":"a"}"#).unwrap();
        let back = input_from_cursor(Kind::Write, host, &back);
        assert_eq!(Value::Object(back), serde_json::json!({"filename": "b.txt", "text": "x", "mode": "a"}));
        let claude = default_host_fields(Kind::Search);
        assert_eq!(
            input_to_cursor(Kind::Search, claude, r#"{"pattern":"x","path":"src"}"#).unwrap(),
            r#"{"pattern":"x","file_path":"src"}"#
        );
        assert_eq!(input_to_cursor(Kind::Shell, default_host_fields(Kind::Shell), "\"ls\""), None);
    }
}
