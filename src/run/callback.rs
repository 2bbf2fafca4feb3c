//! Callback hooks (docs/config.md "Callback hooks") and prompt hooks with a host evaluator (docs/config.md "Prompt hooks"): ask a function
//! the host registered, wait for its answer within the hook's timeout, and read the answer like
//! a jsonIO response. A missing registration fails like a spawn failure; no answer in time fails
//! like a timed-out jsonIO hook.

use super::Context;
use crate::dialect::openharness::answer::{deny, JSON_FAILED, OUTPUT_TOO_LARGE};
use crate::dialect::Answer;
use crate::host::{self, Asked, HostFunction};
use crate::outcome::Trace;
use std::time::Duration;

/// The registration a prompt hook asks.
pub const EVALUATOR: &str = "prompt";

pub fn not_registered(name: &str) -> String {
    format!("no callback registered for {name}")
}

/// The request of a prompt hook: its question and the envelope.
pub fn prompt_request(question: &str, envelope_json: &str) -> String {
    let question = serde_json::to_string(question).unwrap_or_else(|_| "\"\"".to_string());
    format!(r#"{{"prompt":{question},"envelope":{envelope_json}}}"#)
}

/// Asks `f` with `request` and turns what came back into the hook's result.
pub fn run(f: &dyn HostFunction, request: &str, timeout: Duration, cx: &Context, trace: &mut Trace) -> Answer {
    let asked = host::ask(cx.engine_id, f, request, timeout, cx.cancel);
    trace.timed_out = Some(asked == Asked::TimedOut);
    let answer = match asked {
        Asked::Answered(a) => a,
        Asked::TimedOut => {
            trace.error = Some(format!("no answer within {} ms", timeout.as_millis()));
            return deny(JSON_FAILED);
        }
        Asked::Cancelled => {
            trace.error = Some("cancelled".to_string());
            return deny(JSON_FAILED);
        }
    };
    let Some(answer) = answer else { return Answer::default() };
    if answer.len() > cx.max_output_bytes {
        trace.error = Some(format!("the answer exceeded maxOutputBytes ({} bytes)", cx.max_output_bytes));
        return deny(OUTPUT_TOO_LARGE);
    }
    super::json_io_result(&answer, cx, trace)
}
