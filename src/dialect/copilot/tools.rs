//! Copilot's tool names and argument fields (docs/dialects/copilot.md, host tools): how a
//! host tool of a known kind is named for a camelCase hook (`bash`, `view`, `create`, `edit`, …)
//! and for a PascalCase one (`Bash`, `Read`, `Write`, `Edit`, … with `Agent` for the sub-agent
//! tool), and its fields under Copilot's names (`path`, `file_text`, `old_str`, `new_str`).
//! Both casings keep Copilot's field names: the CLI maps only the tool's name.
//!
//! The host side (which host name is which kind, and the host's field names) comes from
//! [`crate::envelope::tools`]; this table is only Copilot's half.

use crate::envelope::tools::{self as host, Kind};

/// One Copilot tool: its kind, the camelCase (runtime) name, the PascalCase name, and each
/// canonical field's Copilot name.
pub struct Tool {
    pub kind: Kind,
    pub runtime: &'static str,
    pub pascal: &'static str,
    /// (canonical field, Copilot field).
    pub fields: &'static [(&'static str, &'static str)],
}

/// The runtime names by kind (the first of a kind is the one a host's tool is sent as); the
/// others (`str_replace_editor`, `rg`, `powershell`) are known when a host already uses them.
pub const TOOLS: &[Tool] = &[
    Tool { kind: Kind::Shell, runtime: "bash", pascal: "Bash", fields: &[("command", "command"), ("cwd", "cwd")] },
    Tool { kind: Kind::Read, runtime: "view", pascal: "Read", fields: &[("path", "path")] },
    Tool {
        kind: Kind::Write,
        runtime: "create",
        pascal: "Write",
        fields: &[("path", "path"), ("content", "file_text")],
    },
    Tool {
        kind: Kind::Edit,
        runtime: "edit",
        pascal: "Edit",
        fields: &[("path", "path"), ("old", "old_str"), ("new", "new_str")],
    },
    Tool { kind: Kind::Fetch, runtime: "web_fetch", pascal: "WebFetch", fields: &[("url", "url")] },
    // Copilot 1.0.102's schema says `paths`, older releases `path`, and its type is not
    // documented: the canonical `path` passes as `path`.
    Tool { kind: Kind::Search, runtime: "grep", pascal: "Grep", fields: &[("pattern", "pattern"), ("path", "path")] },
    Tool { kind: Kind::Glob, runtime: "glob", pascal: "Glob", fields: &[("pattern", "pattern"), ("path", "path")] },
    Tool { kind: Kind::Agent, runtime: "task", pascal: "Agent", fields: &[("prompt", "prompt")] },
    Tool { kind: Kind::Shell, runtime: "powershell", pascal: "Bash", fields: &[("command", "command")] },
    Tool {
        kind: Kind::Edit,
        runtime: "str_replace_editor",
        pascal: "Edit",
        fields: &[("path", "path"), ("old", "old_str"), ("new", "new_str")],
    },
    Tool { kind: Kind::Search, runtime: "rg", pascal: "Grep", fields: &[("pattern", "pattern"), ("path", "path")] },
];

/// Copilot's tools with no kind of their own: only their PascalCase names differ.
const OTHER_NAMES: &[(&str, &str)] = &[
    ("ask_user", "AskUserQuestion"),
    ("web_search", "WebSearch"),
    ("update_todo", "TodoWrite"),
    ("apply_patch", "Edit"),
];

/// How the host's tool reaches a Copilot hook.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    /// `toolName` of a camelCase hook.
    pub runtime: String,
    /// `tool_name` of a PascalCase hook.
    pub pascal: String,
    /// (host field, Copilot field) renames of the tool input; empty: as given.
    pub renames: Vec<(String, &'static str)>,
}

/// The Copilot names of the host's tool `name`: a tool of a known kind under Copilot's name with
/// its fields renamed; a host that already uses a Copilot runtime name keeps it (its fields are
/// Copilot's); an MCP tool `mcp__server__tool` as Copilot's `server-tool`; anything else as the
/// host named it.
pub fn named(name: &str) -> Named {
    if let Some(t) = TOOLS.iter().find(|t| t.runtime == name) {
        return Named { runtime: name.to_string(), pascal: t.pascal.to_string(), renames: Vec::new() };
    }
    if let Some((_, pascal)) = OTHER_NAMES.iter().find(|(r, _)| *r == name) {
        return Named { runtime: name.to_string(), pascal: pascal.to_string(), renames: Vec::new() };
    }
    match host::kind(name) {
        Some(Kind::Mcp) => {
            let (server, tool) =
                name.strip_prefix("mcp__").and_then(|r| r.split_once("__")).expect("an MCP name, as `kind` said");
            let copilot = format!("{server}-{tool}");
            Named { runtime: copilot.clone(), pascal: copilot, renames: Vec::new() }
        }
        Some(kind) => {
            let tool = TOOLS.iter().find(|t| t.kind == kind).expect("every kind but mcp has a Copilot tool");
            let renames = tool
                .fields
                .iter()
                .filter_map(|(canonical, copilot)| {
                    let from = host::field(name, canonical)?;
                    (from != *copilot).then(|| (from.to_string(), *copilot))
                })
                .collect();
            Named { runtime: tool.runtime.to_string(), pascal: tool.pascal.to_string(), renames }
        }
        None => Named { runtime: name.to_string(), pascal: name.to_string(), renames: Vec::new() },
    }
}

impl Named {
    /// A Copilot field name of this tool's input as the host's (a rewrite going back).
    pub fn host_field<'a>(&'a self, copilot: &'a str) -> &'a str {
        self.renames.iter().find(|(_, c)| *c == copilot).map_or(copilot, |(h, _)| h.as_str())
    }

    /// The host's field name as Copilot's.
    pub fn copilot_field<'a>(&'a self, host: &'a str) -> &'a str {
        self.renames.iter().find(|(h, _)| h == host).map_or(host, |(_, c)| c)
    }

    /// The names a PascalCase matcher's listed names are compared with: Copilot's PascalCase
    /// name, its runtime name, and `Task` for `Agent` (the CLI accepts both).
    pub fn pascal_candidates(&self) -> Vec<&str> {
        let mut names = vec![self.pascal.as_str()];
        if self.runtime != self.pascal {
            names.push(self.runtime.as_str());
        }
        if self.pascal == "Agent" {
            names.push("Task");
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_names_become_copilot_names_with_copilot_fields() {
        let n = named("Bash");
        assert_eq!((n.runtime.as_str(), n.pascal.as_str()), ("bash", "Bash"));
        assert!(n.renames.is_empty());
        let n = named("Write");
        assert_eq!((n.runtime.as_str(), n.pascal.as_str()), ("create", "Write"));
        assert_eq!(n.copilot_field("file_path"), "path");
        assert_eq!(n.copilot_field("content"), "file_text");
        assert_eq!(n.host_field("file_text"), "content");
        let n = named("Edit");
        assert_eq!(n.runtime, "edit");
        assert_eq!(
            (n.copilot_field("old_string"), n.copilot_field("new_string"), n.copilot_field("replace_all")),
            ("old_str", "new_str", "replace_all")
        );
        let n = named("Task");
        assert_eq!((n.runtime.as_str(), n.pascal.as_str()), ("task", "Agent"));
        assert_eq!(n.pascal_candidates(), ["Agent", "task", "Task"]);
        assert_eq!(named("Read").runtime, "view");
        assert_eq!(named("WebFetch").runtime, "web_fetch");
        let n = named("mcp__github__create_issue");
        assert_eq!((n.runtime.as_str(), n.pascal.as_str()), ("github-create_issue", "github-create_issue"));
    }

    #[test]
    fn copilot_and_unknown_names_pass_as_given() {
        let n = named("bash");
        assert_eq!((n.runtime.as_str(), n.pascal.as_str()), ("bash", "Bash"));
        assert_eq!(named("str_replace_editor").pascal, "Edit");
        assert_eq!(named("ask_user").pascal, "AskUserQuestion");
        let n = named("my_tool");
        assert_eq!((n.runtime.as_str(), n.pascal.as_str()), ("my_tool", "my_tool"));
    }
}
