//! What a Copilot hook receives (docs/dialects/copilot.md, stdin): one line of compact JSON,
//! chosen by the case of the event name the hook is written under, and the values its matcher
//! tests. Built from the one parsed envelope's fields, each value's text passed on as received
//! (a lone surrogate escape or `1e999` included): never a second parse of the envelope.
//!
//! - camelCase (`preToolUse`): `sessionId`, `timestamp` (epoch milliseconds), `cwd`, then the
//!   event's fields in camelCase: `toolName` under Copilot's runtime name (`bash`, `view`,
//!   `create`, `edit`, …) and `toolArgs` as a JSON object with Copilot's field names (`path`,
//!   `file_text`, `old_str`, `new_str`). `notification`'s fields are snake_case, as Copilot's.
//! - PascalCase (`PreToolUse`, VS Code's names): `hook_event_name`, `session_id`, `timestamp` (an
//!   ISO 8601 string), `cwd`, then the event's fields in snake_case: `tool_name` under the
//!   PascalCase name (`Bash`, `Read`, `Write`, `Edit`, `Agent`), `tool_input` with Copilot's
//!   field names; no `permission_mode`, `tool_use_id`, or `transcript_path` on tool events.

use super::{name_of, Mode};
use crate::envelope::json_in_string;
use crate::envelope::tools::{self as host_tools, HostTools, Table, COPILOT, COPILOT_PASCAL};
use crate::envelope::{push_compact, to_camel, to_snake, Envelope};
use crate::event::Event;
use crate::response::json;
use serde_json::Value;
use std::borrow::Cow;
use std::path::Path;

/// One mode's view of one envelope, built once per fire when a hook of that mode matches.
#[derive(Debug, Clone)]
pub struct CopilotView {
    pub mode: Mode,
    /// Compact JSON and a newline: the hook's stdin (and an HTTP hook's body, without the newline).
    pub json: String,
    /// The tool's name in this mode (`bash`; `Bash`), when the envelope names a tool.
    pub tool: Option<String>,
    /// The event's matcher value (agent name, trigger, notification type) for events whose
    /// matcher does not test the tool.
    other: Option<String>,
}

/// Envelope fields no Copilot payload has.
const DROPPED: &[&str] = &["event", "dialect", "permissionMode", "toolUseId", "hookEventName"];

impl CopilotView {
    /// `now_ms`: the time of the fire (milliseconds since the epoch), for `timestamp` when the
    /// host gave none.
    pub fn build(envelope: &Envelope, mode: Mode, cwd: &Path, now_ms: u64, tools: &HostTools) -> CopilotView {
        let table: &Table = match mode {
            Mode::Camel => &COPILOT,
            Mode::Pascal => &COPILOT_PASCAL,
        };
        let event = envelope.event;
        // camelCase keys, the first spelling given winning (its alias is the same value).
        let mut rest: Vec<(String, Cow<str>)> = Vec::new();
        for (key, raw) in envelope.fields() {
            let camel = if key.contains('_') { to_camel(key) } else { key.to_string() };
            if !rest.iter().any(|(k, _)| *k == camel) {
                rest.push((camel, Cow::Borrowed(raw)));
            }
        }
        let take = |rest: &mut Vec<(String, Cow<'_, str>)>, key: &str| {
            rest.iter().position(|(k, _)| k == key).map(|i| rest.remove(i).1.into_owned())
        };
        let tool_name =
            rest.iter().find(|(k, _)| k == "toolName").and_then(|(_, v)| json::value(v)?.as_str().map(Cow::into_owned));
        // The tool's input: `toolInput`, else JSON in `toolInputJson` or `toolArgs`, else the
        // arguments as text filling the host's main field of a tool of a known kind; a text that
        // is none of these stays a string, as Copilot passes it.
        let input = take(&mut rest, "toolInput");
        let input_json = take(&mut rest, "toolInputJson");
        let args = take(&mut rest, "toolArgs");
        let input = input
            .or_else(|| input_json.as_deref().and_then(json_in_string).filter(|t| t.starts_with('{')))
            .or_else(|| args.as_deref().and_then(json_in_string).filter(|t| t.starts_with('{')))
            .or_else(|| {
                let text = args.as_deref().filter(|t| t.starts_with('"'))?;
                host_tools::host_input_from_text(tools, tool_name.as_deref()?, text)
            })
            .or(args);
        // Copilot's name and field names for the host's tool (docs/envelope.md "Host tools").
        let (tool, input) = match tool_name.as_deref() {
            Some(name) => {
                let (named, renamed) = host_tools::to_dialect(table, tools, name, input.as_deref());
                (Some(named.into_owned()), renamed.map(|r| r.into_owned()))
            }
            None => (None, input),
        };
        rest.retain(|(k, _)| !DROPPED.contains(&k.as_str()) && k != "toolName");
        if mode == Mode::Pascal && is_tool_event(event) {
            rest.retain(|(k, _)| k != "transcriptPath");
        }
        let output = take(&mut rest, "toolOutput");
        let error = take(&mut rest, "toolError").or_else(|| take(&mut rest, "errorMessage"));
        let session = take(&mut rest, "sessionId");
        let timestamp = take(&mut rest, "timestamp");
        let cwd_given = take(&mut rest, "cwd");
        let other = matcher_field(event).and_then(|f| {
            rest.iter().find(|(k, _)| k == f).and_then(|(_, v)| json::value(v)?.as_str().map(Cow::into_owned))
        });

        let snake = mode == Mode::Pascal || event == Event::Notification;
        let key = |k: &str| if snake { to_snake(k) } else { k.to_string() };
        let mut out: Vec<(String, Cow<str>)> = Vec::with_capacity(rest.len() + 8);
        let string = |s: &str| Cow::Owned(Value::String(s.to_string()).to_string());
        if mode == Mode::Pascal {
            let name = name_of(event, Mode::Pascal).unwrap_or(event.name());
            out.push(("hook_event_name".into(), string(name)));
        }
        if let Some(s) = session {
            out.push((key("sessionId"), Cow::Owned(s)));
        }
        out.push((
            "timestamp".into(),
            Cow::Owned(timestamp.unwrap_or_else(|| match mode {
                Mode::Camel => now_ms.to_string(),
                Mode::Pascal => Value::String(iso8601(now_ms)).to_string(),
            })),
        ));
        out.push((
            "cwd".into(),
            Cow::Owned(cwd_given.unwrap_or_else(|| Value::String(cwd.display().to_string()).to_string())),
        ));
        if event == Event::Notification && mode == Mode::Camel {
            out.push(("hook_event_name".into(), string("notification")));
        }
        if let Some(name) = &tool {
            out.push((key("toolName"), string(name)));
        }
        if let Some(input) = input {
            out.push((if mode == Mode::Pascal { "tool_input".into() } else { "toolArgs".into() }, Cow::Owned(input)));
        }
        if let Some(output) = output {
            let result = match mode {
                Mode::Camel => format!(r#"{{"resultType":"success","textResultForLlm":{output}}}"#),
                Mode::Pascal => format!(r#"{{"result_type":"success","text_result_for_llm":{output}}}"#),
            };
            out.push((key("toolResult"), Cow::Owned(result)));
        }
        if let Some(error) = error {
            out.push(("error".into(), Cow::Owned(error)));
        }
        for (k, v) in rest {
            // Copilot writes `stop_hook_active` in snake_case in both payloads.
            let k = if k == "stopHookActive" { "stop_hook_active".to_string() } else { key(&k) };
            if !out.iter().any(|(o, _)| *o == k) {
                out.push((k, v));
            }
        }
        let mut text = Vec::with_capacity(out.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>() + 2);
        text.push(b'{');
        for (i, (k, v)) in out.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            serde_json::to_writer(&mut text, k).expect("writing to a Vec cannot fail");
            text.push(b':');
            push_compact(&mut text, v);
        }
        text.extend_from_slice(b"}\n");
        let json = String::from_utf8(text).expect("JSON text from UTF-8 parts is UTF-8");
        CopilotView { mode, json, tool, other }
    }

    /// The values a hook's matcher is tested against on `event` (any one matching runs it):
    /// the tool's runtime name (camelCase) or its PascalCase and runtime names (PascalCase); the
    /// agent name, trigger or notification type on the other events with matchers.
    pub fn matcher_values(&self, event: Event) -> Vec<&str> {
        if is_tool_event(event) {
            return vec![self.tool.as_deref().unwrap_or("")];
        }
        vec![self.other.as_deref().unwrap_or("")]
    }
}

pub(crate) fn is_tool_event(event: Event) -> bool {
    matches!(event, Event::PreToolUse | Event::PostToolUse | Event::PostToolUseFailure | Event::PermissionRequest)
}

/// The envelope field (camelCase) a non-tool event's matcher tests.
fn matcher_field(event: Event) -> Option<&'static str> {
    match event {
        Event::SubagentStart => Some("agentName"),
        Event::PreCompact => Some("trigger"),
        Event::Notification => Some("notificationType"),
        _ => None,
    }
}

/// `2026-09-09T12:34:56.789Z` for milliseconds since the epoch (UTC).
pub fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, ms % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str, event: Event, mode: Mode) -> CopilotView {
        CopilotView::build(
            &Envelope::parse(text, event).unwrap(),
            mode,
            Path::new("/work"),
            1_757_421_296_789,
            &HostTools::default(),
        )
    }

    #[test]
    fn camel_case_payload() {
        let v = view(
            r#"{"event":"preToolUse","toolName":"Bash","sessionId":"s1","toolInput":{"command":"ls","description":"x"},"toolUseId":"t1","permissionMode":"default","customThing":1}"#,
            Event::PreToolUse,
            Mode::Camel,
        );
        assert_eq!(
            v.json,
            "{\"sessionId\":\"s1\",\"timestamp\":1757421296789,\"cwd\":\"/work\",\"toolName\":\"bash\",\"toolArgs\":{\"command\":\"ls\",\"description\":\"x\"},\"customThing\":1}\n"
        );
        assert_eq!(v.matcher_values(Event::PreToolUse), ["bash"]);
    }

    #[test]
    fn pascal_case_payload_keeps_copilot_fields() {
        let v = view(
            r#"{"event":"preToolUse","tool_name":"Edit","session_id":"s1","tool_input":{"file_path":"/a","old_string":"x","new_string":"y"},"tool_use_id":"t1","transcript_path":"/t"}"#,
            Event::PreToolUse,
            Mode::Pascal,
        );
        assert_eq!(
            v.json,
            "{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"s1\",\"timestamp\":\"2025-09-09T12:34:56.789Z\",\"cwd\":\"/work\",\"tool_name\":\"Edit\",\"tool_input\":{\"path\":\"/a\",\"old_str\":\"x\",\"new_str\":\"y\"}}\n"
        );
        assert_eq!(v.matcher_values(Event::PreToolUse), ["Edit"]);
        let v = view(
            r#"{"event":"preToolUse","toolName":"Task","toolInput":{"prompt":"go"}}"#,
            Event::PreToolUse,
            Mode::Pascal,
        );
        assert!(v.json.contains(r#""tool_name":"Agent""#));
        assert_eq!(v.matcher_values(Event::PreToolUse), ["Agent"]);
    }

    #[test]
    fn tool_args_as_text_and_as_json_text() {
        let v =
            view(r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"rm -rf /"}"#, Event::PreToolUse, Mode::Camel);
        assert!(v.json.contains(r#""toolArgs":{"command":"rm -rf /"}"#), "{}", v.json);
        let v = view(
            r#"{"event":"preToolUse","toolName":"Write","toolArgs":"{\"file_path\":\"/a\",\"content\":\"c\"}"}"#,
            Event::PreToolUse,
            Mode::Camel,
        );
        assert!(v.json.contains(r#""toolName":"create","toolArgs":{"path":"/a","file_text":"c"}"#), "{}", v.json);
        let v = view(
            r#"{"event":"preToolUse","toolName":"apply_patch","toolArgs":"*** Begin Patch"}"#,
            Event::PreToolUse,
            Mode::Camel,
        );
        assert!(v.json.contains(r#""toolArgs":"*** Begin Patch""#), "a text that is not JSON stays a string");
    }

    #[test]
    fn the_envelope_passes_as_written() {
        let v = view(
            r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"rm -rf / #\ud800","n":1e999}}"#,
            Event::PreToolUse,
            Mode::Camel,
        );
        assert!(v.json.contains(r#""toolArgs":{"command":"rm -rf / #\ud800","n":1e999}"#), "{}", v.json);
    }

    #[test]
    fn other_events() {
        let v = view(
            r#"{"event":"postToolUse","toolName":"Bash","toolInput":{"command":"ls"},"toolOutput":"a b"}"#,
            Event::PostToolUse,
            Mode::Camel,
        );
        assert!(v.json.contains(r#""toolResult":{"resultType":"success","textResultForLlm":"a b"}"#), "{}", v.json);
        let v =
            view(r#"{"event":"turnStop","stopHookActive":true,"transcriptPath":"/t"}"#, Event::TurnStop, Mode::Camel);
        assert!(v.json.contains(r#""stop_hook_active":true"#) && v.json.contains(r#""transcriptPath":"/t""#));
        let v = view(r#"{"event":"turnStop","stop_hook_active":true}"#, Event::TurnStop, Mode::Pascal);
        assert!(v.json.starts_with(r#"{"hook_event_name":"Stop","#) && v.json.contains(r#""stop_hook_active":true"#));
        let v = view(
            r#"{"event":"notification","notificationType":"idle","message":"m"}"#,
            Event::Notification,
            Mode::Camel,
        );
        assert!(
            v.json.contains(r#""hook_event_name":"notification""#) && v.json.contains(r#""notification_type":"idle""#)
        );
        assert_eq!(v.matcher_values(Event::Notification), ["idle"]);
        let v =
            view(r#"{"event":"userPromptSubmit","prompt":"hi","cwd":"/else"}"#, Event::UserPromptSubmit, Mode::Camel);
        assert!(v.json.contains(r#""cwd":"/else","prompt":"hi""#), "{}", v.json);
    }

    #[test]
    fn rewrites_go_back_to_the_host_fields_and_iso_dates() {
        let back = host_tools::from_dialect(
            &COPILOT,
            &HostTools::default(),
            "Write",
            serde_json::json!({"path": "/b", "file_text": "new"}),
        );
        assert_eq!(back, serde_json::json!({"file_path": "/b", "content": "new"}));
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
