//! The ways to run one hook, and turning what happened into a result for the merge and a trace
//! for the outcome. [`run`] dispatches on the hook's [`Handler`]: every kind of hook is one arm
//! there and one file beside this one. The per-event exit-code rules and the failure reasons
//! live here.
//!
//! - [`command`]: command hooks (env mode and jsonIO); processes are made by [`crate::os`].
//! - [`http`]: HTTP hooks.
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
use crate::envelope::Envelope;
use crate::event::Event;
use crate::host::Host;
use crate::os::cancel;
use crate::os::spawn::EnvTemplate;
use crate::outcome::{millis, Trace, Verdict};
use crate::response::{self, HookResult, Permission, Response};
use command::{Exit, Spawn};
use http::{HttpClient, Reply};
use persistent::{Launch, ProcessPoolTable};
use std::path::Path;
use std::time::{Duration, Instant};

pub const ENV_DENIED: &str = "hook denied (exit code)";
pub const JSON_FAILED: &str = "hook failed (timeout or non-zero exit)";
pub const OUTPUT_TOO_LARGE: &str = "hook output exceeded maxOutputBytes";
pub const MALFORMED: &str = "malformed hook response";
pub const NO_EVALUATOR: &str = "prompt hook has no evaluator";
pub const HTTP_ERROR: &str = "hook HTTP error";
pub const HTTP_TOO_LARGE: &str = "hook HTTP response too large";
pub const HTTP_MALFORMED: &str = "hook HTTP malformed response";
pub const LEGACY_DENIED: &str = "hook denied";

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

/// A hook's part in the fire.
pub struct Ran {
    pub result: Option<HookResult>,
    pub trace: Trace,
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
                HookResult::deny(&why)
            }
        },
        Handler::Prompt(question) => match cx.host.function(callback::EVALUATOR) {
            Some(f) => {
                callback::run(&*f, &callback::prompt_request(question, &cx.envelope.json), timeout, cx, &mut trace)
            }
            None if event.is_blocking() => HookResult::deny(NO_EVALUATOR),
            None => {
                trace.error = Some(NO_EVALUATOR.to_string());
                HookResult::default()
            }
        },
    };
    trace.duration_ms = millis(start.elapsed());
    trace.result = cancelled_or(cx.cancel, result.label());
    trace.reason = result.reason.clone();
    Ran { result: Some(result), trace }
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

fn run_persistent(spec: &HookSpec, timeout: Duration, cx: &Context, trace: &mut Trace) -> HookResult {
    trace.json_io = Some(true);
    trace.persistent = Some(true);
    let Some(pool) = cx.pools.get(cx.envelope.event, spec.index) else {
        trace.error = Some("internal error: the persistent hook has no workers".to_string());
        return HookResult::deny(JSON_FAILED);
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
        Ok(Response::Parsed { result, .. }) => {
            trace.timed_out = Some(false);
            result
        }
        Ok(_) => {
            trace.timed_out = Some(false);
            HookResult::default()
        }
        Err(failure) => {
            trace.timed_out = Some(failure.timed_out());
            trace.error = Some(failure.message(timeout, cx.max_output_bytes));
            match failure {
                persistent::WorkerFailure::TooLong => HookResult::deny(OUTPUT_TOO_LARGE),
                _ => HookResult::deny(JSON_FAILED),
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
) -> HookResult {
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
        let permission_request = event == Event::PermissionRequest;
        return if finished.succeeded() {
            HookResult { permission: permission_request.then_some(Permission::Ask), ..HookResult::default() }
        } else {
            HookResult { permission: permission_request.then_some(Permission::Deny), ..HookResult::deny(ENV_DENIED) }
        };
    }
    if !finished.succeeded() {
        return HookResult::deny(JSON_FAILED);
    }
    if finished.stdout_overflow {
        trace.error = Some(format!("stdout exceeded maxOutputBytes ({} bytes)", cx.max_output_bytes));
        return HookResult::deny(OUTPUT_TOO_LARGE);
    }
    json_io_result(&finished.stdout, cx, trace)
}

/// A jsonIO-shaped answer (stdout, a callback's or an evaluator's answer) to a result: blank is
/// no decision, malformed is no decision (a deny on blocking events with `strict`).
pub(crate) fn json_io_result(answer: &[u8], cx: &Context, trace: &mut Trace) -> HookResult {
    match response::parse(answer) {
        Response::Empty => HookResult::default(),
        Response::Malformed(why) => {
            trace.error = Some(why);
            if cx.strict && cx.envelope.event.is_blocking() {
                HookResult::deny(MALFORMED)
            } else {
                HookResult::default()
            }
        }
        Response::Parsed { result, .. } => result,
    }
}

fn run_http(url: &str, timeout: Duration, cx: &Context, trace: &mut Trace) -> HookResult {
    trace.timed_out = Some(false);
    match cx.http.post(url, &cx.envelope.json, &[], timeout, cx.max_output_bytes, cx.cancel) {
        Reply::Body(status, body) => {
            trace.status = Some(status);
            match response::parse(&body) {
                Response::Empty => HookResult::default(),
                Response::Malformed(why) => {
                    trace.error = Some(why);
                    HookResult::deny(HTTP_MALFORMED)
                }
                Response::Parsed { result, legacy_denied } => {
                    if legacy_denied && result.decision.is_none() && result.permission.is_none() {
                        HookResult {
                            reason: result.reason.or_else(|| Some(LEGACY_DENIED.to_string())),
                            ..HookResult::deny(LEGACY_DENIED)
                        }
                    } else {
                        result
                    }
                }
            }
        }
        Reply::Status(status) => {
            trace.status = Some(status);
            HookResult::deny(&format!("hook HTTP {status}"))
        }
        Reply::TooLarge(status) => {
            trace.status = Some(status);
            trace.error = Some(format!("response body exceeded maxOutputBytes ({} bytes)", cx.max_output_bytes));
            HookResult::deny(HTTP_TOO_LARGE)
        }
        Reply::Failed { timed_out, message } => {
            trace.timed_out = Some(timed_out);
            trace.error = Some(message);
            HookResult::deny(HTTP_ERROR)
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
