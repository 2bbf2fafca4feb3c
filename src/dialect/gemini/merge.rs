//! How the answers of one fire's gemini hooks combine (`hookAggregator.ts`), in configuration
//! order whatever order they finished in:
//! - BeforeTool, AfterTool, BeforeAgent, AfterAgent, SessionStart: any deny wins (else ask),
//!   `continue: false` from any hook stops, every reason, stop reason, system message and
//!   context is kept (joined by `"\n"`), the last `tool_input` wins whole;
//! - BeforeModel, AfterModel: each answer's fields replace the earlier ones';
//! - BeforeToolSelection: the allowed function names are a union, the mode NONE over ANY over
//!   AUTO;
//! - SessionEnd, PreCompress, Notification: only the system messages count.

use super::answer::{GeminiAnswer, Word};
use super::can_block;
use crate::event::Event;
use serde_json::{json, Value};

/// The step's result, in outcome terms (docs/dialects/gemini.md).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GeminiDecision {
    /// `allowed: false`: the tool, prompt or model call is refused, an AfterTool result is
    /// withheld, or (AfterAgent) the agent goes on with `reason`.
    pub deny: bool,
    /// `permissionDecision: "ask"` (BeforeTool, when nothing denies).
    pub ask: bool,
    pub reason: Option<String>,
    /// `continue: false` with this `stopReason`.
    pub stop: Option<String>,
    pub system_message: Option<String>,
    pub context: Option<String>,
    /// The tool input to use instead, in Gemini's field names (the engine renames it back).
    pub tool_input: Option<Value>,
    /// Outcome keys no other dialect has: `llmRequest`, `llmResponse`, `toolConfig`,
    /// `tailToolCallRequest`, `clearContext`.
    pub extra: Vec<(&'static str, Value)>,
}

const NO_REASON: &str = "No reason provided";

fn text(v: &Option<Option<String>>) -> Option<&str> {
    v.as_ref().and_then(|s| s.as_deref()).filter(|s| !s.is_empty())
}

fn joined(parts: Vec<&str>) -> Option<String> {
    (!parts.is_empty()).then(|| parts.join("\n"))
}

pub fn merge(event: Event, answers: &[GeminiAnswer]) -> GeminiDecision {
    let outputs: Vec<&GeminiAnswer> = answers.iter().filter(|a| a.output).collect();
    let mut d = GeminiDecision {
        system_message: joined(answers.iter().filter_map(|a| text(&a.system_message)).collect()),
        ..GeminiDecision::default()
    };
    match event {
        Event::PreToolUse | Event::PostToolUse | Event::UserPromptSubmit | Event::TurnStop | Event::SessionStart => {
            or_decision(event, &outputs, &mut d)
        }
        Event::BeforeModel | Event::AfterModel => field_replacement(event, &outputs, &mut d),
        Event::BeforeToolSelection if !outputs.is_empty() => {
            d.extra.push(("toolConfig", tool_selection(&outputs)));
        }
        _ => {}
    }
    // Size never decides: an answer too large to read denies whatever the others say.
    if let Some(why) = answers.iter().find_map(|a| a.overflow_deny.as_deref()) {
        if can_block(event) && !d.deny {
            d.deny = true;
            d.ask = false;
            d.tool_input = None;
            d.reason = Some(match d.reason.take() {
                Some(r) => format!("{why}\n{r}"),
                None => why.to_string(),
            });
        }
    }
    d
}

/// `mergeWithOrDecision`, then what the harness does with it on this event.
fn or_decision(event: Event, outputs: &[&GeminiAnswer], d: &mut GeminiDecision) {
    let block = outputs.iter().any(|a| a.decision == Some(Word::Block));
    let ask = !block && outputs.iter().any(|a| a.decision == Some(Word::Ask));
    let stop = outputs.iter().any(|a| a.cont == Some(false));
    let stop_reason =
        joined(outputs.iter().filter(|a| a.cont == Some(false)).filter_map(|a| text(&a.stop_reason)).collect());
    let reason = joined(outputs.iter().filter_map(|a| text(&a.reason)).collect());
    // `getEffectiveReason`: the stop reason, else the reasons, else a fixed text.
    let effective = || stop_reason.clone().or_else(|| reason.clone()).unwrap_or_else(|| NO_REASON.into());
    d.context = joined(outputs.iter().filter_map(|a| a.context.as_deref()).collect());
    if event == Event::SessionStart {
        // Decisions and stops are ignored at session start; context and messages count.
        return;
    }
    if stop {
        d.stop = Some(effective());
    }
    if block {
        d.deny = true;
        d.reason = Some(effective());
    } else if stop {
        d.reason = Some(effective());
    } else if ask && event == Event::PreToolUse {
        d.ask = true;
        d.reason = reason.clone();
    }
    if !block && !stop {
        // The hookSpecificOutput objects are spread in order: the last hook that gives a key
        // wins it whole (a `tool_input` that is not an object then rewrites nothing).
        if event == Event::PreToolUse {
            d.tool_input = outputs.iter().rev().find_map(|a| a.tool_input.clone()).filter(Value::is_object);
        }
        if event == Event::PostToolUse {
            if let Some(t) = outputs.iter().rev().find_map(|a| a.tail_tool_call.clone()).filter(Value::is_object) {
                d.extra.push(("tailToolCallRequest", t));
            }
        }
    }
    if event == Event::TurnStop && outputs.iter().any(|a| a.clear_context) {
        d.extra.push(("clearContext", Value::Bool(true)));
    }
}

/// `mergeWithFieldReplacement`: a later answer's keys replace the earlier ones', so a later
/// `decision: "allow"` undoes an earlier deny, as it does in gemini-cli.
fn field_replacement(event: Event, outputs: &[&GeminiAnswer], d: &mut GeminiDecision) {
    let mut decision = None;
    let mut reason = None;
    let mut stop_reason = None;
    let mut cont = None;
    let mut llm_request = None;
    let mut llm_response = None;
    for a in outputs {
        decision = a.decision.or(decision);
        reason = a.reason.clone().or(reason);
        stop_reason = a.stop_reason.clone().or(stop_reason);
        cont = a.cont.or(cont);
        llm_request = a.llm_request.clone().or(llm_request);
        llm_response = a.llm_response.clone().or(llm_response);
    }
    let effective = || text(&stop_reason).or(text(&reason)).unwrap_or(NO_REASON).to_string();
    if cont == Some(false) {
        d.stop = Some(effective());
        d.reason = Some(effective());
        return;
    }
    if decision == Some(Word::Block) {
        d.deny = true;
        d.reason = Some(effective());
        // BeforeModel: the hook's response stands in for the model's.
        if let Some(r) = llm_response.filter(|_| event == Event::BeforeModel).filter(truthy) {
            d.extra.push(("llmResponse", r));
        }
        return;
    }
    match event {
        // Without a deny a BeforeModel `llm_response` is unused; the request is changed.
        Event::BeforeModel => {
            if let Some(r) = llm_request.filter(truthy) {
                d.extra.push(("llmRequest", r));
            }
        }
        _ => {
            // AfterModel: used only when it carries parts (`getModifiedResponse`).
            let has_parts = |r: &Value| {
                r.pointer("/candidates/0/content/parts").and_then(Value::as_array).is_some_and(|p| !p.is_empty())
            };
            if let Some(r) = llm_response.filter(has_parts) {
                d.extra.push(("llmResponse", r));
            }
        }
    }
}

/// JavaScript truthiness (`if (hookResponse)`).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// `mergeToolSelectionOutputs`.
fn tool_selection(outputs: &[&GeminiAnswer]) -> Value {
    let mut none = false;
    let mut any = false;
    let mut names: Vec<String> = Vec::new();
    for a in outputs {
        let Some(config) = a.tool_config.as_ref().and_then(Value::as_object) else { continue };
        match config.get("mode").and_then(Value::as_str) {
            Some("NONE") => none = true,
            Some("ANY") => any = true,
            _ => {}
        }
        if let Some(list) = config.get("allowedFunctionNames").and_then(Value::as_array) {
            for n in list {
                let n = match n {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
    }
    // JavaScript's default sort: by UTF-16 code units.
    names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    if none {
        json!({"mode": "NONE", "allowedFunctionNames": []})
    } else {
        json!({"mode": if any { "ANY" } else { "AUTO" }, "allowedFunctionNames": names})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::gemini::answer::{read, GeminiRaw};

    fn a(event: Event, exit: i32, out: &str) -> GeminiAnswer {
        read(event, &GeminiRaw { exit: Some(exit), stdout: out.as_bytes(), name: "h", ..GeminiRaw::default() })
    }

    #[test]
    fn any_deny_wins_and_texts_join() {
        let e = Event::PreToolUse;
        let d = merge(
            e,
            &[
                a(e, 0, r#"{"decision":"allow","reason":"fine","systemMessage":"one"}"#),
                a(e, 2, "no rm"),
                a(e, 0, "two"),
            ],
        );
        assert!(d.deny);
        assert_eq!(d.reason.as_deref(), Some("fine\nno rm"), "every reason, joined");
        assert_eq!(d.system_message.as_deref(), Some("one\ntwo"));
        let d = merge(e, &[a(e, 0, r#"{"decision":"ask","reason":"sure?"}"#), a(e, 0, r#"{"decision":"allow"}"#)]);
        assert!(d.ask && !d.deny);
        let d = merge(e, &[a(e, 0, r#"{"decision":"allow"}"#)]);
        assert_eq!(d, GeminiDecision::default(), "allow approves nothing");
    }

    #[test]
    fn the_last_tool_input_replaces_the_input() {
        let e = Event::PreToolUse;
        let d = merge(
            e,
            &[
                a(e, 0, r#"{"hookSpecificOutput":{"tool_input":{"command":"a","x":1}}}"#),
                a(e, 0, r#"{"hookSpecificOutput":{"tool_input":{"command":"b"}}}"#),
                a(e, 0, r#"{"hookSpecificOutput":{"additionalContext":"c"}}"#),
            ],
        );
        assert_eq!(d.tool_input, Some(json!({"command": "b"})));
        let d = merge(e, &[a(e, 0, r#"{"hookSpecificOutput":{"tool_input":{"command":"a"}}}"#), a(e, 2, "no")]);
        assert_eq!((d.deny, d.tool_input), (true, None));
    }

    #[test]
    fn contexts_stops_and_the_stop_event() {
        let e = Event::PostToolUse;
        let d = merge(
            e,
            &[
                a(e, 0, r#"{"hookSpecificOutput":{"additionalContext":"x"}}"#),
                a(e, 0, r#"{"hookSpecificOutput":{"additionalContext":"y"}}"#),
            ],
        );
        assert_eq!(d.context.as_deref(), Some("x\ny"));
        let d = merge(e, &[a(e, 0, r#"{"decision":"block","reason":"secret in output"}"#)]);
        assert!(d.deny && d.reason.as_deref() == Some("secret in output"), "AfterTool withholds the result");
        let d = merge(
            e,
            &[a(e, 0, r#"{"continue":false,"stopReason":"halt"}"#), a(e, 0, r#"{"decision":"deny","reason":"r"}"#)],
        );
        assert_eq!((d.deny, d.stop.as_deref(), d.reason.as_deref()), (true, Some("halt"), Some("halt")));
        let e = Event::SessionStart;
        let d = merge(e, &[a(e, 2, "ignored"), a(e, 0, r#"{"hookSpecificOutput":{"additionalContext":"<ctx>"}}"#)]);
        assert_eq!((d.deny, d.context.as_deref()), (false, Some("<ctx>")), "raw text, decisions ignored");
        let e = Event::TurnStop;
        let d = merge(e, &[a(e, 0, r#"{"decision":"block","reason":"run the tests"}"#)]);
        assert!(d.deny && d.reason.as_deref() == Some("run the tests"));
    }

    #[test]
    fn model_events_replace_fields() {
        let e = Event::BeforeModel;
        let d = merge(e, &[a(e, 0, r#"{"decision":"deny","reason":"r"}"#), a(e, 0, r#"{"decision":"allow"}"#)]);
        assert!(!d.deny, "a later allow replaces the deny, as in gemini-cli");
        let d = merge(
            e,
            &[
                a(e, 0, r#"{"decision":"allow"}"#),
                a(e, 0, r#"{"decision":"deny","hookSpecificOutput":{"llm_response":{"candidates":[]}}}"#),
            ],
        );
        assert!(d.deny);
        assert_eq!(d.extra, [("llmResponse", json!({"candidates": []}))]);
        let d = merge(
            e,
            &[
                a(e, 0, r#"{"hookSpecificOutput":{"llm_request":{"model":"a"}}}"#),
                a(e, 0, r#"{"hookSpecificOutput":{"llm_request":{"model":"b"}}}"#),
            ],
        );
        assert_eq!(d.extra, [("llmRequest", json!({"model": "b"}))]);
        let e = Event::BeforeToolSelection;
        let d = merge(
            e,
            &[
                a(
                    e,
                    0,
                    r#"{"hookSpecificOutput":{"toolConfig":{"mode":"ANY","allowedFunctionNames":["read_file","glob"]}}}"#,
                ),
                a(
                    e,
                    0,
                    r#"{"decision":"deny","hookSpecificOutput":{"toolConfig":{"mode":"AUTO","allowedFunctionNames":["glob","Zed"]}}}"#,
                ),
            ],
        );
        assert!(!d.deny);
        assert_eq!(
            d.extra,
            [("toolConfig", json!({"mode": "ANY", "allowedFunctionNames": ["Zed", "glob", "read_file"]}))]
        );
    }
}
