//! Reading one Gemini hook's answer as gemini-cli's code reads it (`hookRunner.ts`
//! `executeCommandHook`, `convertPlainTextToHookOutput`; `types.ts`), which differs from its
//! docs:
//! - the text read is stdout, trimmed, or stderr when stdout has none;
//! - text that is JSON is the answer whatever the exit code (a JSON string holding JSON is read
//!   once more); JSON that is not an object is no answer;
//! - other text: exit 0 → `systemMessage`; exit 1 → `systemMessage: "Warning: …"` (the action
//!   proceeds); any other exit → a deny with the text as its reason;
//! - no text, a timeout or a hook that could not start: no answer, the action proceeds.
//!
//! Through the one tolerant reader (docs/envelope.md "Reading answers"): whatever the bytes, an answer
//! gemini-cli would read as a deny is read as a deny. Where the tolerant reader accepts text
//! gemini-cli's `JSON.parse` refuses (`NaN`, raw control characters), both readings are taken
//! and a deny in either one counts.

use super::can_block;
use crate::event::Event;
use crate::response::json::{self, Kind, Obj, Val};
use serde_json::Value;

/// What happened when the hook ran.
#[derive(Debug, Default, Clone, Copy)]
pub struct GeminiRaw<'a> {
    /// The exit code; `None` when the process was killed (gemini-cli reads that as 0).
    pub exit: Option<i32>,
    /// Timed out, or could not start: no answer at all.
    pub failed: Option<&'a str>,
    pub stdout: &'a [u8],
    pub stderr: &'a [u8],
    /// The answer was larger than `maxOutputBytes` and was not read.
    pub overflow: bool,
    /// Names the hook in a reason.
    pub name: &'a str,
}

/// `decision`, as gemini-cli tests it (`isBlockingDecision`, `isAskDecision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Word {
    /// `deny` or `block`.
    Block,
    Ask,
    /// `allow`, `approve`, or anything else (`DENY` included): no decision.
    Other,
}

/// One hook's answer: each key present or not, as gemini-cli's merges need to know.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GeminiAnswer {
    /// The hook produced an output (an object, or text turned into one).
    pub output: bool,
    pub decision: Option<Word>,
    /// `reason`, `stopReason`, `systemMessage`: `Some(None)` when present but not a string.
    pub reason: Option<Option<String>>,
    pub stop_reason: Option<Option<String>>,
    pub system_message: Option<Option<String>>,
    /// `continue`: `Some(false)` stops the agent.
    pub cont: Option<bool>,
    pub suppress_output: bool,
    /// `hookSpecificOutput.additionalContext` (a string).
    pub context: Option<String>,
    /// `hookSpecificOutput.tool_input` as given (a later one replaces it whole, whatever it is).
    pub tool_input: Option<Value>,
    pub llm_request: Option<Value>,
    pub llm_response: Option<Value>,
    pub tool_config: Option<Value>,
    pub tail_tool_call: Option<Value>,
    pub clear_context: bool,
    /// Exited 0 (a sequential run passes only such a hook's rewrite on).
    pub success: bool,
    /// The answer could not be read because it was too large: it denies where the hook can
    /// refuse, whatever later hooks say (docs/envelope.md "Size never decides").
    pub overflow_deny: Option<String>,
    /// Why this hook's failure let the action through (trace `failure`).
    pub failure: Option<String>,
}

impl GeminiAnswer {
    pub fn blocks(&self) -> bool {
        self.decision == Some(Word::Block) || self.overflow_deny.is_some()
    }

    /// The trace's `result`.
    pub fn label(&self) -> &'static str {
        match self.decision {
            _ if self.blocks() => "deny",
            Some(Word::Ask) => "ask",
            _ => "none",
        }
    }
}

pub fn read(event: Event, raw: &GeminiRaw) -> GeminiAnswer {
    if let Some(why) = raw.failed {
        return GeminiAnswer { failure: Some(why.to_string()), ..GeminiAnswer::default() };
    }
    if raw.overflow {
        let why = "its answer is larger than maxOutputBytes".to_string();
        let mut a = GeminiAnswer { failure: Some(why.clone()), ..GeminiAnswer::default() };
        if can_block(event) {
            a.overflow_deny = Some(format!("Gemini hook `{}`: {why}; it was not read, so it denies", raw.name));
        }
        return a;
    }
    let code = raw.exit.unwrap_or(0);
    let success = code == 0;
    let stdout = json::text(raw.stdout);
    let stderr = json::text(raw.stderr);
    let text = match trim(&stdout) {
        "" => trim(&stderr),
        t => t,
    };
    if text.is_empty() {
        let failure = (!success).then(|| format!("exit {code} with no output: no answer"));
        return GeminiAnswer { success, failure, ..GeminiAnswer::default() };
    }
    let mut answer = match json_answer(event, text) {
        Parsed::Object(a) => {
            // Text JSON.parse would refuse is also read as text: a deny either way counts.
            if !strict_json(text) {
                let plain = plain(text, code);
                if plain.blocks() && !a.blocks() {
                    plain
                } else {
                    *a
                }
            } else {
                *a
            }
        }
        Parsed::NoAnswer => GeminiAnswer::default(),
        Parsed::NotJson => plain(text, code),
    };
    answer.success = success;
    if !success && !answer.blocks() && code != 1 {
        answer.failure.get_or_insert_with(|| format!("exit {code}"));
    } else if code == 1 && !answer.blocks() {
        answer.failure.get_or_insert_with(|| "exit 1: a warning, the action proceeds".into());
    }
    answer
}

/// JavaScript's `trim` (whitespace, line terminators and the byte-order mark).
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

enum Parsed {
    Object(Box<GeminiAnswer>),
    NoAnswer,
    NotJson,
}

fn json_answer(event: Event, text: &str) -> Parsed {
    let Some(v) = json::value(text) else { return Parsed::NotJson };
    let decoded;
    let v = if v.kind() == Kind::String {
        // `if (typeof parsed === 'string') parsed = JSON.parse(parsed)`; a failure there is
        // caught like any other and the original text is read as plain text.
        decoded = v.as_str().expect("a string").into_owned();
        match json::value(&decoded) {
            Some(inner) => inner,
            None => return Parsed::NotJson,
        }
    } else {
        v
    };
    match v.kind() {
        Kind::Object => Parsed::Object(Box::new(keys(event, &v.as_object().expect("an object")))),
        // An array is an object to JavaScript: an output with no keys.
        Kind::Array => Parsed::Object(Box::new(GeminiAnswer { output: true, ..GeminiAnswer::default() })),
        _ => Parsed::NoAnswer,
    }
}

fn strict_json(text: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

fn plain(text: &str, code: i32) -> GeminiAnswer {
    let mut a = GeminiAnswer { output: true, ..GeminiAnswer::default() };
    match code {
        0 => {
            a.decision = Some(Word::Other);
            a.system_message = Some(Some(text.to_string()));
        }
        1 => {
            a.decision = Some(Word::Other);
            a.system_message = Some(Some(format!("Warning: {text}")));
        }
        _ => {
            a.decision = Some(Word::Block);
            a.reason = Some(Some(text.to_string()));
        }
    }
    a
}

fn string_of(v: Val) -> Option<String> {
    v.as_str().map(|s| s.into_owned())
}

/// The keys of a JSON answer (case-sensitive; unknown keys ignored).
fn keys(event: Event, obj: &Obj) -> GeminiAnswer {
    let mut a = GeminiAnswer { output: true, ..GeminiAnswer::default() };
    // A repeated `decision` keeps a deny over a later value (docs/envelope.md "Reading answers").
    a.decision = obj.get_by("decision", |v| v.is("deny") || v.is("block")).map(|v| {
        if v.is("deny") || v.is("block") {
            Word::Block
        } else if v.is("ask") {
            Word::Ask
        } else {
            Word::Other
        }
    });
    a.reason = obj.get("reason").map(string_of);
    a.stop_reason = obj.get("stopReason").map(string_of);
    a.system_message = obj.get("systemMessage").map(string_of);
    // `continue: false` is the only value that stops; anything else present means go on.
    a.cont = obj.get_by("continue", |v| v.as_bool() == Some(false)).map(|v| v.as_bool() != Some(false));
    a.suppress_output = obj.get("suppressOutput").and_then(Val::as_bool) == Some(true);
    let Some(specific) = obj.get("hookSpecificOutput").and_then(Val::as_object) else { return a };
    let built = |key: &str| specific.get(key).and_then(Val::to_value);
    if matches!(event, Event::SessionStart | Event::UserPromptSubmit | Event::PostToolUse) {
        a.context = specific.get("additionalContext").and_then(|v| v.as_str().map(|s| s.into_owned()));
    }
    match event {
        Event::PreToolUse => a.tool_input = built("tool_input"),
        Event::PostToolUse => a.tail_tool_call = built("tailToolCallRequest"),
        Event::TurnStop => a.clear_context = specific.get("clearContext").and_then(Val::as_bool) == Some(true),
        Event::BeforeModel => {
            a.llm_request = built("llm_request");
            a.llm_response = built("llm_response");
        }
        Event::AfterModel => a.llm_response = built("llm_response"),
        Event::BeforeToolSelection => a.tool_config = built("toolConfig"),
        _ => {}
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(exit: i32, stdout: &str, stderr: &str) -> GeminiAnswer {
        read(
            Event::PreToolUse,
            &GeminiRaw {
                exit: Some(exit),
                stdout: stdout.as_bytes(),
                stderr: stderr.as_bytes(),
                name: "h",
                ..GeminiRaw::default()
            },
        )
    }

    #[test]
    fn exit_codes_as_the_code_reads_them() {
        let a = ran(0, "hello\n", "");
        assert_eq!((a.decision, a.system_message.clone()), (Some(Word::Other), Some(Some("hello".into()))));
        let a = ran(1, "", "careful");
        assert_eq!(a.system_message, Some(Some("Warning: careful".into())));
        assert!(!a.blocks());
        let a = ran(2, "", "no rm");
        assert!(a.blocks());
        assert_eq!(a.reason, Some(Some("no rm".into())));
        let a = ran(3, "out wins", "err");
        assert_eq!(a.reason, Some(Some("out wins".into())), "stdout when it has text");
        let a = ran(2, "", "");
        assert!(!a.blocks() && !a.output, "exit 2 printing nothing blocks nothing");
        let a = ran(1, r#"{"decision":"deny","reason":"json on exit 1"}"#, "");
        assert!(a.blocks(), "JSON is obeyed on any exit code");
        let a = ran(2, r#"{"decision":"allow"}"#, "");
        assert!(!a.blocks(), "exit 2 with a JSON allow does not block");
        let a = ran(0, r#""{\"decision\":\"deny\"}""#, "");
        assert!(a.blocks(), "a JSON string holding JSON is read again");
        assert!(!ran(2, "42", "").output, "JSON that is not an object is no answer");
        assert!(!ran(2, "null", "").blocks());
        let a = ran(2, r#""not json inside""#, "");
        assert!(a.blocks(), "a string that does not hold JSON is read as text");
    }

    #[test]
    fn keys_and_tolerance() {
        let a = ran(0, r#"{"decision":"ask","reason":"r","systemMessage":"m","continue":false,"stopReason":"s"}"#, "");
        assert_eq!(a.decision, Some(Word::Ask));
        assert_eq!(a.cont, Some(false));
        assert_eq!(a.stop_reason, Some(Some("s".into())));
        assert_eq!(ran(0, r#"{"decision":"DENY"}"#, "").decision, Some(Word::Other), "case-sensitive");
        assert!(ran(0, r#"{"decision":"approve"}"#, "").decision == Some(Word::Other));
        assert!(ran(0, r#"{"decision":"deny","decision":"allow"}"#, "").blocks(), "a repeated key keeps the deny");
        assert!(ran(0, "\u{feff}{\"decision\":\"block\",\"reason\":\"\\ud800\"}", "").blocks());
        // JSON.parse refuses NaN: gemini-cli reads this as text, and exit 2 text denies.
        assert!(ran(2, r#"{"decision":"allow","x":NaN}"#, "").blocks());
        let a =
            ran(0, r#"{"hookSpecificOutput":{"tool_input":{"command":"ls"},"additionalContext":"ignored here"}}"#, "");
        assert_eq!(a.tool_input, Some(serde_json::json!({"command": "ls"})));
        assert_eq!(a.context, None, "BeforeTool does not read additionalContext");
        let over = read(Event::PreToolUse, &GeminiRaw { overflow: true, name: "big", ..GeminiRaw::default() });
        assert!(over.blocks());
        let t = read(Event::PreToolUse, &GeminiRaw { failed: Some("timed out after 5 ms"), ..GeminiRaw::default() });
        assert!(!t.blocks() && t.failure.is_some(), "a timeout lets the action through");
    }
}
