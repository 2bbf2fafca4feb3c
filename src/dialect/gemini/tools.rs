//! Gemini CLI's tool names and parameter names (README "Host tools"): a Gemini hook matches
//! `run_shell_command` and reads `tool_input.command`, whatever the host calls its shell. The
//! table is gemini-cli's tool declarations (`tools/definitions/base-declarations.ts`,
//! `tools/mcp-tool.ts`); a rewrite a hook returns is renamed back to the host's names.

use crate::envelope::tools::{kind, Kind};

/// (canonical field, Gemini field) pairs.
type Fields = &'static [(&'static str, &'static str)];

/// Each kind's Gemini tool and its fields.
const GEMINI: &[(Kind, &str, Fields)] = &[
    (Kind::Shell, "run_shell_command", &[("command", "command"), ("cwd", "dir_path")]),
    (Kind::Read, "read_file", &[("path", "file_path")]),
    (Kind::Write, "write_file", &[("path", "file_path"), ("content", "content")]),
    (Kind::Edit, "replace", &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")]),
    (Kind::Fetch, "web_fetch", &[("url", "url")]),
    (Kind::Search, "grep_search", &[("pattern", "pattern"), ("path", "dir_path")]),
    (Kind::Glob, "glob", &[("pattern", "pattern"), ("path", "dir_path")]),
    (Kind::Agent, "invoke_agent", &[("prompt", "prompt"), ("agent", "agent_name")]),
];

/// The host's field names for the canonical ones, for the tool names the engine knows without
/// option `tools` (Claude Code's): (host field, canonical field). A canonical name given by the
/// host (the `toolArgs` text shape fills `path`, `command`, …) is read as itself.
const HOST_FIELDS: &[(&str, &[(&str, &str)])] = &[
    ("Read", &[("file_path", "path")]),
    ("Write", &[("file_path", "path")]),
    ("Edit", &[("file_path", "path"), ("old_string", "old"), ("new_string", "new")]),
    ("MultiEdit", &[("file_path", "path")]),
    ("Task", &[("subagent_type", "agent")]),
];

/// What a Gemini hook sees of the host's tool `host`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeminiTool {
    /// The name Gemini hooks match and read in `tool_name`.
    pub name: String,
    /// For an MCP tool: its server and the server's own tool name (`mcp_context`).
    pub mcp: Option<(String, String)>,
    kind: Option<Kind>,
    host: String,
}

/// The Gemini view of the host's tool `host` (a tool the engine does not know keeps its name).
pub fn of(host: &str) -> GeminiTool {
    let k = kind(host);
    let name = match k {
        Some(Kind::Mcp) => {
            let (server, tool) = host.strip_prefix("mcp__").and_then(|r| r.split_once("__")).unwrap_or(("", host));
            let name = mcp_name(server, tool);
            return GeminiTool { name, mcp: Some((server.to_string(), tool.to_string())), kind: k, host: host.into() };
        }
        Some(k) => GEMINI.iter().find(|(g, _, _)| *g == k).map(|(_, n, _)| n.to_string()).unwrap_or_else(|| host.into()),
        None => host.to_string(),
    };
    GeminiTool { name, mcp: None, kind: k, host: host.to_string() }
}

impl GeminiTool {
    fn gemini_fields(&self) -> &'static [(&'static str, &'static str)] {
        GEMINI.iter().find(|(k, _, _)| Some(*k) == self.kind).map(|(_, _, f)| *f).unwrap_or(&[])
    }

    fn host_fields(&self) -> &'static [(&'static str, &'static str)] {
        HOST_FIELDS.iter().find(|(n, _)| *n == self.host).map(|(_, f)| *f).unwrap_or(&[])
    }

    /// The Gemini field name of the host's input field `field` (unknown fields pass as given).
    pub fn to_gemini<'a>(&self, field: &'a str) -> &'a str
    {
        let canonical = self.host_fields().iter().find(|(h, _)| *h == field).map(|(_, c)| *c).unwrap_or(field);
        self.gemini_fields().iter().find(|(c, _)| *c == canonical).map(|(_, g)| *g).unwrap_or(field)
    }

    /// The host's field name of a Gemini field in a rewrite (the host's own spelling where the
    /// engine knows it, else the canonical one).
    pub fn to_host<'a>(&self, field: &'a str) -> &'a str
    {
        let Some((canonical, _)) = self.gemini_fields().iter().find(|(_, g)| *g == field) else {
            return field;
        };
        self.host_fields().iter().find(|(_, c)| c == canonical).map(|(h, _)| *h).unwrap_or(canonical)
    }
}

/// gemini-cli's name of an MCP tool (`generateValidName("<server>_<tool>")`): `mcp_` prefixed,
/// characters outside `[A-Za-z0-9_.:-]` as `_`, cut to 63 with `...` in the middle.
pub fn mcp_name(server: &str, tool: &str) -> String {
    let joined = format!("{server}_{tool}");
    let prefixed = if joined.starts_with("mcp_") { joined } else { format!("mcp_{joined}") };
    let mut name: String = prefixed
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':') { c } else { '_' })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    if name.len() > 63 {
        name = format!("{}...{}", &name[..30], &name[name.len() - 30..]);
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_code_names_become_gemini_names() {
        assert_eq!(of("Bash").name, "run_shell_command");
        assert_eq!(of("Read").name, "read_file");
        assert_eq!(of("Edit").name, "replace");
        assert_eq!(of("MultiEdit").name, "replace");
        assert_eq!(of("Grep").name, "grep_search");
        assert_eq!(of("WebFetch").name, "web_fetch");
        assert_eq!(of("Task").name, "invoke_agent");
        assert_eq!(of("list_directory").name, "list_directory", "unknown tools keep their name");
        let t = of("Grep");
        assert_eq!(t.to_gemini("path"), "dir_path");
        assert_eq!(t.to_host("dir_path"), "path");
        assert_eq!(t.to_gemini("glob"), "glob", "fields without a counterpart pass through");
        let r = of("Read");
        assert_eq!(r.to_gemini("file_path"), "file_path");
        assert_eq!(r.to_gemini("path"), "file_path", "the toolArgs text shape's canonical name");
        assert_eq!(r.to_host("file_path"), "file_path");
        let b = of("Bash");
        assert_eq!(b.to_gemini("command"), "command");
        assert_eq!(b.to_host("dir_path"), "cwd");
    }

    #[test]
    fn mcp_tools() {
        let t = of("mcp__github__create_issue");
        assert_eq!(t.name, "mcp_github_create_issue");
        assert_eq!(t.mcp, Some(("github".into(), "create_issue".into())));
        assert_eq!(mcp_name("my server", "do/it"), "mcp_my_server_do_it");
        let long = mcp_name(&"s".repeat(40), &"t".repeat(40));
        assert_eq!(long.len(), 63);
        assert!(long.starts_with("mcp_sss") && long.contains("...") && long.ends_with("ttt"));
    }
}
