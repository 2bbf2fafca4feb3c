//! Claude Code's stdin (docs/dialects/claude.md "Claude Code hooks"): the envelope as the one compact line of snake_case JSON
//! that Claude Code writes to its hooks, `hook_event_name` and all. HTTP Claude Code hooks get
//! the same JSON as their POST body.

use crate::dialect::View;
use crate::envelope::tools::{self, HostTools};
use crate::envelope::{json_in_string, to_snake, Envelope};
use crate::response::json;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::path::Path;

/// The fields every Claude Code input starts with, in Claude Code's order.
const LEADING: &[&str] = &["session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name"];

/// Claude Code's view of one envelope, built once per fire when a Claude Code hook matches:
/// compact JSON and a newline (hooks read it with `read -r`, which wants a whole line), and the
/// same as fields for matchers and `if` rules.
/// Built from the fields the engine already read, each value's text passed on as received
/// (a lone surrogate escape or `1e999` included): no second parse of the envelope can fail
/// and leave a hook without `tool_name` (docs/envelope.md "One envelope"). A known host tool (`tools`) is
/// seen under Claude Code's name and field names (docs/envelope.md "Host tools"): matchers and `if` rules
/// test those too.
pub fn build(envelope: &Envelope, cwd: &Path, host_tools: &HostTools) -> View {
    // The first spelling given wins; its alias (which follows it) is the same value.
    let mut rest: Vec<(String, Cow<str>)> = Vec::new();
    for (key, raw) in envelope.fields() {
        let snake = to_snake(key);
        if !rest.iter().any(|(k, _)| *k == snake) {
            rest.push((snake, Cow::Borrowed(raw)));
        }
    }
    let get = |rest: &[(String, Cow<str>)], key: &str| rest.iter().find(|(k, _)| k == key).map(|(_, v)| v.to_string());
    // openHarness's string forms, where Claude Code's own fields are missing.
    if get(&rest, "tool_input").is_none() {
        let from_json = ["tool_input_json", "tool_args"]
            .iter()
            .find_map(|k| get(&rest, k).and_then(|raw| json_in_string(&raw)).filter(|t| t.starts_with('{')));
        // Arguments as plain text: the main field of a tool of a known kind (`command` for Bash).
        let from_text = || {
            let tool = rest.iter().find(|(k, _)| k == "tool_name").and_then(|(_, v)| json::value(v)?.as_str())?;
            let text = get(&rest, "tool_args").filter(|t| t.starts_with('"'))?;
            tools::host_input_from_text(host_tools, &tool, &text)
        };
        if let Some(input) = from_json.or_else(from_text) {
            rest.push(("tool_input".to_string(), Cow::Owned(input)));
        }
    }
    to_claude_tool(&mut rest, host_tools);
    if get(&rest, "tool_response").is_none() {
        if let Some(output) = get(&rest, "tool_output") {
            let parsed = json_in_string(&output);
            rest.push(("tool_response".to_string(), Cow::Owned(parsed.unwrap_or(output))));
        }
    }
    if get(&rest, "error").is_none() {
        if let Some(error) = get(&rest, "tool_error").or_else(|| get(&rest, "error_message")) {
            rest.push(("error".to_string(), Cow::Owned(error)));
        }
    }
    if get(&rest, "cwd").is_none() {
        rest.push(("cwd".to_string(), Cow::Owned(Value::String(cwd.display().to_string()).to_string())));
    }
    let name = super::events::name_or_engine(envelope.event);
    rest.retain(|(k, _)| k != "hook_event_name");
    rest.push(("hook_event_name".to_string(), Cow::Owned(Value::String(name.to_string()).to_string())));
    let mut ordered: Vec<(String, Cow<str>)> = Vec::with_capacity(rest.len());
    for key in LEADING {
        if let Some(i) = rest.iter().position(|(k, _)| k == key) {
            ordered.push(rest.remove(i));
        }
    }
    ordered.extend(rest);
    let mut json = String::with_capacity(ordered.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>() + 2);
    let mut fields = Map::new();
    json.push('{');
    for (i, (key, raw)) in ordered.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&Value::String(key.clone()).to_string());
        json.push(':');
        json.push_str(raw);
        // Matchers and `if` rules read the values decoded (a lone surrogate as U+FFFD).
        let value = json::value(raw).and_then(json::Val::to_value).unwrap_or(Value::Null);
        fields.insert(key.clone(), value);
    }
    json.push_str("}\n");
    View { stdin: json, fields, vars: Vec::new(), variants: Vec::new() }
}

/// The value a matcher is tested against: the field as text (FileChanged: its file name).
pub fn matcher_value(view: &View, field: &str) -> Option<String> {
    let v = view.fields.get(field)?;
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

/// The host's tool as Claude Code names it: `tool_name` and `tool_input` (`rest`'s snake_case
/// fields, values as JSON text) renamed in place when the host's tool is a known one.
fn to_claude_tool(rest: &mut [(String, Cow<str>)], host_tools: &HostTools) {
    let Some(at) = rest.iter().position(|(k, _)| k == "tool_name") else { return };
    let Some(name) = json::value(&rest[at].1).and_then(json::Val::as_str).map(Cow::into_owned) else { return };
    let input_at = rest.iter().position(|(k, _)| k == "tool_input");
    // What changes, owned, so that the input's text is not copied when nothing does.
    let (claude_name, renamed) = {
        let (n, i) = tools::to_dialect(&tools::CLAUDE, host_tools, &name, input_at.map(|i| &*rest[i].1));
        let renamed = match i {
            Some(Cow::Owned(text)) => Some(text),
            _ => None,
        };
        ((n != name).then(|| n.into_owned()), renamed)
    };
    if let Some(claude_name) = claude_name {
        rest[at].1 = Cow::Owned(Value::String(claude_name).to_string());
    }
    if let (Some(i), Some(renamed)) = (input_at, renamed) {
        rest[i].1 = Cow::Owned(renamed);
    }
}

/// A Claude Code hook's rewrite (`updatedInput`) of the tool in `envelope`, under the host's
/// field names (docs/envelope.md "Host tools"): what the outcome carries and the later steps receive.
pub fn host_rewrite(envelope: &Envelope, host_tools: &HostTools, input: Value) -> Value {
    tools::rewrite_for_host(&tools::CLAUDE, host_tools, envelope, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Event;

    fn input(text: &str, event: Event) -> View {
        build(&Envelope::parse(text, event).unwrap(), Path::new("/work"), &HostTools::default())
    }

    #[test]
    fn snake_case_line_with_hook_event_name() {
        let i = input(
            r#"{"event":"preToolUse","toolName":"Bash","sessionId":"s1","toolInput":{"command":"ls"},"toolUseId":"t1","permissionMode":"default","customThing":1}"#,
            Event::PreToolUse,
        );
        assert_eq!(
            i.stdin,
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
        assert_eq!(matcher_value(&i, "file_path").as_deref(), Some(".envrc"));
    }
}
