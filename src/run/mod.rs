//! The ways to run one openHarness hook, and turning what happened into an answer for the walk
//! and a trace for the outcome. [`run`] dispatches on the hook's [`Handler`]: every kind of hook
//! is one arm there and one file beside this one. What an answer means (the exit-code rules, the
//! jsonIO keys, the failure reasons) is openHarness's reader, `dialect/openharness/answer.rs`.
//!
//! - [`command`]: command hooks (env mode and jsonIO); processes are made by [`crate::os`].
//! - [`dialect`]: a dialect's hooks (command, HTTP, callback), each turned into one `Raw` the dialect reads.
//! - [`http`]: HTTP hooks; `http_tcp`: the TCP transport under them.
//! - [`callback`]: callback hooks and prompt hooks, answered by the host.
//! - [`persistent`]: persistent command hooks (long-lived workers answering one line per fire).

pub mod callback;
pub mod command;
pub mod dialect;
pub mod http;
mod http_tcp;
pub mod persistent;

use crate::config::{Handler, HookSpec};
use crate::dialect::openharness::answer::{self, Response};
use crate::dialect::Answer;
use crate::envelope::Envelope;
use crate::host::Host;
use crate::os::cancel;
use crate::os::spawn::EnvTemplate;
use crate::outcome::{millis, Trace, Verdict};
use command::{Exit, Spawn};
use http::{HttpClient, Reply};
use persistent::{Launch, ProcessPoolTable};
use std::path::Path;
use std::time::{Duration, Instant};

/// Everything a hook needs besides its own entry; shared by all hooks of one fire.
pub struct Context<'a> {
    pub envelope: &'a Envelope,
    pub cwd: &'a Path,
    pub env: &'a EnvTemplate,
    pub default_timeout: Duration,
    pub max_output_bytes: usize,
    pub strict: bool,
    pub http: &'a HttpClient,
    /// The host's registrations (callback hooks, the prompt evaluator).
    pub host: &'a Host,
    /// Names this engine's pending host calls, so freeing it can forget them.
    pub engine_id: u64,
    /// Set for an asynchronous fire: cancelling it stops the waits of its hooks.
    pub cancel: Option<&'a cancel::Cancel>,
    /// The workers of the config's persistent hooks.
    pub pools: &'a ProcessPoolTable,
}

/// What running one hook gave, whatever its dialect: its answer (the default, no decision, for
/// a hook that did not run), its trace, and a warning for the outcome when it could not run at
/// all (a dialect's callback hook with no host function: the harness should hear of it).
pub struct Ran {
    pub answer: Answer,
    pub trace: Trace,
    pub warning: Option<String>,
}

pub fn run(spec: &HookSpec, cx: &Context) -> Ran {
    let event = cx.envelope.event;
    let mut trace = Trace { index: spec.index, kind: spec.type_name(), ..Trace::default() };
    let start = Instant::now();
    let timeout = spec.timeout.unwrap_or(cx.default_timeout);
    let result = match &spec.handler {
        Handler::Command(_) if spec.persistent.is_some() => run_persistent(spec, timeout, cx, &mut trace),
        Handler::Command(command) => run_command(command, spec.argv.as_deref(), spec.json_io, timeout, cx, &mut trace),
        Handler::Http(url) => run_http(url, timeout, cx, &mut trace),
        Handler::Callback(name) => match cx.host.function(name) {
            Some(f) => callback::run(&*f, &cx.envelope.json, timeout, cx, &mut trace),
            None => {
                let why = callback::not_registered(name);
                trace.error = Some(why.clone());
                answer::deny(&why)
            }
        },
        Handler::Prompt(question) => match cx.host.function(callback::EVALUATOR) {
            Some(f) => {
                callback::run(&*f, &callback::prompt_request(question, &cx.envelope.json), timeout, cx, &mut trace)
            }
            None if event.is_blocking() => answer::deny(answer::NO_EVALUATOR),
            None => {
                trace.error = Some(answer::NO_EVALUATOR.to_string());
                Answer::default()
            }
        },
    };
    trace.duration_ms = millis(start.elapsed());
    trace.result = cancelled_or(cx.cancel, result.label());
    trace.reason = result.reason.clone();
    Ran { answer: result, trace, warning: None }
}

/// A hook the fire's cancel reached before it finished is traced `"cancelled"`, so that the
/// cancelled outcome's `hooks` says which hooks were stopped (an audit log needs it).
pub(crate) fn cancelled_or(cancel: Option<&cancel::Cancel>, label: Verdict) -> Verdict {
    if cancel.is_some_and(cancel::Cancel::is_cancelled) {
        Verdict::Cancelled
    } else {
        label
    }
}

fn run_persistent(spec: &HookSpec, timeout: Duration, cx: &Context, trace: &mut Trace) -> Answer {
    trace.json_io = Some(true);
    trace.persistent = Some(true);
    let Some(pool) = cx.pools.get(cx.envelope.event, spec.index) else {
        trace.error = Some("internal error: the persistent hook has no workers".to_string());
        return answer::deny(answer::JSON_FAILED);
    };
    let launch = Launch { cwd: cx.cwd, env: cx.env };
    let cancel = cx.cancel.map(|c| c as &dyn persistent::Cancellation);
    let served = pool.request(cx.envelope.json.as_bytes(), timeout, cx.max_output_bytes, &launch, cancel);
    if !served.stderr.is_empty() {
        trace.stderr = Some(utf8_prefix(&served.stderr));
    }
    match served.exit {
        Some(Exit::Code(c)) => trace.exit_code = Some(c),
        Some(Exit::Signal(s)) => trace.signal = Some(s),
        None => {}
    }
    match served.answer {
        Ok(Response::Parsed { answer, .. }) => {
            trace.timed_out = Some(false);
            answer
        }
        Ok(_) => {
            trace.timed_out = Some(false);
            Answer::default()
        }
        Err(failure) => {
            trace.timed_out = Some(failure.timed_out());
            trace.error = Some(failure.message(timeout, cx.max_output_bytes));
            match failure {
                persistent::WorkerFailure::TooLong => answer::deny(answer::OUTPUT_TOO_LARGE),
                _ => answer::deny(answer::JSON_FAILED),
            }
        }
    }
}

fn run_command(
    command: &str,
    argv: Option<&[String]>,
    json_io: bool,
    timeout: Duration,
    cx: &Context,
    trace: &mut Trace,
) -> Answer {
    let event = cx.envelope.event;
    trace.json_io = json_io.then_some(true);
    let finished = command::run(&Spawn {
        command,
        argv,
        exec_form: false,
        cwd: cx.cwd,
        env: cx.env,
        vars: cx.envelope.vars(),
        stdin: json_io.then_some(cx.envelope.json.as_bytes()),
        capture_stdout: json_io,
        max_stdout: cx.max_output_bytes,
        timeout,
        cancel: cx.cancel,
    });
    match finished.exit {
        Some(Exit::Code(c)) => trace.exit_code = Some(c),
        Some(Exit::Signal(s)) => trace.signal = Some(s),
        None => {}
    }
    trace.timed_out = Some(finished.timed_out);
    if !finished.stderr.is_empty() {
        trace.stderr = Some(utf8_prefix(&finished.stderr));
    }
    trace.error = finished
        .error
        .clone()
        .or_else(|| finished.timed_out.then(|| format!("timed out after {} ms", timeout.as_millis())));

    if !json_io {
        return answer::env_mode(event, finished.succeeded());
    }
    if !finished.succeeded() {
        return answer::deny(answer::JSON_FAILED);
    }
    if finished.stdout_overflow {
        trace.error = Some(format!("stdout exceeded maxOutputBytes ({} bytes)", cx.max_output_bytes));
        return answer::deny(answer::OUTPUT_TOO_LARGE);
    }
    json_io_result(&finished.stdout, cx, trace)
}

/// A jsonIO-shaped answer (stdout, a callback's or an evaluator's answer) read by openHarness's
/// rules ([`answer::json_io`]), why it was malformed written to the trace.
pub(crate) fn json_io_result(body: &[u8], cx: &Context, trace: &mut Trace) -> Answer {
    let (read, malformed) = answer::json_io(cx.envelope.event, body, cx.strict);
    if malformed.is_some() {
        trace.error = malformed;
    }
    read
}

fn run_http(url: &str, timeout: Duration, cx: &Context, trace: &mut Trace) -> Answer {
    trace.timed_out = Some(false);
    match cx.http.post(url, &cx.envelope.json, &[], timeout, cx.max_output_bytes, cx.cancel) {
        Reply::Body(status, body) => {
            trace.status = Some(status);
            let (read, malformed) = answer::http_body(&body);
            if malformed.is_some() {
                trace.error = malformed;
            }
            read
        }
        Reply::Status(status) => {
            trace.status = Some(status);
            answer::deny(&format!("hook HTTP {status}"))
        }
        Reply::TooLarge(status) => {
            trace.status = Some(status);
            trace.error = Some(format!("response body exceeded maxOutputBytes ({} bytes)", cx.max_output_bytes));
            answer::deny(answer::HTTP_TOO_LARGE)
        }
        Reply::Failed { timed_out, message } => {
            trace.timed_out = Some(timed_out);
            trace.error = Some(message);
            answer::deny(answer::HTTP_ERROR)
        }
    }
}

/// Text of a byte prefix: invalid sequences replaced, a character cut by the prefix dropped.
pub(crate) fn utf8_prefix(bytes: &[u8]) -> String {
    let end = match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        _ => bytes.len(),
    };
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}
