//! What a Cursor hook sees (docs/dialects/cursor.md, stdin): one compact line of snake_case JSON —
//! Cursor's common fields (`conversation_id`, `generation_id`, `hook_event_name`,
//! `workspace_roots`, …), the event's own fields (`command`/`cwd` on shell events, `tool_name`/
//! `tool_input` on tool events under Cursor's tool names), and every other envelope field in
//! snake_case — plus Cursor's environment variables and the value its matcher tests.
//!
//! Built once per fire from the fields the engine already read: every value is passed on as
//! the host wrote it, a lone surrogate escape or `1e999` included (docs/envelope.md "One envelope"), and
//! nothing in the envelope is ever run or expanded (a command is text in a JSON string).

use super::events::{CursorEvent, Match};
use crate::dialect::{Variant, View};
use crate::envelope::tools::{self as host_tools, HostTools, Kind};
use crate::envelope::{push_compact, to_snake, Envelope};
use crate::event::Event;
use crate::response::json;
use serde_json::Value;
use std::path::Path;

/// The host's tool as Cursor hooks see it.
#[derive(Debug, Clone)]
struct Tool {
    /// The host's name, decoded.
    host: String,
    kind: Option<Kind>,
    /// Cursor's name (the host's when its kind is unknown).
    cursor: String,
    /// The input's JSON text in Cursor's field names (an object), or as given.
    input: Option<String>,
    /// `(cursor field, raw JSON value)` of the input, for the tool-specific events' fields.
    fields: Vec<(String, String)>,
}

/// Cursor's view of one envelope.
#[derive(Debug, Clone)]
pub struct CursorView {
    /// Envelope fields by snake_case name, raw JSON text, first spelling given; the engine's
    /// `cwd` when the envelope has none.
    fields: Vec<(String, String)>,
    tool: Option<Tool>,
    engine_cwd: String,
}

/// Envelope fields the builder turns into Cursor's own (not passed through as they are).
const CONSUMED: &[&str] = &[
    "conversation_id",
    "session_id",
    "generation_id",
    "model",
    "model_id",
    "model_params",
    "cursor_version",
    "user_email",
    "transcript_path",
    "workspace_roots",
    "hook_event_name",
    "dialect",
    "tool_name",
    "tool_input",
    "tool_input_json",
    "tool_args",
    "tool_use_id",
    "tool_output",
    "tool_response",
    "tool_error",
    "error_message",
    "duration",
    "loop_count",
];

fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// The JSON a string value holds, compact, when it holds an object.
fn object_in_string(raw: &str) -> Option<String> {
    if !raw.starts_with('"') {
        return None;
    }
    let inner = json::decode_string(raw);
    let value = json::value(&inner).filter(|v| v.kind() == json::Kind::Object)?;
    if serde_json::from_str::<serde::de::IgnoredAny>(&inner).is_ok() {
        let mut out = Vec::with_capacity(inner.len());
        push_compact(&mut out, value.raw());
        return String::from_utf8(out).ok();
    }
    value.to_value().map(|v| v.to_string())
}

impl CursorView {
    /// `host_tools`: what the host's tools are (option `tools`, docs/envelope.md "Host tools"): a known
    /// tool reaches Cursor hooks under Cursor's name and field names (the one table,
    /// `envelope::tools::CURSOR`).
    pub fn build(envelope: &Envelope, cwd: &Path, host_tools: &HostTools) -> CursorView {
        let mut fields: Vec<(String, String)> = Vec::new();
        for (key, raw) in envelope.fields() {
            let snake = to_snake(key);
            if !fields.iter().any(|(k, _)| *k == snake) {
                fields.push((snake, raw.to_string()));
            }
        }
        let engine_cwd = quoted(&cwd.display().to_string());
        let get = |k: &str| fields.iter().find(|(f, _)| f == k).map(|(_, v)| v.as_str());
        let tool = get("tool_name").and_then(|raw| json::value(raw)?.as_str()).map(|host| {
            let host = host.into_owned();
            let kind = host_tools.lookup(&host).map(|k| k.kind);
            // The input: an object, else JSON text of one (openHarness's string forms), else
            // plain text for the kind's main field (docs/envelope.md "Host tools", `toolArgs` as text).
            let given = get("tool_input")
                .filter(|r| r.starts_with('{'))
                .map(str::to_string)
                .or_else(|| {
                    ["tool_input", "tool_input_json", "tool_args"]
                        .iter()
                        .find_map(|k| get(k).and_then(object_in_string))
                })
                .or_else(|| {
                    let text = get("tool_args").filter(|t| t.starts_with('"'))?;
                    host_tools::host_input_from_text(host_tools, &host, text)
                })
                .or_else(|| get("tool_input").map(str::to_string));
            let (cursor, input) = host_tools::to_dialect(&host_tools::CURSOR, host_tools, &host, given.as_deref());
            let (cursor, input) = (cursor.into_owned(), input.map(|i| i.into_owned()));
            let fields = input
                .as_deref()
                .and_then(|i| json::value(i)?.as_object())
                .map(|o| o.entries().map(|(k, v)| (k.to_string(), v.raw().to_string())).collect())
                .unwrap_or_default();
            Tool { host, kind, cursor, input, fields }
        });
        CursorView { fields, tool, engine_cwd }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn get_str(&self, key: &str) -> Option<String> {
        self.get(key).and_then(|r| json::value(r)?.as_str()).map(|s| s.into_owned())
    }

    /// The host tool's kind (which tool-specific events this fire raises).
    pub fn kind(&self) -> Option<Kind> {
        self.tool.as_ref().and_then(|t| t.kind)
    }

    /// The host's tool name, decoded.
    pub fn host_tool(&self) -> Option<&str> {
        self.tool.as_ref().map(|t| t.host.as_str())
    }

    /// An MCP tool's own name (Cursor's `MCP:<tool>` without the prefix).
    fn mcp_tool(&self) -> Option<String> {
        let t = self.tool.as_ref().filter(|t| t.kind == Some(Kind::Mcp))?;
        Some(t.cursor.strip_prefix("MCP:").unwrap_or(&t.cursor).to_string())
    }

    fn tool_field(&self, cursor_field: &str) -> Option<&str> {
        self.tool.as_ref()?.fields.iter().find(|(k, _)| k == cursor_field).map(|(_, v)| v.as_str())
    }

    /// The envelope's `loopCount` (`loop_count`): follow-ups already triggered in this
    /// conversation, as the host counts them (0 when absent or not a whole number).
    pub fn loop_count(&self) -> u64 {
        self.get("loop_count").and_then(|r| r.parse::<u64>().ok()).unwrap_or(0)
    }

    /// `status` of `stop`/`subagentStop`; `completed` when the host says none.
    pub fn status(&self) -> String {
        self.get_str("status").unwrap_or_else(|| "completed".to_string())
    }

    /// What `event`'s matcher is tested against; `None` when Cursor applies none (the hook runs).
    pub fn matcher_value(&self, event: &CursorEvent) -> Option<String> {
        Some(match event.matcher {
            Match::Never => return None,
            Match::Fixed(v) => v.to_string(),
            Match::ToolName => self.tool.as_ref().map(|t| t.cursor.clone()).unwrap_or_default(),
            Match::Command => self.command().unwrap_or_default(),
            Match::McpTool => self.mcp_tool().unwrap_or_default(),
            Match::SubagentType => {
                self.get_str("subagent_type").or_else(|| self.get_str("agent_type")).unwrap_or_default()
            }
        })
    }

    /// The shell command's text, decoded.
    pub fn command(&self) -> Option<String> {
        self.tool_field("command").and_then(|r| json::value(r)?.as_str()).map(|s| s.into_owned())
    }

    /// The stdin line of a hook of `event` (compact JSON and a newline).
    pub fn stdin(&self, event: &CursorEvent) -> String {
        let out = self.pairs(event);
        let mut line = String::with_capacity(out.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>() + 2);
        line.push('{');
        for (i, (k, v)) in out.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            line.push_str(&quoted(k));
            line.push(':');
            line.push_str(v);
        }
        line.push_str("}\n");
        line
    }

    /// The fields of `event`'s stdin, in order: each key and its value's JSON text.
    pub fn pairs(&self, event: &CursorEvent) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        let put = |out: &mut Vec<(String, String)>, k: &str, v: String| {
            if !out.iter().any(|(key, _)| key == k) {
                out.push((k.to_string(), v));
            }
        };
        let conversation = self.get("conversation_id").or_else(|| self.get("session_id"));
        let workspace_open = event.name == "workspaceOpen";
        if !workspace_open {
            if let Some(c) = conversation {
                put(&mut out, "conversation_id", c.to_string());
            }
            for k in ["generation_id", "model", "model_id", "model_params"] {
                if let Some(v) = self.get(k) {
                    put(&mut out, k, v.to_string());
                }
            }
        }
        put(&mut out, "hook_event_name", quoted(event.name));
        for k in ["cursor_version"] {
            if let Some(v) = self.get(k) {
                put(&mut out, k, v.to_string());
            }
        }
        let roots = self.get("workspace_roots").map(str::to_string).unwrap_or_else(|| format!("[{}]", self.cwd()));
        put(&mut out, "workspace_roots", roots);
        if let Some(v) = self.get("user_email") {
            put(&mut out, "user_email", v.to_string());
        }
        if !workspace_open {
            if let Some(v) = self.get("transcript_path") {
                put(&mut out, "transcript_path", v.to_string());
            }
            if let Some(c) = conversation {
                put(&mut out, "session_id", c.to_string());
            }
        }
        self.event_fields(event, &mut |k, v| put(&mut out, k, v));
        for (k, v) in &self.fields {
            if !CONSUMED.contains(&k.as_str()) {
                put(&mut out, k, v.clone());
            }
        }
        out
    }

    /// The seam's view: the stdin of the engine event's own Cursor event (and its fields, which
    /// `select` and `read_in` read), Cursor's variables, and a variant for each tool-specific
    /// event this fire raises (docs/envelope.md "Host tools").
    pub fn to_view(&self, event: Event, project_dir: &Path) -> View {
        let mut view = View { vars: self.env(project_dir, None), ..View::default() };
        let mut raised = super::events::of_engine(event).filter(|e| e.raised_by(self.kind()));
        if let Some(generic) = raised.next() {
            let pairs = self.pairs(generic);
            view.fields = pairs
                .iter()
                .map(|(k, raw)| (k.clone(), json::value(raw).and_then(json::Val::to_value).unwrap_or(Value::Null)))
                .collect();
            view.stdin = self.stdin(generic);
            view.variants.push(Variant {
                event: generic.name,
                stdin: String::new(),
                matcher_value: self.matcher_value(generic),
            });
        }
        for specific in raised {
            view.variants.push(Variant {
                event: specific.name,
                stdin: self.stdin(specific),
                matcher_value: self.matcher_value(specific),
            });
        }
        view
    }

    /// The envelope's `cwd`, else the engine's (raw JSON text).
    fn cwd(&self) -> String {
        self.get("cwd").map(str::to_string).unwrap_or_else(|| self.engine_cwd.clone())
    }

    /// The tool output as text: a string as given, anything else as its compact JSON text.
    fn output_text(&self, raw: &str, inner: &[&str]) -> String {
        if raw.starts_with('"') {
            return raw.to_string();
        }
        if let Some(obj) = json::value(raw).and_then(|v| v.as_object()) {
            if let Some(v) = inner.iter().find_map(|k| obj.get_by(k, |_| false)) {
                if v.kind() == json::Kind::String {
                    return v.raw().to_string();
                }
            }
        }
        let mut out = Vec::with_capacity(raw.len());
        push_compact(&mut out, raw);
        quoted(&String::from_utf8_lossy(&out))
    }

    fn event_fields(&self, event: &CursorEvent, put: &mut dyn FnMut(&str, String)) {
        let output = self.get("tool_output").or_else(|| self.get("tool_response"));
        let duration = |put: &mut dyn FnMut(&str, String)| {
            if let Some(d) = self.get("duration") {
                put("duration", d.to_string());
            }
        };
        match event.name {
            "preToolUse" | "postToolUse" | "postToolUseFailure" => {
                if let Some(t) = &self.tool {
                    put("tool_name", quoted(&t.cursor));
                    if let Some(i) = &t.input {
                        put("tool_input", i.clone());
                    }
                }
                if let Some(id) = self.get("tool_use_id") {
                    put("tool_use_id", id.to_string());
                }
                put("cwd", self.cwd());
                if event.name == "postToolUse" {
                    if let Some(o) = output {
                        put("tool_output", self.output_text(o, &[]));
                    }
                    duration(put);
                }
                if event.name == "postToolUseFailure" {
                    if let Some(e) = self.get("error_message").or_else(|| self.get("tool_error")) {
                        put("error_message", e.to_string());
                    }
                    duration(put);
                }
            }
            "beforeShellExecution" | "afterShellExecution" => {
                if let Some(c) = self.tool_field("command") {
                    put("command", c.to_string());
                }
                put("cwd", self.tool_field("cwd").map(str::to_string).unwrap_or_else(|| self.cwd()));
                put("sandbox", self.get("sandbox").unwrap_or("false").to_string());
                if event.name == "afterShellExecution" {
                    if let Some(o) = output {
                        put("output", self.output_text(o, &["output", "stdout"]));
                    }
                    duration(put);
                }
            }
            "beforeMCPExecution" | "afterMCPExecution" => {
                if let Some(t) = &self.tool {
                    put("tool_name", quoted(&self.mcp_tool().unwrap_or_else(|| t.host.clone())));
                    // Cursor passes an MCP tool's parameters as JSON text.
                    put("tool_input", quoted(t.input.as_deref().unwrap_or("{}")));
                }
                if event.name == "afterMCPExecution" {
                    if let Some(o) = output {
                        put("result_json", self.output_text(o, &[]));
                    }
                    duration(put);
                }
            }
            "beforeReadFile" | "beforeTabFileRead" => {
                if let Some(p) = self.tool_field("file_path").or_else(|| self.get("file_path")) {
                    put("file_path", p.to_string());
                }
                // The engine reads no file for a hook: the host passes `content` when it has it.
                put("content", self.get("content").unwrap_or("\"\"").to_string());
                put("attachments", self.get("attachments").unwrap_or("[]").to_string());
            }
            "afterFileEdit" => {
                if let Some(p) = self.tool_field("file_path") {
                    put("file_path", p.to_string());
                }
                let edits = match (self.kind(), self.tool_field("old_string"), self.tool_field("new_string")) {
                    (Some(Kind::Edit), old, new) => format!(
                        "[{{\"old_string\":{},\"new_string\":{}}}]",
                        old.unwrap_or("\"\""),
                        new.unwrap_or("\"\"")
                    ),
                    _ => "[]".to_string(),
                };
                put("edits", edits);
            }
            "beforeSubmitPrompt" => {
                put("attachments", self.get("attachments").unwrap_or("[]").to_string());
            }
            "stop" | "subagentStop" => {
                put("status", self.get("status").map_or_else(|| quoted("completed"), str::to_string));
                put("loop_count", self.loop_count().to_string());
            }
            _ => {}
        }
    }

    /// Cursor's environment variables for a hook (docs/dialects/cursor.md, environment), after
    /// the host's and the `env` option's.
    pub fn env(&self, project_dir: &Path, plugin_root: Option<&Path>) -> Vec<(&'static str, String)> {
        let dir = project_dir.display().to_string();
        let mut env = vec![
            ("CURSOR_PROJECT_DIR", dir.clone()),
            ("CLAUDE_PROJECT_DIR", dir),
            // Real hooks detect Cursor by it; the host's version when it sends one.
            ("CURSOR_VERSION", self.get_str("cursor_version").unwrap_or_else(|| "oh-hooks".to_string())),
        ];
        if let Some(e) = self.get_str("user_email") {
            env.push(("CURSOR_USER_EMAIL", e));
        }
        if let Some(t) = self.get_str("transcript_path") {
            env.push(("CURSOR_TRANSCRIPT_PATH", t));
        }
        if let Some(root) = plugin_root {
            env.push(("CURSOR_PLUGIN_ROOT", root.display().to_string()));
        }
        // A variable cannot hold a NUL byte; such a value is left out rather than cut.
        env.retain(|(_, v)| !v.contains('\0'));
        env
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str, event: Event) -> CursorView {
        CursorView::build(&Envelope::parse(text, event).unwrap(), Path::new("/work"), &HostTools::default())
    }

    fn ev(name: &str) -> &'static CursorEvent {
        CursorEvent::by_name(name).unwrap()
    }

    fn stdin(v: &CursorView, name: &str) -> Value {
        let line = v.stdin(ev(name));
        assert!(line.ends_with("}\n") && !line[..line.len() - 1].contains('\n'), "one line: {line}");
        serde_json::from_str(&line).unwrap()
    }

    #[test]
    fn a_shell_call_seen_by_the_generic_and_the_shell_event() {
        let v = view(
            r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf / $(reboot)","timeout":5},"sessionId":"s1","toolUseId":"t1","generationId":"g","model":"m","custom_thing":1}"#,
            Event::PreToolUse,
        );
        assert_eq!(v.kind(), Some(Kind::Shell));
        let generic = stdin(&v, "preToolUse");
        assert_eq!(
            generic,
            serde_json::json!({"conversation_id":"s1","generation_id":"g","model":"m","hook_event_name":"preToolUse",
                "workspace_roots":["/work"],"session_id":"s1","tool_name":"Shell",
                "tool_input":{"command":"rm -rf / $(reboot)","timeout":5},"tool_use_id":"t1","cwd":"/work","custom_thing":1})
        );
        let shell = stdin(&v, "beforeShellExecution");
        assert_eq!(shell["command"], "rm -rf / $(reboot)");
        assert_eq!(shell["cwd"], "/work");
        assert_eq!(shell["sandbox"], false);
        assert_eq!(shell["hook_event_name"], "beforeShellExecution");
        assert!(shell.get("tool_name").is_none());
        assert_eq!(v.matcher_value(ev("beforeShellExecution")).as_deref(), Some("rm -rf / $(reboot)"));
        assert_eq!(v.matcher_value(ev("preToolUse")).as_deref(), Some("Shell"));
        assert_eq!(v.matcher_value(ev("sessionStart")), None);
    }

    #[test]
    fn odd_values_pass_as_written() {
        let v = view(
            r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf / #\ud800","n":1e999}}"#,
            Event::PreToolUse,
        );
        let line = v.stdin(ev("preToolUse"));
        assert!(line.contains(r#""tool_input":{"command":"rm -rf / #\ud800","n":1e999}"#), "{line}");
        assert!(v.stdin(ev("beforeShellExecution")).contains(r#""command":"rm -rf / #\ud800""#));
        assert_eq!(v.command().as_deref(), Some("rm -rf / #\u{fffd}"));
    }

    #[test]
    fn tool_args_text_and_string_forms() {
        let v = view(r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"rm -rf /"}"#, Event::PreToolUse);
        assert_eq!(stdin(&v, "preToolUse")["tool_input"]["command"], "rm -rf /");
        assert_eq!(stdin(&v, "beforeShellExecution")["command"], "rm -rf /");
        let v = view(
            r#"{"event":"preToolUse","toolName":"Read","toolArgs":"{\"file_path\": \"/etc/passwd\"}"}"#,
            Event::PreToolUse,
        );
        assert_eq!(stdin(&v, "preToolUse")["tool_input"], serde_json::json!({"file_path": "/etc/passwd"}));
        let read = stdin(&v, "beforeReadFile");
        assert_eq!(read["file_path"], "/etc/passwd");
        assert_eq!(read["content"], "");
        assert_eq!(read["attachments"], serde_json::json!([]));
        let v = view(r#"{"event":"preToolUse","toolName":"my_tool","toolInput":{"x":1}}"#, Event::PreToolUse);
        assert_eq!(v.kind(), None);
        assert_eq!(stdin(&v, "preToolUse")["tool_name"], "my_tool");
    }

    #[test]
    fn mcp_edit_and_output_fields() {
        let v = view(
            r#"{"event":"postToolUse","toolName":"mcp__fs__read_text","toolInput":{"p":"a"},"toolOutput":{"ok":true},"duration":12}"#,
            Event::PostToolUse,
        );
        assert_eq!(stdin(&v, "postToolUse")["tool_name"], "MCP:read_text");
        assert_eq!(stdin(&v, "postToolUse")["tool_output"], r#"{"ok":true}"#);
        let mcp = stdin(&v, "afterMCPExecution");
        assert_eq!(mcp["tool_name"], "read_text");
        assert_eq!(mcp["tool_input"], r#"{"p":"a"}"#);
        assert_eq!(mcp["result_json"], r#"{"ok":true}"#);
        assert_eq!(mcp["duration"], 12);
        assert_eq!(v.matcher_value(ev("afterMCPExecution")).as_deref(), Some("read_text"));
        let v = view(
            r#"{"event":"postToolUse","tool_name":"Edit","tool_input":{"file_path":"a.rs","old_string":"x","new_string":"y"}}"#,
            Event::PostToolUse,
        );
        let edit = stdin(&v, "afterFileEdit");
        assert_eq!(edit["file_path"], "a.rs");
        assert_eq!(edit["edits"], serde_json::json!([{"old_string": "x", "new_string": "y"}]));
        assert_eq!(stdin(&v, "postToolUse")["tool_name"], "Write");
        let v = view(
            r#"{"event":"postToolUse","toolName":"Bash","toolInput":{"command":"ls"},"toolOutput":{"stdout":"a\nb","code":0}}"#,
            Event::PostToolUse,
        );
        assert_eq!(stdin(&v, "afterShellExecution")["output"], "a\nb");
    }

    #[test]
    fn stop_prompt_workspace_and_env() {
        let v = view(r#"{"event":"turnStop","loopCount":3,"conversationId":"c"}"#, Event::TurnStop);
        let s = stdin(&v, "stop");
        assert_eq!((s["status"].as_str(), s["loop_count"].as_u64()), (Some("completed"), Some(3)));
        assert_eq!(s["conversation_id"], "c");
        assert_eq!(v.loop_count(), 3);
        let v = view(r#"{"event":"subagentStop","status":"aborted","subagent_type":"explore"}"#, Event::SubagentStop);
        assert_eq!(v.status(), "aborted");
        assert_eq!(v.matcher_value(ev("subagentStop")).as_deref(), Some("explore"));
        let v = view(r#"{"event":"userPromptSubmit","prompt":"hi","sessionId":"s"}"#, Event::UserPromptSubmit);
        let p = stdin(&v, "beforeSubmitPrompt");
        assert_eq!((p["prompt"].as_str(), p["attachments"].clone()), (Some("hi"), serde_json::json!([])));
        let v = view(r#"{"event":"workspaceOpen","sessionId":"s","cursorVersion":"3.9"}"#, Event::WorkspaceOpen);
        let w = stdin(&v, "workspaceOpen");
        assert!(w.get("conversation_id").is_none() && w.get("session_id").is_none());
        assert_eq!(w["cursor_version"], "3.9");
        let env = v.env(Path::new("/proj"), Some(Path::new("/plug")));
        assert!(env.contains(&("CURSOR_VERSION", "3.9".to_string())));
        assert!(env.contains(&("CURSOR_PROJECT_DIR", "/proj".to_string())));
        assert!(env.contains(&("CLAUDE_PROJECT_DIR", "/proj".to_string())));
        assert!(env.contains(&("CURSOR_PLUGIN_ROOT", "/plug".to_string())));
    }
}
