//! Host tools across dialects (docs/envelope.md "Host tools"). The envelope's `toolName` and `toolInput`
//! are the host's own; hooks written for another harness match and read that harness's names.
//! This module is data and pure functions:
//! - [`Kind`]: the kinds of tool and their canonical fields;
//! - [`HostTools`]: what the host's tools are (option `tools` over Claude Code's names, which
//!   are known by default), each tool's kind and the host's name of each canonical field;
//! - [`Table`]: one per dialect, its tool name and field names for each kind ([`CLAUDE`],
//!   [`CODEX`], [`CURSOR`], [`COPILOT`], [`COPILOT_PASCAL`], [`GEMINI`]);
//! - [`to_dialect`]: a host tool call as a dialect's hooks see it, and [`from_dialect`]: a
//!   dialect's rewrite (`updatedInput` …) back under the host's field names;
//! - [`host_input_from_text`]: arguments given only as text (`"toolArgs": "rm -rf /"`) as the
//!   input of a known tool (its kind's main field).
//!
//! A dialect asks for a view by the host's tool name; the engine never names a dialect here.

use super::Envelope;
use crate::response::json;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

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
    pub const ALL: &'static [Kind] = &[
        Kind::Shell,
        Kind::Read,
        Kind::Write,
        Kind::Edit,
        Kind::Fetch,
        Kind::Search,
        Kind::Glob,
        Kind::Agent,
        Kind::Mcp,
    ];

    /// The kind's name in option `tools`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Shell => "shell",
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Edit => "edit",
            Kind::Fetch => "fetch",
            Kind::Search => "search",
            Kind::Glob => "glob",
            Kind::Agent => "agent",
            Kind::Mcp => "mcp",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    pub fn names() -> Vec<&'static str> {
        Kind::ALL.iter().map(|k| k.name()).collect()
    }

    /// The kind's canonical fields, the names option `tools` maps to the host's field names.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Kind::Shell => &["command", "cwd"],
            Kind::Read => &["path"],
            Kind::Write => &["path", "content"],
            Kind::Edit => &["path", "old", "new"],
            Kind::Fetch => &["url"],
            Kind::Search | Kind::Glob => &["pattern", "path"],
            Kind::Agent => &["prompt"],
            Kind::Mcp => &["server", "tool"],
        }
    }

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

/// Canonical field → another field name (the host's or a dialect's).
type FieldNames = &'static [(&'static str, &'static str)];

/// Claude Code's tool names, known as their kinds without any option, with Claude Code's field
/// names: a host that uses these names sends these fields (canonical → host field).
const DEFAULTS: &[(&str, Kind, FieldNames)] = &[
    ("Bash", Kind::Shell, &[("command", "command")]),
    ("Read", Kind::Read, &[("path", "file_path")]),
    ("Write", Kind::Write, &[("path", "file_path"), ("content", "content")]),
    ("Edit", Kind::Edit, &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")]),
    ("MultiEdit", Kind::Edit, &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")]),
    ("WebFetch", Kind::Fetch, &[("url", "url")]),
    ("Grep", Kind::Search, &[("pattern", "pattern"), ("path", "path")]),
    ("Glob", Kind::Glob, &[("pattern", "pattern"), ("path", "path")]),
    ("Task", Kind::Agent, &[("prompt", "prompt")]),
];

/// One host tool of option `tools`: its kind and the host's field names that differ from the
/// canonical ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTool {
    pub kind: Kind,
    /// Canonical field → the host's field name.
    pub fields: Vec<(&'static str, String)>,
}

/// The host's tools: option `tools`, then Claude Code's names, then `mcp__<server>__<tool>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostTools {
    listed: HashMap<String, HostTool>,
}

/// A host tool the engine knows: its kind and the host's name of each canonical field.
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    pub kind: Kind,
    fields: Fields<'a>,
}

#[derive(Debug, Clone, Copy)]
enum Fields<'a> {
    Default(&'static [(&'static str, &'static str)]),
    Listed(&'a [(&'static str, String)]),
}

impl<'a> Known<'a> {
    /// The host's name of canonical field `canonical` (the canonical name unless mapped).
    pub fn host_field(&self, canonical: &'static str) -> &'a str {
        let mapped = match self.fields {
            Fields::Default(f) => f.iter().find(|(c, _)| *c == canonical).map(|(_, h)| *h),
            Fields::Listed(f) => f.iter().find(|(c, _)| *c == canonical).map(|(_, h)| h.as_str()),
        };
        mapped.unwrap_or(canonical)
    }
}

impl HostTools {
    /// Adds (or replaces) one tool of option `tools`; the caller validated it.
    pub fn insert(&mut self, name: String, tool: HostTool) {
        self.listed.insert(name, tool);
    }

    pub fn is_empty(&self) -> bool {
        self.listed.is_empty()
    }

    /// The host's tool `name`, when the engine knows it. Names are exact.
    pub fn lookup(&self, name: &str) -> Option<Known<'_>> {
        if let Some(tool) = self.listed.get(name) {
            return Some(Known { kind: tool.kind, fields: Fields::Listed(&tool.fields) });
        }
        if let Some((_, kind, fields)) = DEFAULTS.iter().find(|(n, _, _)| *n == name) {
            return Some(Known { kind: *kind, fields: Fields::Default(fields) });
        }
        mcp_name(name).map(|_| Known { kind: Kind::Mcp, fields: Fields::Default(&[]) })
    }
}

/// The kind of tool `name` among Claude Code's names and `mcp__<server>__<tool>` only. A dialect
/// view uses the engine's [`HostTools`] (option `tools`) instead; this stays for code that
/// has no options at hand.
pub fn kind(name: &str) -> Option<Kind> {
    HostTools::default().lookup(name).map(|k| k.kind)
}

/// `mcp__<server>__<tool>` → (server, tool).
fn mcp_name(name: &str) -> Option<(&str, &str)> {
    let (server, tool) = name.strip_prefix("mcp__")?.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// How a dialect's hooks get a tool's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The host's fields, renamed by [`DialectTool::fields`].
    Renamed,
    /// Codex's `apply_patch`: the input is `{"command": <patch text>}` made from the canonical
    /// fields (the Codex dialect's page); the Codex dialect builds and reads the patch, so
    /// [`to_dialect`] and [`from_dialect`] pass such an input on as given.
    ApplyPatch,
}

/// A dialect's tool of one kind.
#[derive(Debug, Clone, Copy)]
pub struct DialectTool {
    pub kind: Kind,
    /// The dialect's names for tools of this kind. A host tool gets the first; one already named
    /// one of them keeps its name (Claude Code's `MultiEdit` stays `MultiEdit`).
    pub names: &'static [&'static str],
    /// Canonical field → the dialect's field. A canonical field not listed has no counterpart:
    /// the host's field passes through under the host's name.
    pub fields: &'static [(&'static str, &'static str)],
    pub input: Input,
}

/// One dialect's tool table.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    pub dialect: &'static str,
    /// At most one entry per kind; a kind without one reaches the dialect under the host's
    /// name with its input as given.
    pub tools: &'static [DialectTool],
    /// How the dialect names an MCP tool: `{server}` and `{tool}` are replaced.
    pub mcp: &'static str,
}

impl Table {
    pub fn tool(&self, kind: Kind) -> Option<&DialectTool> {
        self.tools.iter().find(|t| t.kind == kind)
    }
}

const fn tool(
    kind: Kind,
    names: &'static [&'static str],
    fields: &'static [(&'static str, &'static str)],
) -> DialectTool {
    DialectTool { kind, names, fields, input: Input::Renamed }
}

/// Claude Code: its own names and fields (identity for a host using them).
pub const CLAUDE: Table = Table {
    dialect: "claude",
    tools: &[
        tool(Kind::Shell, &["Bash"], &[("command", "command")]),
        tool(Kind::Read, &["Read"], &[("path", "file_path")]),
        tool(Kind::Write, &["Write"], &[("path", "file_path"), ("content", "content")]),
        tool(
            Kind::Edit,
            &["Edit", "MultiEdit"],
            &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")],
        ),
        tool(Kind::Fetch, &["WebFetch"], &[("url", "url")]),
        tool(Kind::Search, &["Grep"], &[("pattern", "pattern"), ("path", "path")]),
        tool(Kind::Glob, &["Glob"], &[("pattern", "pattern"), ("path", "path")]),
        // Newer Claude Code calls it `Agent`; a host tool named so keeps that name.
        tool(Kind::Agent, &["Task", "Agent"], &[("prompt", "prompt")]),
    ],
    mcp: "mcp__{server}__{tool}",
};

/// Codex: every shell tool is `Bash`; writes and edits are `apply_patch` patches; read, fetch,
/// search and glob have no Codex tool (host name, input as given).
pub const CODEX: Table = Table {
    dialect: "codex",
    tools: &[
        tool(Kind::Shell, &["Bash"], &[("command", "command")]),
        DialectTool { kind: Kind::Write, names: &["apply_patch"], fields: &[], input: Input::ApplyPatch },
        DialectTool { kind: Kind::Edit, names: &["apply_patch"], fields: &[], input: Input::ApplyPatch },
        tool(Kind::Agent, &["spawn_agent"], &[("prompt", "message")]),
    ],
    mcp: "mcp__{server}__{tool}",
};

/// Cursor: edits arrive as `Write`; Grep's search scope is `file_path`.
pub const CURSOR: Table = Table {
    dialect: "cursor",
    tools: &[
        tool(Kind::Shell, &["Shell"], &[("command", "command"), ("cwd", "cwd")]),
        tool(Kind::Read, &["Read"], &[("path", "file_path")]),
        tool(Kind::Write, &["Write"], &[("path", "file_path"), ("content", "content")]),
        tool(Kind::Edit, &["Write"], &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")]),
        tool(Kind::Fetch, &["WebFetch"], &[("url", "url")]),
        tool(Kind::Search, &["Grep"], &[("pattern", "pattern"), ("path", "file_path")]),
        tool(Kind::Glob, &["Glob"], &[("pattern", "pattern"), ("path", "path")]),
        tool(Kind::Agent, &["Task"], &[("prompt", "prompt")]),
    ],
    mcp: "MCP:{tool}",
};

/// GitHub Copilot CLI, camelCase hooks (`toolName`): the runtime's tool names and fields.
pub const COPILOT: Table = Table {
    dialect: "copilot",
    tools: &[
        tool(Kind::Shell, &["bash", "powershell"], &[("command", "command")]),
        tool(Kind::Read, &["view"], &[("path", "path")]),
        tool(Kind::Write, &["create"], &[("path", "path"), ("content", "file_text")]),
        tool(Kind::Edit, &["edit", "str_replace_editor"], &[("path", "path"), ("old", "old_str"), ("new", "new_str")]),
        tool(Kind::Fetch, &["web_fetch"], &[("url", "url")]),
        tool(Kind::Search, &["grep", "rg"], &[("pattern", "pattern"), ("path", "paths")]),
        tool(Kind::Glob, &["glob"], &[("pattern", "pattern"), ("path", "paths")]),
        tool(Kind::Agent, &["task"], &[("prompt", "prompt")]),
    ],
    mcp: "{server}-{tool}",
};

/// GitHub Copilot CLI, PascalCase (VS Code compatible) hooks: Claude Code's tool names, but
/// Copilot's own argument names.
pub const COPILOT_PASCAL: Table = Table {
    dialect: "copilot",
    tools: &[
        tool(Kind::Shell, &["Bash"], &[("command", "command")]),
        tool(Kind::Read, &["Read"], &[("path", "path")]),
        tool(Kind::Write, &["Write"], &[("path", "path"), ("content", "file_text")]),
        tool(Kind::Edit, &["Edit"], &[("path", "path"), ("old", "old_str"), ("new", "new_str")]),
        tool(Kind::Fetch, &["WebFetch"], &[("url", "url")]),
        tool(Kind::Search, &["Grep"], &[("pattern", "pattern"), ("path", "paths")]),
        tool(Kind::Glob, &["Glob"], &[("pattern", "pattern"), ("path", "paths")]),
        // `Agent` whatever the host calls it, as the CLI sends it (its matchers accept `Task` too:
        // the Copilot dialect's selection, docs/dialects/copilot.md).
        tool(Kind::Agent, &["Agent"], &[("prompt", "prompt")]),
    ],
    mcp: "{server}-{tool}",
};

/// Gemini CLI. (`grep_search` was `search_file_content` before v0.28.)
pub const GEMINI: Table = Table {
    dialect: "gemini",
    tools: &[
        tool(Kind::Shell, &["run_shell_command"], &[("command", "command"), ("cwd", "dir_path")]),
        tool(Kind::Read, &["read_file"], &[("path", "file_path")]),
        tool(Kind::Write, &["write_file"], &[("path", "file_path"), ("content", "content")]),
        tool(Kind::Edit, &["replace"], &[("path", "file_path"), ("old", "old_string"), ("new", "new_string")]),
        tool(Kind::Fetch, &["web_fetch"], &[("url", "url")]),
        tool(Kind::Search, &["grep_search", "search_file_content"], &[("pattern", "pattern"), ("path", "dir_path")]),
        tool(Kind::Glob, &["glob"], &[("pattern", "pattern"), ("path", "dir_path")]),
        tool(Kind::Agent, &["invoke_agent"], &[("prompt", "prompt")]),
    ],
    mcp: "mcp_{server}_{tool}",
};

/// Every dialect's table (for checks over all of them).
pub const TABLES: &[&Table] = &[&CLAUDE, &CODEX, &CURSOR, &COPILOT, &COPILOT_PASCAL, &GEMINI];

/// A host tool call as a dialect's hooks see it: the dialect's tool name, and the input's JSON
/// text with each field the dialect has a counterpart for renamed (borrowed when nothing
/// changes). A tool the engine does not know, or of a kind the dialect has no tool for, keeps
/// the host's name and input. Values are copied as written (a lone surrogate escape or `1e999`
/// included: docs/envelope.md "One envelope").
pub fn to_dialect<'a>(
    table: &Table,
    host: &HostTools,
    name: &'a str,
    input: Option<&'a str>,
) -> (Cow<'a, str>, Option<Cow<'a, str>>) {
    let unchanged = (Cow::Borrowed(name), input.map(Cow::Borrowed));
    let Some(known) = host.lookup(name) else { return unchanged };
    if known.kind == Kind::Mcp {
        return (mcp_view(table, known, name, input).map_or(Cow::Borrowed(name), Cow::Owned), input.map(Cow::Borrowed));
    }
    let Some(tool) = table.tool(known.kind) else { return unchanged };
    let dialect_name = if tool.names.contains(&name) { Cow::Borrowed(name) } else { Cow::Borrowed(tool.names[0]) };
    if tool.input != Input::Renamed {
        return (dialect_name, input.map(Cow::Borrowed));
    }
    let renames: Vec<(&str, &str)> = tool
        .fields
        .iter()
        .map(|(canonical, theirs)| (known.host_field(canonical), *theirs))
        .filter(|(ours, theirs)| ours != theirs)
        .collect();
    let input = input.map(|raw| rename_raw(raw, &renames).map_or(Cow::Borrowed(raw), Cow::Owned));
    (dialect_name, input)
}

/// A dialect's rewrite of the host tool `name`'s input, under the host's field names. Fields the
/// dialect has no counterpart for come back as they are.
pub fn from_dialect(table: &Table, host: &HostTools, name: &str, rewrite: Value) -> Value {
    let Some(known) = host.lookup(name) else { return rewrite };
    let Some(tool) = table.tool(known.kind).filter(|t| t.input == Input::Renamed && known.kind != Kind::Mcp) else {
        return rewrite;
    };
    let Value::Object(map) = rewrite else { return rewrite };
    let renames: Vec<(&str, &str)> = tool
        .fields
        .iter()
        .map(|(canonical, theirs)| (*theirs, known.host_field(canonical)))
        .filter(|(theirs, ours)| theirs != ours)
        .collect();
    if !map.keys().any(|k| renames.iter().any(|(from, _)| from == k)) {
        return Value::Object(map);
    }
    let targets: Vec<&str> = renames.iter().filter(|(from, _)| map.contains_key(*from)).map(|(_, to)| *to).collect();
    let mut out = Map::with_capacity(map.len());
    for (key, value) in map {
        match renames.iter().find(|(from, _)| *from == key) {
            Some((_, to)) => {
                out.insert(to.to_string(), value);
            }
            // A field that passes through under a name a renamed field now has is not the
            // field the host's tool reads: the renamed one is.
            None if targets.contains(&key.as_str()) => {}
            None => {
                if !out.contains_key(&key) {
                    out.insert(key, value);
                }
            }
        }
    }
    Value::Object(out)
}

/// The host's tool name in `envelope`: the first spelling given (`toolName` or `tool_name`), as
/// every dialect's view takes it.
pub fn host_tool_name(envelope: &Envelope) -> Option<Cow<'_, str>> {
    let (_, raw) = envelope.fields().find(|(k, _)| super::to_snake(k) == "tool_name")?;
    json::value(raw)?.as_str()
}

/// A dialect's rewrite of the tool call in `envelope`, under the host's field names: what a
/// dialect's `to_host_input` returns ([`from_dialect`] for the envelope's tool).
pub fn rewrite_for_host(table: &Table, host: &HostTools, envelope: &Envelope, rewrite: Value) -> Value {
    match host_tool_name(envelope) {
        Some(name) => from_dialect(table, host, &name, rewrite),
        None => rewrite,
    }
}

/// The host's input of tool `name` given only as text (`text`, the JSON string as received):
/// `{"<the host's main field>": text}`, for a tool of a known kind with a main field.
pub fn host_input_from_text(host: &HostTools, name: &str, text: &str) -> Option<String> {
    let known = host.lookup(name)?;
    let field = known.host_field(known.kind.main_field()?);
    Some(format!("{{{}:{text}}}", Value::String(field.to_string())))
}

/// The dialect's name of an MCP tool: from `mcp__<server>__<tool>`, or from a listed MCP tool's
/// `server` and `tool` fields when they are strings.
fn mcp_view(table: &Table, known: Known, name: &str, input: Option<&str>) -> Option<String> {
    let (server, tool): (Cow<str>, Cow<str>) = match mcp_name(name) {
        Some((s, t)) => (Cow::Borrowed(s), Cow::Borrowed(t)),
        None => {
            let obj = json::value(input?)?.as_object()?;
            let field = |c: &'static str| obj.get_by(known.host_field(c), |_| false).and_then(json::Val::as_str);
            (field("server")?, field("tool")?)
        }
    };
    Some(table.mcp.replace("{server}", &server).replace("{tool}", &tool))
}

/// The object `raw` with keys renamed by `renames` (from → to), every entry (a repeated key's
/// too) kept in order with its value's text as written; an entry that passes through under a
/// name a renamed entry takes is dropped, so a hook reads the field the host's tool reads.
/// `None` when nothing is renamed or `raw` is not an object.
fn rename_raw(raw: &str, renames: &[(&str, &str)]) -> Option<String> {
    let obj = json::value(raw)?.as_object()?;
    let renamed = |key: &str| renames.iter().find(|(from, _)| *from == key).map(|(_, to)| *to);
    if !obj.entries().any(|(k, _)| renamed(k).is_some()) {
        return None;
    }
    let targets: Vec<&str> = obj.entries().filter_map(|(k, _)| renamed(k)).collect();
    let mut out = String::with_capacity(raw.len() + 16);
    out.push('{');
    for (key, value) in obj.entries() {
        let key = match renamed(key) {
            Some(to) => to,
            None if targets.contains(&key) => continue,
            None => key,
        };
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&Value::String(key.to_string()).to_string());
        out.push(':');
        out.push_str(value.raw());
    }
    out.push('}');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    type Fields<'a> = &'a [(&'static str, &'a str)];

    fn host(tools: &[(&str, Kind, Fields)]) -> HostTools {
        let mut h = HostTools::default();
        for (name, kind, fields) in tools {
            let fields = fields.iter().map(|(c, f)| (*c, f.to_string())).collect();
            h.insert(name.to_string(), HostTool { kind: *kind, fields });
        }
        h
    }

    fn view(table: &Table, h: &HostTools, name: &str, input: &str) -> (String, Value) {
        let (n, i) = to_dialect(table, h, name, Some(input));
        (n.into_owned(), serde_json::from_str(&i.unwrap()).unwrap())
    }

    #[test]
    fn kinds_and_main_fields() {
        let h = HostTools::default();
        // Claude Code's names are the host's, with Claude Code's fields.
        assert_eq!(host_input_from_text(&h, "Bash", r#""rm -rf /""#).as_deref(), Some(r#"{"command":"rm -rf /"}"#));
        assert_eq!(host_input_from_text(&h, "MultiEdit", r#""a.rs""#).as_deref(), Some(r#"{"file_path":"a.rs"}"#));
        assert_eq!(host_input_from_text(&h, "WebFetch", r#""http://x""#).as_deref(), Some(r#"{"url":"http://x"}"#));
        assert_eq!(host_input_from_text(&h, "Task", r#""go""#).as_deref(), Some(r#"{"prompt":"go"}"#));
        assert_eq!(h.lookup("mcp__fs__read").map(|k| k.kind), Some(Kind::Mcp));
        assert_eq!(host_input_from_text(&h, "mcp__fs__read", r#""x""#), None);
        assert_eq!(host_input_from_text(&h, "bash", r#""x""#), None, "names are exact");
        assert!(h.lookup("mcp____x").is_none());
        assert!(h.lookup("mcp__x__").is_none());
        // A listed tool: its own main field's name.
        let h = host(&[("shell", Kind::Shell, &[("command", "cmd")]), ("open", Kind::Read, &[])]);
        assert_eq!(host_input_from_text(&h, "shell", r#""ls""#).as_deref(), Some(r#"{"cmd":"ls"}"#));
        assert_eq!(host_input_from_text(&h, "open", r#""a""#).as_deref(), Some(r#"{"path":"a"}"#));
        for kind in Kind::ALL {
            assert_eq!(Kind::from_name(kind.name()), Some(*kind));
            if let Some(main) = kind.main_field() {
                assert!(kind.fields().contains(&main), "{kind:?}");
            }
        }
    }

    /// Every table: one entry per kind, its fields canonical fields of that kind, no dialect
    /// field named twice, at least one name; Claude Code's table is the identity for its names.
    #[test]
    fn tables_are_well_formed() {
        for table in TABLES {
            for (i, t) in table.tools.iter().enumerate() {
                assert!(!t.names.is_empty(), "{}: {:?}", table.dialect, t.kind);
                assert!(table.tools[..i].iter().all(|o| o.kind != t.kind), "{}: {:?} twice", table.dialect, t.kind);
                for (j, (canonical, theirs)) in t.fields.iter().enumerate() {
                    assert!(t.kind.fields().contains(canonical), "{}: {canonical} of {:?}", table.dialect, t.kind);
                    assert!(t.fields[..j].iter().all(|(c, f)| c != canonical && f != theirs), "{}", table.dialect);
                }
            }
            assert!(table.mcp.contains("{tool}"), "{}", table.dialect);
        }
        let h = HostTools::default();
        for (name, _, fields) in DEFAULTS {
            let input = serde_json::Value::Object(fields.iter().map(|(_, f)| (f.to_string(), json!("v"))).collect());
            let text = input.to_string();
            let (n, i) = to_dialect(&CLAUDE, &h, name, Some(&text));
            assert_eq!(n, *name);
            assert!(matches!(i, Some(Cow::Borrowed(_))), "{name}: nothing renamed");
            assert_eq!(from_dialect(&CLAUDE, &h, name, input.clone()), input);
        }
    }

    #[test]
    fn a_host_shell_named_shell_with_cmd() {
        let h = host(&[("shell", Kind::Shell, &[("command", "cmd")])]);
        let (name, input) = view(&CLAUDE, &h, "shell", r#"{"cmd":"rm -rf /","timeout":5}"#);
        assert_eq!(name, "Bash");
        assert_eq!(input, json!({"command": "rm -rf /", "timeout": 5}));
        // Back: the host's field.
        assert_eq!(
            from_dialect(&CLAUDE, &h, "shell", json!({"command": "ls", "timeout": 5})),
            json!({"cmd": "ls", "timeout": 5})
        );
        // Each dialect's own name and field.
        for (table, want) in [
            (&CODEX, "Bash"),
            (&CURSOR, "Shell"),
            (&COPILOT, "bash"),
            (&COPILOT_PASCAL, "Bash"),
            (&GEMINI, "run_shell_command"),
        ] {
            let (name, input) = view(table, &h, "shell", r#"{"cmd":"ls"}"#);
            assert_eq!((name.as_str(), &input), (want, &json!({"command": "ls"})), "{}", table.dialect);
            assert_eq!(from_dialect(table, &h, "shell", json!({"command": "x"})), json!({"cmd": "x"}));
        }
    }

    #[test]
    fn fields_without_a_counterpart_pass_through() {
        // Claude Code's Bash has no `cwd`: the host's name stays; Gemini's is `dir_path`.
        let h = host(&[("sh", Kind::Shell, &[("command", "line"), ("cwd", "dir")])]);
        assert_eq!(
            view(&CLAUDE, &h, "sh", r#"{"line":"ls","dir":"/w","x":1}"#).1,
            json!({"command": "ls", "dir": "/w", "x": 1})
        );
        assert_eq!(
            view(&GEMINI, &h, "sh", r#"{"line":"ls","dir":"/w"}"#).1,
            json!({"command": "ls", "dir_path": "/w"})
        );
        assert_eq!(
            from_dialect(&GEMINI, &h, "sh", json!({"command": "a", "dir_path": "/b", "description": "d"})),
            json!({"line": "a", "dir": "/b", "description": "d"})
        );
        assert_eq!(
            from_dialect(&CLAUDE, &h, "sh", json!({"command": "a", "dir": "/b"})),
            json!({"line": "a", "dir": "/b"})
        );
        // Read under every dialect; Codex has no read tool: host name and input as given.
        let h = host(&[("read_file", Kind::Read, &[("path", "filename")])]);
        assert_eq!(view(&CLAUDE, &h, "read_file", r#"{"filename":"/a"}"#), ("Read".into(), json!({"file_path": "/a"})));
        assert_eq!(view(&COPILOT, &h, "read_file", r#"{"filename":"/a"}"#), ("view".into(), json!({"path": "/a"})));
        assert_eq!(
            view(&CODEX, &h, "read_file", r#"{"filename":"/a"}"#),
            ("read_file".into(), json!({"filename": "/a"}))
        );
        // Claude Code's Edit reaches Copilot and Gemini with their fields, and comes back.
        let h = HostTools::default();
        let edit = r#"{"file_path":"/a","old_string":"x","new_string":"y","replace_all":true}"#;
        assert_eq!(
            view(&COPILOT, &h, "Edit", edit),
            ("edit".into(), json!({"path": "/a", "old_str": "x", "new_str": "y", "replace_all": true}))
        );
        assert_eq!(view(&GEMINI, &h, "Edit", edit).0, "replace");
        assert_eq!(
            from_dialect(&COPILOT, &h, "Write", json!({"path": "/a", "file_text": "c"})),
            json!({"file_path": "/a", "content": "c"})
        );
        // Codex's write and edit are patches, left to the Codex dialect; its agent is spawn_agent.
        assert_eq!(to_dialect(&CODEX, &h, "Write", Some(r#"{"file_path":"a"}"#)).0, "apply_patch");
        assert_eq!(view(&CODEX, &h, "Task", r#"{"prompt":"go"}"#), ("spawn_agent".into(), json!({"message": "go"})));
    }

    #[test]
    fn unknown_tools_and_odd_inputs_pass_as_given() {
        let h = HostTools::default();
        for table in TABLES {
            let (n, i) = to_dialect(table, &h, "my_tool", Some(r#"{"command":"x"}"#));
            assert_eq!((n.as_ref(), i.as_deref()), ("my_tool", Some(r#"{"command":"x"}"#)));
            assert_eq!(from_dialect(table, &h, "my_tool", json!({"a": 1})), json!({"a": 1}));
        }
        let h = host(&[("shell", Kind::Shell, &[("command", "cmd")])]);
        // Not an object: the name is still the dialect's, the input as given.
        let (n, i) = to_dialect(&CLAUDE, &h, "shell", Some(r#""ls""#));
        assert_eq!((n.as_ref(), i.as_deref()), ("Bash", Some(r#""ls""#)));
        assert_eq!(from_dialect(&CLAUDE, &h, "shell", json!("x")), json!("x"));
        // Values as written: a lone surrogate and 1e999 survive the rename.
        let (_, i) = to_dialect(&CLAUDE, &h, "shell", Some(r#"{"cmd":"rm \ud800","n":1e999}"#));
        assert_eq!(i.as_deref(), Some(r#"{"command":"rm \ud800","n":1e999}"#));
    }

    /// A host field passing through under the name a renamed field takes must not shadow it:
    /// a guard reading `tool_input.command` reads what the host's tool runs.
    #[test]
    fn a_renamed_field_wins_over_a_field_passing_through_under_its_name() {
        let h = host(&[("shell", Kind::Shell, &[("command", "cmd")])]);
        for text in [
            r#"{"cmd":"rm -rf /","command":"ls"}"#,
            r#"{"command":"ls","cmd":"rm -rf /"}"#,
            // Keys are compared decoded: an escape hides neither the field nor the decoy.
            r#"{"c\u006dd":"rm -rf /","comm\u0061nd":"ls"}"#,
        ] {
            let (_, i) = to_dialect(&CLAUDE, &h, "shell", Some(text));
            assert_eq!(i.as_deref(), Some(r#"{"command":"rm -rf /"}"#), "{text}");
        }
        // A repeated key keeps every value, in order (each reader reads what it would have).
        let (_, i) = to_dialect(&CLAUDE, &h, "shell", Some(r#"{"cmd":"a","cmd":"b"}"#));
        assert_eq!(i.as_deref(), Some(r#"{"command":"a","command":"b"}"#));
        assert_eq!(
            from_dialect(&CLAUDE, &h, "shell", json!({"cmd": "rm -rf /", "command": "ls"})),
            json!({"cmd": "ls"})
        );
    }

    /// The envelope's first spelling of the tool name decides, as in every view.
    #[test]
    fn a_rewrite_of_the_envelopes_tool() {
        use crate::event::Event;
        let h = host(&[("shell", Kind::Shell, &[("command", "cmd")])]);
        for text in [
            r#"{"event":"preToolUse","tool_name":"shell","toolName":"Bash"}"#,
            r#"{"event":"preToolUse","toolName":"shell"}"#,
        ] {
            let env = Envelope::parse(text, Event::PreToolUse).unwrap();
            assert_eq!(host_tool_name(&env).as_deref(), Some("shell"));
            assert_eq!(rewrite_for_host(&GEMINI, &h, &env, json!({"command": "ls"})), json!({"cmd": "ls"}), "{text}");
        }
        let env = Envelope::parse(r#"{"event":"preToolUse"}"#, Event::PreToolUse).unwrap();
        assert_eq!(rewrite_for_host(&CLAUDE, &h, &env, json!({"command": "ls"})), json!({"command": "ls"}));
    }

    #[test]
    fn mcp_tools_by_each_dialects_name() {
        let h = HostTools::default();
        for (table, want) in [
            (&CLAUDE, "mcp__fs__read_file"),
            (&CODEX, "mcp__fs__read_file"),
            (&CURSOR, "MCP:read_file"),
            (&COPILOT, "fs-read_file"),
            (&GEMINI, "mcp_fs_read_file"),
        ] {
            let (n, i) = to_dialect(table, &h, "mcp__fs__read_file", Some(r#"{"path":"/a"}"#));
            assert_eq!((n.as_ref(), i.as_deref()), (want, Some(r#"{"path":"/a"}"#)), "{}", table.dialect);
        }
        // A listed MCP tool names its server and tool in its input.
        let h = host(&[("call_mcp", Kind::Mcp, &[("server", "srv")])]);
        let input = r#"{"srv":"gh","tool":"create_issue","arguments":{}}"#;
        assert_eq!(to_dialect(&CLAUDE, &h, "call_mcp", Some(input)).0, "mcp__gh__create_issue");
        assert_eq!(to_dialect(&CLAUDE, &h, "call_mcp", Some(r#"{"srv":1}"#)).0, "call_mcp");
        assert_eq!(to_dialect(&CLAUDE, &h, "call_mcp", None).0, "call_mcp");
    }

    #[test]
    fn a_listed_tool_replaces_a_default_and_keeps_a_dialect_name() {
        // The host's `Bash` takes `cmd`.
        let h = host(&[("Bash", Kind::Shell, &[("command", "cmd")])]);
        assert_eq!(view(&CLAUDE, &h, "Bash", r#"{"cmd":"ls"}"#), ("Bash".into(), json!({"command": "ls"})));
        // MultiEdit stays MultiEdit for Claude Code, is `edit` for Copilot.
        let h = HostTools::default();
        assert_eq!(to_dialect(&CLAUDE, &h, "MultiEdit", None).0, "MultiEdit");
        assert_eq!(to_dialect(&COPILOT, &h, "MultiEdit", None).0, "edit");
        let h = host(&[("Agent", Kind::Agent, &[])]);
        assert_eq!(to_dialect(&CLAUDE, &h, "Agent", None).0, "Agent");
        assert_eq!(to_dialect(&CURSOR, &h, "Agent", None).0, "Task");
    }
}
