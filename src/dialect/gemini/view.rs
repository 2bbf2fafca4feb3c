//! What a Gemini hook receives (docs/dialects/gemini.md): one compact JSON object on stdin,
//! as gemini-cli writes it (`JSON.stringify`, no trailing newline): `session_id`,
//! `transcript_path`, `cwd`, `hook_event_name` (Gemini's name), `timestamp`, then the event's
//! fields in snake_case with Gemini's tool names and parameter names; the variables
//! `GEMINI_PROJECT_DIR`, `GEMINI_CWD`, `CLAUDE_PROJECT_DIR`, `GEMINI_SESSION_ID`,
//! `GEMINI_PLANS_DIR`; and the command with those variables' `$NAME` replaced by their
//! shell-quoted values (gemini-cli's `expandCommand`), run by `bash -c`.
//!
//! Built from the one parsed envelope's field texts: every value reaches the hook as the host
//! wrote it (a lone surrogate escape, `1e999`), only the tool input's keys are renamed.

use super::{match_on, name_of, MatchOn};
use crate::envelope::json_in_string;
use crate::envelope::tools::{self as host_tools, HostTools, GEMINI};
use crate::envelope::{to_snake, Envelope};
use crate::event::Event;
use crate::response::json;
use serde_json::Value;
use std::path::Path;

/// The fields every Gemini input starts with, in gemini-cli's order (`createBaseInput`).
const LEADING: &[&str] = &["session_id", "transcript_path", "cwd", "hook_event_name", "timestamp"];

/// One fire's Gemini view, built once and shared by its gemini hooks (a sequential run makes
/// a changed copy per hook).
#[derive(Debug, Clone)]
pub struct GeminiView {
    pub event: Event,
    /// Snake_case fields and their JSON text, in stdin order.
    fields: Vec<(String, String)>,
    /// The host's tool as Gemini names it (tool events).
    pub tool: Option<String>,
}

impl GeminiView {
    /// The view of a stdin text this module wrote (a sequential run's next hook), each field's
    /// text kept as it is.
    pub fn from_stdin(event: Event, stdin: &str, tool: Option<String>) -> GeminiView {
        let fields = json::value(stdin)
            .and_then(json::Val::as_object)
            .map(|o| o.entries().map(|(k, v)| (k.to_string(), v.raw().to_string())).collect())
            .unwrap_or_default();
        GeminiView { event, fields, tool }
    }

    /// `now` is the ISO 8601 time for `timestamp` when the host sent none.
    /// `tools` is what the host's tools are (option `tools`, docs/envelope.md "Host tools").
    pub fn build(envelope: &Envelope, cwd: &Path, now: &str, tools: &HostTools) -> GeminiView {
        let mut rest: Vec<(String, String)> = Vec::new();
        for (key, raw) in envelope.fields() {
            let snake = to_snake(key);
            if !rest.iter().any(|(k, _)| *k == snake) {
                rest.push((snake, raw.to_string()));
            }
        }
        let get = |rest: &[(String, String)], key: &str| rest.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let mut tool = None;
        if let Some(host) = get(&rest, "tool_name").and_then(|raw| json::value(&raw)?.as_str().map(|s| s.into_owned()))
        {
            // openHarness's string forms where the tool input is missing (docs/envelope.md "Host tools").
            if get(&rest, "tool_input").is_none() {
                let from_json = ["tool_input_json", "tool_args"]
                    .iter()
                    .find_map(|k| get(&rest, k).and_then(|raw| json_in_string(&raw)).filter(|t| t.starts_with('{')));
                let from_text = || {
                    let text = get(&rest, "tool_args").filter(|t| t.starts_with('"'))?;
                    host_tools::host_input_from_text(tools, &host, &text)
                };
                if let Some(input) = from_json.or_else(from_text) {
                    rest.push(("tool_input".into(), input));
                }
            }
            // Gemini's tool name and field names (the shared tables of docs/envelope.md "Host tools").
            let input = get(&rest, "tool_input");
            let (name, renamed) = host_tools::to_dialect(&GEMINI, tools, &host, input.as_deref());
            let name = name.into_owned();
            set(&mut rest, "tool_name", Value::String(name.clone()).to_string());
            if let Some(renamed) = renamed {
                let renamed = renamed.into_owned();
                set(&mut rest, "tool_input", renamed);
            }
            // An MCP tool: its server and the server's own tool name.
            if let Some((server, tool)) = host.strip_prefix("mcp__").and_then(|r| r.split_once("__")) {
                if get(&rest, "mcp_context").is_none() && !server.is_empty() && !tool.is_empty() {
                    let ctx = serde_json::json!({"server_name": server, "tool_name": tool});
                    rest.push(("mcp_context".into(), ctx.to_string()));
                }
            }
            tool = Some(name);
        }
        if envelope.event == Event::PostToolUse && get(&rest, "tool_response").is_none() {
            // Gemini's `{llmContent, returnDisplay, error}` from openHarness's text forms.
            if let Some(output) = get(&rest, "tool_output") {
                let text =
                    if output.starts_with('"') { output.clone() } else { Value::String(output.clone()).to_string() };
                let mut r = format!("{{\"llmContent\":{text},\"returnDisplay\":{text}");
                if let Some(e) = get(&rest, "tool_error").or_else(|| get(&rest, "error")) {
                    r.push_str(&format!(",\"error\":{e}"));
                }
                r.push('}');
                rest.push(("tool_response".into(), r));
            }
        }
        if envelope.event == Event::TurnStop && get(&rest, "prompt_response").is_none() {
            if let Some(m) = get(&rest, "last_assistant_message") {
                rest.push(("prompt_response".into(), m));
            }
        }
        if get(&rest, "cwd").is_none() {
            rest.push(("cwd".into(), Value::String(cwd.display().to_string()).to_string()));
        }
        if get(&rest, "timestamp").is_none() {
            rest.push(("timestamp".into(), Value::String(now.to_string()).to_string()));
        }
        let name = name_of(envelope.event).unwrap_or(envelope.event.name());
        rest.retain(|(k, _)| k != "hook_event_name");
        rest.push(("hook_event_name".into(), Value::String(name.to_string()).to_string()));
        let mut fields = Vec::with_capacity(rest.len());
        for key in LEADING {
            if let Some(i) = rest.iter().position(|(k, _)| k == key) {
                fields.push(rest.remove(i));
            }
        }
        fields.extend(rest);
        GeminiView { event: envelope.event, fields, tool }
    }

    /// The stdin text: compact JSON, no trailing newline (gemini-cli writes `JSON.stringify`).
    pub fn stdin(&self) -> String {
        let mut s = String::with_capacity(self.fields.iter().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>() + 2);
        s.push('{');
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(&Value::String(k.clone()).to_string());
            s.push(':');
            s.push_str(v);
        }
        s.push('}');
        s
    }

    /// The JSON text of field `key`.
    pub fn raw(&self, key: &str) -> Option<&str> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The decoded string of field `key` (a lone surrogate as U+FFFD).
    pub fn text(&self, key: &str) -> Option<String> {
        json::value(self.raw(key)?)?.as_str().map(|s| s.into_owned())
    }

    /// What matchers test on this fire: the Gemini tool name on tool events, `source`,
    /// `reason` or `trigger` on SessionStart, SessionEnd and PreCompress, nothing elsewhere.
    pub fn match_value(&self) -> Option<String> {
        match match_on(self.event) {
            MatchOn::ToolName => self.tool.clone(),
            MatchOn::Exact(field) => self.text(field),
            MatchOn::Nothing => None,
        }
    }

    /// `GEMINI_PROJECT_DIR`, `GEMINI_CWD`, `CLAUDE_PROJECT_DIR` (stdin `cwd`),
    /// `GEMINI_SESSION_ID` and `GEMINI_PLANS_DIR` (the host's `plansDir`, else empty), in
    /// gemini-cli's order; the hook's own `env` goes over them.
    pub fn variables(&self) -> Vec<(&'static str, String)> {
        let cwd = self.text("cwd").unwrap_or_default();
        let plans = self.text("plans_dir").unwrap_or_default();
        let session = self.text("session_id").unwrap_or_default();
        vec![
            ("GEMINI_PROJECT_DIR", cwd.clone()),
            ("GEMINI_PLANS_DIR", plans),
            ("GEMINI_CWD", cwd.clone()),
            ("GEMINI_SESSION_ID", session),
            ("CLAUDE_PROJECT_DIR", cwd),
        ]
    }

    /// The command with the five variables' `$NAME` replaced (gemini-cli's `expandCommand`):
    /// `$GEMINI_PROJECT_DIR`, `$GEMINI_CWD`, `$GEMINI_PLANS_DIR`, `$GEMINI_SESSION_ID`,
    /// `$CLAUDE_PROJECT_DIR` (the `${NAME}` form and every other variable are left to bash).
    ///
    /// A value that needs no quoting (`/home/me/project`, a UUID) is put in as text, exactly as
    /// gemini-cli does. gemini-cli puts any other value in as shell-quoted text wherever the name
    /// stands, so a directory or session id holding `$(…)` runs as a command when the user
    /// wrote the name inside double quotes; here such a value goes in as a reference to the
    /// variable (`"${NAME}"` outside quotes, `${NAME}` inside double quotes, `'"${NAME}"'`
    /// inside single quotes), which bash expands without ever reading the value as shell text.
    /// Where a hook works in gemini-cli it works the same here; text of the envelope never runs.
    pub fn expand_command(&self, command: &str) -> String {
        const NAMES: [(&str, &str); 5] = [
            ("$GEMINI_PROJECT_DIR", "GEMINI_PROJECT_DIR"),
            ("$GEMINI_CWD", "GEMINI_CWD"),
            ("$GEMINI_PLANS_DIR", "GEMINI_PLANS_DIR"),
            ("$GEMINI_SESSION_ID", "GEMINI_SESSION_ID"),
            ("$CLAUDE_PROJECT_DIR", "CLAUDE_PROJECT_DIR"),
        ];
        if !NAMES.iter().any(|(n, _)| command.contains(n)) {
            return command.to_string();
        }
        let vars = self.variables();
        let value = |n: &str| vars.iter().find(|(k, _)| *k == n).map(|(_, s)| s.as_str()).unwrap_or("");
        let mut out = String::with_capacity(command.len() + 32);
        let mut quoting = Quoting::default();
        let mut rest = command;
        while let Some(c) = rest.chars().next() {
            // gemini-cli replaces the names anywhere, inside single quotes too.
            if let Some((name, var)) = NAMES.iter().find(|(n, _)| c == '$' && rest.starts_with(n)) {
                let v = value(var);
                out.push_str(&match (quote(v) == v, quoting.context()) {
                    (true, _) => v.to_string(),
                    (false, Context::Unquoted) => format!("\"${{{var}}}\""),
                    (false, Context::Double) => format!("${{{var}}}"),
                    (false, Context::Single) => format!("'\"${{{var}}}\"'"),
                });
                rest = &rest[name.len()..];
                continue;
            }
            let len = quoting.step(rest);
            out.push_str(&rest[..len]);
            rest = &rest[len..];
        }
        out
    }

    /// The input the next hook of a sequential run sees after a hook that exited 0 answered
    /// (`applyHookOutputToInput`): BeforeTool's `tool_input` and BeforeModel's `llm_request`
    /// merged key by key, BeforeAgent's prompt with the context appended after a blank line.
    pub fn after(&self, answer: &super::answer::GeminiAnswer) -> GeminiView {
        let mut next = self.clone();
        match self.event {
            Event::PreToolUse => {
                if let (Some(new), Some(old)) = (&answer.tool_input, self.raw("tool_input")) {
                    set(&mut next.fields, "tool_input", merge_objects(old, new));
                }
            }
            Event::BeforeModel => {
                if let (Some(new), Some(old)) = (&answer.llm_request, self.raw("llm_request")) {
                    set(&mut next.fields, "llm_request", merge_objects(old, new));
                }
            }
            Event::UserPromptSubmit => {
                if let (Some(ctx), Some(prompt)) = (&answer.context, self.text("prompt")) {
                    set(&mut next.fields, "prompt", Value::String(format!("{prompt}\n\n{ctx}")).to_string());
                }
            }
            _ => {}
        }
        next
    }
}

fn set(fields: &mut Vec<(String, String)>, key: &str, raw: String) {
    match fields.iter_mut().find(|(k, _)| k == key) {
        Some(slot) => slot.1 = raw,
        None => fields.push((key.to_string(), raw)),
    }
}

/// An object's text with its top-level keys renamed, every value's text kept as written. Not
/// an object: unchanged.
pub fn rename_keys(raw: &str, rename: impl Fn(&str) -> String) -> String {
    let Some(obj) = json::value(raw).and_then(json::Val::as_object) else {
        return raw.to_string();
    };
    let mut s = String::with_capacity(raw.len() + 16);
    s.push('{');
    for (i, (k, v)) in obj.entries().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&Value::String(rename(k)).to_string());
        s.push(':');
        s.push_str(v.raw());
    }
    s.push('}');
    s
}

/// `{...old, ...new}` on object texts, values kept as written.
fn merge_objects(old: &str, new: &Value) -> String {
    let Some(new_obj) = new.as_object() else { return old.to_string() };
    let mut entries: Vec<(String, String)> = json::value(old)
        .and_then(json::Val::as_object)
        .map(|o| o.entries().map(|(k, v)| (k.to_string(), v.raw().to_string())).collect())
        .unwrap_or_default();
    for (k, v) in new_obj {
        set(&mut entries, k, v.to_string());
    }
    let mut s = String::from("{");
    for (i, (k, v)) in entries.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&Value::String(k.clone()).to_string());
        s.push(':');
        s.push_str(v);
    }
    s.push('}');
    s
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Unquoted,
    Double,
    Single,
}

/// Where a position of a bash command stands: outside quotes, inside double quotes or inside
/// single quotes (`$(…)` and backquotes open an unquoted context again). Any misjudgment is
/// harmless: every form [`GeminiView::expand_command`] puts in only expands a variable.
#[derive(Debug, Default)]
struct Quoting {
    /// Open contexts above the outermost (unquoted) one; `(` depth for `$(`.
    stack: Vec<(Context, usize)>,
}

impl Quoting {
    fn context(&self) -> Context {
        self.stack.last().map_or(Context::Unquoted, |(c, _)| *c)
    }

    /// Consumes the next token of `rest` (at least one character) and returns its length.
    fn step(&mut self, rest: &str) -> usize {
        let c = rest.chars().next().expect("not empty");
        let len = c.len_utf8();
        match self.context() {
            Context::Single => {
                if c == '\'' {
                    self.stack.pop();
                }
                len
            }
            Context::Double => match c {
                '\\' => len + rest[len..].chars().next().map_or(0, char::len_utf8),
                '"' => {
                    self.stack.pop();
                    len
                }
                '$' if rest[1..].starts_with('(') => {
                    self.stack.push((Context::Unquoted, 1));
                    2
                }
                '`' => {
                    self.stack.push((Context::Unquoted, 0));
                    len
                }
                _ => len,
            },
            Context::Unquoted => match c {
                '\\' => len + rest[len..].chars().next().map_or(0, char::len_utf8),
                '\'' => {
                    self.stack.push((Context::Single, 0));
                    len
                }
                '"' => {
                    self.stack.push((Context::Double, 0));
                    len
                }
                '$' if rest[1..].starts_with('(') => {
                    self.stack.push((Context::Unquoted, 1));
                    2
                }
                '(' => {
                    if let Some((Context::Unquoted, depth)) = self.stack.last_mut() {
                        *depth += 1;
                    }
                    len
                }
                ')' => {
                    if let Some((Context::Unquoted, depth)) = self.stack.last_mut() {
                        *depth = depth.saturating_sub(1);
                        if *depth == 0 {
                            self.stack.pop();
                        }
                    }
                    len
                }
                '`' => {
                    match self.stack.last() {
                        Some((Context::Unquoted, 0)) => {
                            self.stack.pop();
                        }
                        _ => self.stack.push((Context::Unquoted, 0)),
                    }
                    len
                }
                _ => len,
            },
        }
    }
}

/// gemini-cli's `escapeShellArg` for bash: empty stays empty, else shell-quote's `quote`.
pub fn quote(s: &str) -> String {
    if s.is_empty() {
        return String::new();
    }
    let space = |c: char| c.is_whitespace() || c == '\u{feff}';
    if s.chars().any(|c| c == '"' || c == '\\' || space(c)) && !s.contains('\'') {
        return format!("'{s}'");
    }
    if s.chars().any(|c| c == '"' || c == '\'' || space(c)) {
        let mut out = String::from("\"");
        for c in s.chars() {
            if matches!(c, '"' | '\\' | '$' | '`' | '!') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
        return out;
    }
    // `([A-Za-z]:)?([#!"$&'()*,:;<=>?@[\\\]^`{|}])` → `$1\$2`: a drive letter before a special
    // character is kept and the character escaped; the net effect is every special escaped.
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if "#!\"$&'()*,:;<=>?@[\\]^`{|}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// ISO 8601 with milliseconds, UTC (`new Date().toISOString()`).
pub fn iso_time(since_epoch: std::time::Duration) -> String {
    let secs = since_epoch.as_secs() as i64;
    let ms = since_epoch.subsec_millis();
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(text: &str, event: Event) -> GeminiView {
        GeminiView::build(
            &Envelope::parse(text, event).unwrap(),
            Path::new("/work"),
            "2026-01-01T00:00:00.000Z",
            &HostTools::default(),
        )
    }

    #[test]
    fn stdin_in_gemini_cli_order_with_gemini_names() {
        let v = view(
            r#"{"event":"preToolUse","toolName":"Bash","sessionId":"s1","toolInput":{"command":"ls","description":"x"},"permissionMode":"default","custom":"\ud800","n":1e999}"#,
            Event::PreToolUse,
        );
        assert_eq!(
            v.stdin(),
            r#"{"session_id":"s1","cwd":"/work","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"ls","description":"x"},"permission_mode":"default","custom":"\ud800","n":1e999}"#
        );
        assert_eq!(v.match_value().as_deref(), Some("run_shell_command"));
        let v = view(
            r#"{"event":"preToolUse","toolName":"Grep","toolInput":{"pattern":"x","path":"src"}}"#,
            Event::PreToolUse,
        );
        assert_eq!(v.raw("tool_input"), Some(r#"{"pattern":"x","dir_path":"src"}"#));
        let v = view(r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"rm -rf /"}"#, Event::PreToolUse);
        assert_eq!(v.raw("tool_input"), Some(r#"{"command":"rm -rf /"}"#), "toolArgs text is the command");
        let v = view(r#"{"event":"preToolUse","toolName":"mcp__gh__issue","toolInput":{}}"#, Event::PreToolUse);
        assert_eq!(v.raw("mcp_context"), Some(r#"{"server_name":"gh","tool_name":"issue"}"#));
        assert_eq!(v.text("tool_name").as_deref(), Some("mcp_gh_issue"));
    }

    #[test]
    fn events_fields_and_matcher_values() {
        let v = view(r#"{"event":"sessionStart","source":"startup"}"#, Event::SessionStart);
        assert_eq!(v.match_value().as_deref(), Some("startup"));
        assert_eq!(v.text("hook_event_name").as_deref(), Some("SessionStart"));
        let v = view(r#"{"event":"preCompact","trigger":"auto"}"#, Event::PreCompact);
        assert_eq!(
            (v.match_value().as_deref(), v.text("hook_event_name").as_deref()),
            (Some("auto"), Some("PreCompress"))
        );
        let v = view(r#"{"event":"userPromptSubmit","prompt":"hi"}"#, Event::UserPromptSubmit);
        assert_eq!((v.match_value(), v.text("hook_event_name").as_deref()), (None, Some("BeforeAgent")));
        let v = view(
            r#"{"event":"postToolUse","toolName":"Bash","toolArgs":"ls","toolOutput":"a\nb"}"#,
            Event::PostToolUse,
        );
        assert_eq!(v.raw("tool_response"), Some(r#"{"llmContent":"a\nb","returnDisplay":"a\nb"}"#));
        let v = view(r#"{"event":"beforeModel","llmRequest":{"model":"m","messages":[]}}"#, Event::BeforeModel);
        assert_eq!(v.raw("llm_request"), Some(r#"{"model":"m","messages":[]}"#));
        assert_eq!(v.text("hook_event_name").as_deref(), Some("BeforeModel"));
    }

    #[test]
    fn variables_and_command_expansion() {
        let v = view(r#"{"event":"preToolUse","cwd":"/my dir","sessionId":"abc"}"#, Event::PreToolUse);
        assert_eq!(v.variables()[0], ("GEMINI_PROJECT_DIR", "/my dir".into()));
        assert_eq!(v.variables()[4], ("CLAUDE_PROJECT_DIR", "/my dir".into()));
        // A value that needs quoting goes in as a reference to its variable, in every context.
        assert_eq!(
            v.expand_command("$GEMINI_PROJECT_DIR/h.sh $GEMINI_SESSION_ID ${GEMINI_CWD} $GEMINI_PLANS_DIR."),
            "\"${GEMINI_PROJECT_DIR}\"/h.sh abc ${GEMINI_CWD} ."
        );
        assert_eq!(v.expand_command("cd \"$GEMINI_CWD\" && x"), "cd \"${GEMINI_CWD}\" && x");
        assert_eq!(v.expand_command("echo '$CLAUDE_PROJECT_DIR'"), "echo ''\"${CLAUDE_PROJECT_DIR}\"''");
        assert_eq!(v.expand_command("echo \"$(ls $GEMINI_CWD)\""), "echo \"$(ls \"${GEMINI_CWD}\")\"");
        // A plain value goes in as text, as gemini-cli does.
        let v = view(r#"{"event":"preToolUse","cwd":"/plain","sessionId":"abc"}"#, Event::PreToolUse);
        assert_eq!(
            v.expand_command("'$GEMINI_CWD' \"$GEMINI_CWD\" $GEMINI_CWD/x $GEMINI_CWDX"),
            "'/plain' \"/plain\" /plain/x /plainX"
        );
        assert_eq!(quote("/plain/path"), "/plain/path");
        assert_eq!(quote("it's here"), "\"it's here\"");
        assert_eq!(quote("a$b"), "a\\$b");
        assert_eq!(quote("C:x"), "C\\:x");
    }

    #[test]
    fn time() {
        assert_eq!(iso_time(std::time::Duration::from_millis(0)), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_time(std::time::Duration::from_millis(1_798_761_600_123)), "2027-01-01T00:00:00.123Z");
    }
}
