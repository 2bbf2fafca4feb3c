//! Claude Code's stdin (CONTRACT §8): the envelope as the one compact line of snake_case JSON
//! that Claude Code writes to its hooks, `hook_event_name` and all. HTTP Claude Code hooks get
//! the same JSON as their POST body.

use super::{to_snake, Envelope};
use serde_json::{Map, Value};
use std::path::Path;

/// The fields every Claude Code input starts with, in Claude Code's order.
const LEADING: &[&str] = &["session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name"];

/// Claude Code's view of one envelope, built once per fire when a Claude Code hook matches.
#[derive(Debug, Clone)]
pub struct ClaudeInput {
    /// Compact JSON and a newline (hooks read it with `read -r`, which wants a whole line).
    pub json: String,
    /// The same, as fields: matchers and `if` rules read them.
    pub fields: Map<String, Value>,
}

impl ClaudeInput {
    pub fn build(envelope: &Envelope, cwd: &Path) -> ClaudeInput {
        let given: Map<String, Value> = serde_json::from_str(&envelope.json).unwrap_or_default();
        let mut rest = Map::new();
        for (key, value) in given {
            if key == "event" {
                continue;
            }
            // The first spelling given wins; its alias (which follows it) is the same value.
            rest.entry(to_snake(&key)).or_insert(value);
        }
        // openHarness's string forms, where Claude Code's own fields are missing.
        if !rest.contains_key("tool_input") {
            let parsed = ["tool_input_json", "tool_args"].iter().find_map(|k| {
                rest.get(*k)
                    .and_then(Value::as_str)
                    .and_then(|s| serde_json::from_str::<Value>(s).ok())
                    .filter(Value::is_object)
            });
            if let Some(input) = parsed {
                rest.insert("tool_input".to_string(), input);
            }
        }
        if !rest.contains_key("tool_response") {
            if let Some(output) = rest.get("tool_output").cloned() {
                let parsed = output.as_str().and_then(|s| serde_json::from_str::<Value>(s).ok());
                rest.insert("tool_response".to_string(), parsed.unwrap_or(output));
            }
        }
        if !rest.contains_key("error") {
            if let Some(error) = rest.get("tool_error").or_else(|| rest.get("error_message")).cloned() {
                rest.insert("error".to_string(), error);
            }
        }
        rest.entry("cwd".to_string()).or_insert_with(|| Value::String(cwd.display().to_string()));
        let name = envelope.event.claude_name().unwrap_or(envelope.event.name());
        rest.insert("hook_event_name".to_string(), Value::String(name.to_string()));
        let mut fields = Map::new();
        for key in LEADING {
            if let Some(v) = rest.shift_remove(*key) {
                fields.insert(key.to_string(), v);
            }
        }
        fields.extend(rest);
        let mut json = serde_json::to_string(&fields).unwrap_or_else(|_| "{}".to_string());
        json.push('\n');
        ClaudeInput { json, fields }
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    /// The value a matcher is tested against: the field as text (FileChanged: its file name).
    pub fn matcher_value(&self, field: &str) -> Option<String> {
        let v = self.fields.get(field)?;
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(_) | Value::Bool(_) => v.to_string(),
            _ => return None,
        };
        if field == "file_path" {
            return Some(text.rsplit('/').next().unwrap_or(&text).to_string());
        }
        Some(text)
    }

    pub fn tool_input(&self) -> Option<&Map<String, Value>> {
        self.fields.get("tool_input").and_then(Value::as_object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn input(text: &str, event: Event) -> ClaudeInput {
        ClaudeInput::build(&Envelope::parse(text, event).unwrap(), Path::new("/work"))
    }

    #[test]
    fn snake_case_line_with_hook_event_name() {
        let i = input(
            r#"{"event":"preToolUse","toolName":"Bash","sessionId":"s1","toolInput":{"command":"ls"},"toolUseId":"t1","permissionMode":"default","customThing":1}"#,
            Event::PreToolUse,
        );
        assert_eq!(
            i.json,
            "{\"session_id\":\"s1\",\"cwd\":\"/work\",\"permission_mode\":\"default\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"},\"tool_use_id\":\"t1\",\"custom_thing\":1}\n"
        );
        assert_eq!(i.tool_input().unwrap()["command"], "ls");
    }

    #[test]
    fn openharness_string_forms_become_objects() {
        let i = input(
            r#"{"event":"postToolUse","tool_name":"Bash","toolArgs":"{\"command\":\"ls\"}","toolOutput":"done","cwd":"/elsewhere"}"#,
            Event::PostToolUse,
        );
        assert_eq!(i.fields["tool_input"]["command"], "ls");
        assert_eq!(i.fields["tool_response"], "done");
        assert_eq!(i.fields["cwd"], "/elsewhere", "the host's cwd wins");
        assert_eq!(i.fields["hook_event_name"], "PostToolUse");
        let i = input(r#"{"event":"turnStop","stop_hook_active":true}"#, Event::TurnStop);
        assert_eq!(i.fields["hook_event_name"], "Stop");
        assert_eq!(i.fields["stop_hook_active"], true);
        let i = input(r#"{"event":"fileChanged","filePath":"/a/b/.envrc"}"#, Event::FileChanged);
        assert_eq!(i.matcher_value("file_path").as_deref(), Some(".envrc"));
    }
}
