//! What a Codex hook reads on stdin (docs/dialects/codex.md "Stdin"): Claude Code's input (the
//! engine's one builder of it, from the one parsed envelope) with Codex's order — `session_id`,
//! `turn_id`, `transcript_path`, `cwd`, `hook_event_name`, `model`, `permission_mode` first — and
//! the tool under its Codex name and fields (`Bash`, `apply_patch`, `spawn_agent`). Every other
//! value's text passes through as received (a lone surrogate escape or `1e999` included, docs/envelope.md
//! "One envelope"); only a translated tool input is built anew. One line of compact JSON without
//! a trailing newline, as Codex writes it. Fields the host did not give are absent.

use super::tools as codex_tools;
use super::{matcher, name_of};
use crate::dialect::{claude, View};
use crate::envelope::tools::{self, HostTools};
use crate::envelope::Envelope;
use crate::response::json;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::path::Path;

/// Codex's leading fields, in its order (its schema structs).
const LEADING: &[&str] = &[
    "session_id",
    "turn_id",
    "agent_id",
    "agent_type",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "model",
    "permission_mode",
];

/// The Codex view of one envelope: the stdin line, its fields decoded (matchers read them), and
/// the host's tool name and, when Codex sees it in other fields, its input (a rewrite is renamed
/// back against them).
#[derive(Debug, Clone)]
pub struct CodexInput {
    pub json: String,
    pub fields: Map<String, Value>,
    pub host_tool: Option<String>,
    pub host_input: Option<Value>,
}

impl CodexInput {
    /// The engine's view of it: Codex sets no variable for every hook (plugin hooks get theirs).
    pub fn into_view(self) -> View {
        View { stdin: self.json, fields: self.fields, ..View::default() }
    }

    pub fn build(envelope: &Envelope, cwd: &Path, host: &HostTools) -> CodexInput {
        // Claude Code's input from the one parsed envelope (each value as received, its fields
        // already decoded), with the host's own tool names (Claude Code's names are the
        // engine's defaults): the Codex names come from the host's tools below.
        let mut claude = claude::view::build(envelope, cwd, &HostTools::default());
        let mut fields = std::mem::take(&mut claude.fields);
        let obj = json::object(claude.stdin.trim_end()).expect("the Claude Code input is one JSON object");
        let mut entries: Vec<(&str, Cow<str>)> = obj.entries().map(|(k, v)| (k, Cow::Borrowed(v.raw()))).collect();
        let host_tool = fields.get("tool_name").and_then(Value::as_str).map(str::to_string);
        let mut host_input = None;
        if let Some(tool) = &host_tool {
            // Arguments as text, of a tool only option `tools` names: its main field.
            if !fields.contains_key("tool_input") {
                let text = entries.iter().find(|(k, _)| *k == "tool_args").map(|(_, v)| v.to_string());
                let input =
                    text.filter(|t| t.starts_with('"')).and_then(|t| tools::host_input_from_text(host, tool, &t));
                if let Some(input) = input.and_then(|i| serde_json::from_str(&i).ok()) {
                    set(&mut entries, &mut fields, "tool_input", input);
                }
            }
            let (name, input) = codex_tools::to_codex(host, tool, fields.get("tool_input"));
            if name != *tool {
                set(&mut entries, &mut fields, "tool_name", Value::String(name));
            }
            if let Some(input) = input {
                host_input = fields.get("tool_input").cloned();
                set(&mut entries, &mut fields, "tool_input", input);
            }
        }
        if let Some(name) = name_of(envelope.event) {
            set(&mut entries, &mut fields, "hook_event_name", Value::String(name.to_string()));
        }
        let mut ordered = Vec::with_capacity(entries.len());
        for key in LEADING {
            if let Some(i) = entries.iter().position(|(k, _)| k == key) {
                ordered.push(entries.remove(i));
            }
        }
        ordered.extend(entries);
        let mut line = String::with_capacity(ordered.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>() + 2);
        line.push('{');
        for (i, (key, raw)) in ordered.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            line.push_str(&Value::String(key.to_string()).to_string());
            line.push(':');
            line.push_str(raw);
        }
        line.push('}');
        CodexInput { json: line, fields, host_tool, host_input }
    }

    /// The values a matcher of this event is tested against: the field, and for a tool its
    /// Codex aliases (`apply_patch` is also `Write` and `Edit`). Empty when the envelope lacks it.
    pub fn matcher_values(&self, event: crate::event::Event) -> Vec<&str> {
        let Some(field) = matcher::matcher_field(event) else { return Vec::new() };
        let Some(value) = self.fields.get(field).and_then(Value::as_str) else { return Vec::new() };
        let mut values = vec![value];
        if field == "tool_name" {
            values.extend(matcher::aliases(value));
        }
        values
    }
}

/// A field Codex names or shapes differently: its text on the stdin line and its value.
fn set<'a>(entries: &mut Vec<(&'a str, Cow<'a, str>)>, fields: &mut Map<String, Value>, key: &'a str, value: Value) {
    let raw = Cow::Owned(value.to_string());
    match entries.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = raw,
        None => entries.push((key, raw)),
    }
    fields.insert(key.to_string(), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn input(text: &str, event: Event) -> CodexInput {
        CodexInput::build(&Envelope::parse(text, event).unwrap(), Path::new("/work"), &HostTools::default())
    }

    #[test]
    fn codex_order_and_own_fields() {
        let i = input(
            r#"{"event":"preToolUse","toolName":"Bash","sessionId":"s1","toolInput":{"command":"ls"},"toolUseId":"t1","permissionMode":"default","turnId":"u1","model":"gpt-5","odd":"\ud800","big":1e999}"#,
            Event::PreToolUse,
        );
        assert_eq!(
            i.json,
            r#"{"session_id":"s1","turn_id":"u1","cwd":"/work","hook_event_name":"PreToolUse","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1","odd":"\ud800","big":1e999}"#
        );
        assert_eq!(i.matcher_values(Event::PreToolUse), ["Bash"]);
        let i = input(r#"{"event":"turnStop","stopHookActive":true}"#, Event::TurnStop);
        assert_eq!(i.fields["hook_event_name"], "Stop");
        assert!(i.matcher_values(Event::TurnStop).is_empty(), "Stop has no matcher");
        let i = input(r#"{"event":"sessionStart","source":"resume"}"#, Event::SessionStart);
        assert_eq!(i.matcher_values(Event::SessionStart), ["resume"]);
    }

    #[test]
    fn tools_under_codex_names() {
        let i = input(
            r#"{"event":"preToolUse","tool_name":"Write","tool_input":{"file_path":"a","content":"x\n"}}"#,
            Event::PreToolUse,
        );
        assert_eq!(i.fields["tool_name"], "apply_patch");
        assert_eq!(i.fields["tool_input"]["command"], "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch");
        assert_eq!(i.matcher_values(Event::PreToolUse), ["apply_patch", "Write", "Edit"]);
        assert_eq!(i.host_tool.as_deref(), Some("Write"));
        // openHarness's text form reaches a Codex Bash guard as `tool_input.command`.
        let i = input(r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"rm -rf /"}"#, Event::PreToolUse);
        assert_eq!(i.fields["tool_input"]["command"], "rm -rf /");
        let i = input(r#"{"event":"preToolUse","toolName":"Task","toolInput":{"prompt":"go"}}"#, Event::PreToolUse);
        assert_eq!(
            (&i.fields["tool_name"], &i.fields["tool_input"]["message"]),
            (&Value::from("spawn_agent"), &Value::from("go"))
        );
        assert_eq!(i.matcher_values(Event::PreToolUse), ["spawn_agent", "Agent"]);
    }
}
