//! Running one dialect hook (docs/dialects.md): one mechanism per way of running it (command,
//! HTTP, host callback), each turning what happened into one [`Raw`] and the hook's trace. The
//! dialect only reads the `Raw` ([`Dialect::read`]). Process handling (process group, kill,
//! drain, output caps) is the engine's own, shared with openHarness command hooks.

use super::command::{self, Exit, Spawn};
use super::http::Reply;
use super::{utf8_prefix, Context, Ran};
use crate::dialect::{no_callback, Answer, Handler, Hook, Raw, Via, View};
use crate::host::{self, Asked};
use crate::outcome::{millis, Trace};
use std::time::{Duration, Instant};

/// What a fire's hooks of one dialect share besides the engine's context.
pub struct DialectContext<'a> {
    pub base: &'a Context<'a>,
    pub view: &'a View,
}

pub fn run(hook: &Hook, index: usize, cx: &DialectContext) -> Ran {
    let dialect = hook.dialect();
    let event = cx.base.envelope.event;
    let mut trace = Trace {
        index,
        kind: hook.type_name(),
        dialect: Some(dialect.name()),
        source: Some(hook.source.display().to_string()),
        ..Trace::default()
    };
    let start = Instant::now();
    let timeout = dialect.timeout(hook, event);
    let base = Raw {
        fail_closed: hook.fail_closed,
        max_output_bytes: cx.base.max_output_bytes,
        name: hook.what(),
        ..Raw::default()
    };
    let mut warning = None;
    let answer = match &hook.handler {
        Handler::Command { command, args } => {
            let hook_vars = dialect.hook_vars(hook);
            // The dialect's own command line (Gemini CLI's `bash -c`), else the exec form, else
            // the user's shell of a harness that runs commands in it (Codex's `$SHELL -c`),
            // started directly with the command as one word; else `/bin/sh -c` or plain words.
            let exec_argv: Option<Vec<String>> = dialect.command(hook, cx.view).or_else(|| match args {
                Some(args) => {
                    let substitute = |s: &str| substitute(s, &cx.view.vars, &hook_vars);
                    Some(std::iter::once(substitute(command)).chain(args.iter().map(|a| substitute(a))).collect())
                }
                None => dialect
                    .shell(&|name| cx.base.env.get(name))
                    .map(|shell| vec![shell, "-c".to_string(), command.clone()]),
            });
            let mut vars: Vec<(&str, String)> = cx.base.envelope.vars().to_vec();
            vars.extend(cx.view.vars.iter().cloned());
            vars.extend(hook_vars);
            // The hook's own `env` goes over everything else (a later entry wins).
            for (k, v) in &hook.env {
                vars.retain(|(n, _)| n != k);
                vars.push((k.as_str(), v.clone()));
            }
            // Should the direct start fail after all (a script without `#!`), the shell's
            // fallback runs the same words, quoted, never the bare command.
            let quoted: Option<String> = exec_argv.as_ref().map(|words| {
                words.iter().map(|w| format!("'{}'", w.replace('\'', "'\\''"))).collect::<Vec<_>>().join(" ")
            });
            // A relative `cwd` is under the engine's (Copilot's "relative to the repository").
            let hook_cwd = hook.cwd.as_ref().map(|c| cx.base.cwd.join(c));
            let finished = command::run(&Spawn {
                command: quoted.as_deref().unwrap_or(command),
                argv: exec_argv.as_deref().or(hook.argv.as_deref()),
                exec_form: exec_argv.is_some(),
                cwd: hook_cwd.as_deref().unwrap_or(cx.base.cwd),
                env: cx.base.env,
                vars: &vars,
                stdin: Some(cx.view.stdin_for(hook).as_bytes()),
                capture_stdout: true,
                max_stdout: cx.base.max_output_bytes,
                timeout,
                cancel: cx.base.cancel,
            });
            let exit = match finished.exit {
                Some(Exit::Code(c)) => {
                    trace.exit_code = Some(c);
                    Some(c)
                }
                Some(Exit::Signal(s)) => {
                    trace.signal = Some(s);
                    None
                }
                None => None,
            };
            trace.timed_out = Some(finished.timed_out);
            if !finished.stderr.is_empty() {
                trace.stderr = Some(utf8_prefix(&finished.stderr));
            }
            let failed = if finished.timed_out {
                Some(timed_out(timeout))
            } else if let Some(e) = &finished.error {
                Some(e.clone())
            } else if let (None, Some(Exit::Signal(s))) = (exit, finished.exit) {
                Some(format!("killed by signal {s}"))
            } else {
                None
            };
            dialect.read_in(
                event,
                hook,
                &Raw {
                    exit,
                    failed,
                    timed_out: finished.timed_out,
                    // An overflowing stdout is not read; the dialect says what that means.
                    stdout: if finished.stdout_overflow { b"" } else { &finished.stdout },
                    stderr: &finished.stderr,
                    overflow: finished.stdout_overflow,
                    ..base
                },
                cx.view,
            )
        }
        Handler::Http { url, headers, allowed_env_vars } => {
            trace.timed_out = Some(false);
            let headers: Vec<(String, String)> =
                headers.iter().map(|(k, v)| (k.clone(), interpolate(v, allowed_env_vars, cx))).collect();
            let body = cx.view.stdin_for(hook).trim_end();
            let failed = |why: String, overflow: bool| Raw { exit: Some(0), failed: Some(why), overflow, ..base };
            let raw = match cx.base.http.post(url, body, &headers, timeout, cx.base.max_output_bytes, cx.base.cancel) {
                Reply::Body(status, bytes) => {
                    trace.status = Some(status);
                    let answer = dialect.read_in(
                        event,
                        hook,
                        &Raw { via: Via::Http { status }, exit: Some(0), stdout: &bytes, ..base },
                        cx.view,
                    );
                    return finish(answer, trace, start, cx, None);
                }
                Reply::Status(status) => {
                    trace.status = Some(status);
                    failed(format!("HTTP {status}"), false)
                }
                Reply::TooLarge(status) => {
                    trace.status = Some(status);
                    let why = format!("HTTP response exceeded maxOutputBytes ({} bytes)", cx.base.max_output_bytes);
                    failed(why, true)
                }
                Reply::Failed { timed_out: late, message } => {
                    trace.timed_out = Some(late);
                    trace.error = Some(message.clone());
                    failed(if late { timed_out(timeout) } else { message }, false)
                }
            };
            dialect.read_in(event, hook, &raw, cx.view)
        }
        // The host function registered under the hook's type answers it, given the hook's own
        // fields and the dialect's input, like an HTTP hook's body. None registered: the hook is
        // skipped (as the harnesses skip a hook that cannot run), and the outcome warns.
        Handler::Callback { kind, fields } => match cx.base.host.function(kind) {
            None => {
                let why = no_callback(dialect, kind);
                warning = Some(why.clone());
                Answer { failure: Some(why), ..Answer::default() }
            }
            Some(f) => {
                let hook_fields = serde_json::to_string(fields).unwrap_or_else(|_| "{}".to_string());
                let request = format!(r#"{{"hook":{hook_fields},"input":{}}}"#, cx.view.stdin_for(hook));
                let asked = host::ask(cx.base.engine_id, &*f, &request, timeout, cx.base.cancel);
                let late = asked == Asked::TimedOut;
                trace.timed_out = Some(late);
                let name = *kind;
                match asked {
                    Asked::Answered(a) => {
                        let body = a.unwrap_or_default();
                        let raw = if body.len() > cx.base.max_output_bytes {
                            let why =
                                format!("the answer exceeded maxOutputBytes ({} bytes)", cx.base.max_output_bytes);
                            Raw { failed: Some(why), overflow: true, name, ..base }
                        } else {
                            // A model's verdict `{ok, reason, impossible}` or a command hook's JSON.
                            Raw { via: Via::Callback, stdout: &body, name, ..base }
                        };
                        dialect.read_in(event, hook, &raw, cx.view)
                    }
                    Asked::TimedOut => dialect.read_in(
                        event,
                        hook,
                        &Raw { timed_out: true, failed: Some(timed_out(timeout)), name, ..base },
                        cx.view,
                    ),
                    Asked::Cancelled => dialect.read_in(
                        event,
                        hook,
                        &Raw { failed: Some("cancelled".to_string()), name, ..base },
                        cx.view,
                    ),
                }
            }
        },
    };
    finish(answer, trace, start, cx, warning)
}

fn finish(mut answer: Answer, mut trace: Trace, start: Instant, cx: &DialectContext, warning: Option<String>) -> Ran {
    answer.finished = Some(Instant::now());
    trace.duration_ms = millis(start.elapsed());
    trace.result = super::cancelled_or(cx.base.cancel, answer.label());
    trace.reason = answer.reason.clone();
    trace.failure = answer.failure.clone();
    Ran { answer, trace, warning }
}

/// A dialect hook's timeout, in the seconds its files give it in.
fn timed_out(timeout: Duration) -> String {
    format!("timed out after {} s", timeout.as_secs_f64())
}

/// `${NAME}` of the dialect's variables replaced in an exec-form word.
fn substitute(word: &str, view_vars: &[(&str, String)], hook_vars: &[(&str, String)]) -> String {
    let mut word = word.to_string();
    for (name, value) in view_vars.iter().chain(hook_vars) {
        word = word.replace(&format!("${{{name}}}"), value);
    }
    word
}

/// `$VAR` and `${VAR}` in a header value: the variable's value when the hook lists it in
/// `allowedEnvVars`, else the empty string (a settings file must not read arbitrary secrets).
fn interpolate(value: &str, allowed: &[String], cx: &DialectContext) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = if let Some(inner) = after.strip_prefix('{') {
            match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            (&after[..end], end)
        };
        if name.is_empty() || len == 0 {
            out.push('$');
            rest = after;
            continue;
        }
        if allowed.iter().any(|a| a == name) {
            let value = match cx.view.vars.iter().find(|(n, _)| *n == name) {
                Some((_, v)) => Some(v.clone()),
                None => cx.base.env.get(name),
            };
            out.push_str(&value.unwrap_or_default());
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    // A header value cannot carry line breaks.
    out.replace(['\r', '\n'], " ")
}
