//! Running one Claude Code hook (README "Claude Code hooks"): shell form (`sh -c`) or exec form (`args`, no
//! shell), Claude Code's stdin, `CLAUDE_PROJECT_DIR`/`CLAUDE_PLUGIN_ROOT`/`CLAUDE_PLUGIN_DATA`,
//! timeouts in seconds with Claude Code's defaults, and HTTP hooks with `headers` interpolating
//! `allowedEnvVars`. Process handling (process group, kill, drain, output caps) is the
//! engine's own, shared with openHarness command hooks.

use super::command::{self, Exit, Spawn};
use super::http::Reply;
use super::{utf8_prefix, Context};
use crate::config::claude::{ClaudeHandler, ClaudeHook};
use crate::envelope::claude::ClaudeInput;
use crate::host::{self, Asked};
use crate::outcome::{millis, Trace};
use crate::response::claude::{self as answer, ClaudeAnswer, Ran};
use std::time::Instant;

/// The variables Claude Code sets for its hooks; the host's values of these never reach a hook.
pub const VARIABLES: &[&str] = &["CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"];

/// What Claude Code hooks of one fire share besides the engine's context.
pub struct ClaudeContext<'a> {
    pub base: &'a Context<'a>,
    pub input: &'a ClaudeInput,
    /// `CLAUDE_PROJECT_DIR`.
    pub project_dir: &'a str,
}

/// Why a `prompt`, `agent` or `mcp_tool` hook did not run.
pub fn no_callback(kind: &str) -> String {
    format!("no host callback registered for `{kind}`; the Claude Code {kind} hook was skipped")
}

pub fn run(hook: &ClaudeHook, index: usize, cx: &ClaudeContext) -> (ClaudeAnswer, Trace) {
    let event = cx.base.envelope.event;
    let mut trace = Trace {
        index,
        kind: hook.type_name(),
        dialect: Some("claude"),
        source: Some(hook.source.display().to_string()),
        ..Trace::default()
    };
    let start = Instant::now();
    let timeout = hook.timeout_for(event);
    let answer = match &hook.handler {
        ClaudeHandler::Command { command, args } => {
            let plugin_root = hook.plugin.as_ref().map(|p| p.root.display().to_string());
            let plugin_data = hook.plugin.as_ref().and_then(|p| p.data.as_ref()).map(|d| d.display().to_string());
            let substitute = |s: &str| {
                let mut s = s.replace("${CLAUDE_PROJECT_DIR}", cx.project_dir);
                if let Some(root) = &plugin_root {
                    s = s.replace("${CLAUDE_PLUGIN_ROOT}", root);
                }
                if let Some(data) = &plugin_data {
                    s = s.replace("${CLAUDE_PLUGIN_DATA}", data);
                }
                s
            };
            let exec_argv: Option<Vec<String>> = args
                .as_ref()
                .map(|args| std::iter::once(substitute(command)).chain(args.iter().map(|a| substitute(a))).collect());
            let mut vars = cx.base.envelope.vars().to_vec();
            vars.push(("CLAUDE_PROJECT_DIR", cx.project_dir.to_string()));
            vars.extend(plugin_root.clone().map(|r| ("CLAUDE_PLUGIN_ROOT", r)));
            vars.extend(plugin_data.clone().map(|d| ("CLAUDE_PLUGIN_DATA", d)));
            // Should the direct start fail after all (a script without `#!`), the shell's
            // fallback runs the same words, quoted, never the bare command.
            let quoted: Option<String> = exec_argv.as_ref().map(|words| {
                words.iter().map(|w| format!("'{}'", w.replace('\'', "'\\''"))).collect::<Vec<_>>().join(" ")
            });
            let finished = command::run(&Spawn {
                command: quoted.as_deref().unwrap_or(command),
                argv: exec_argv.as_deref().or(hook.argv.as_deref()),
                exec_form: exec_argv.is_some(),
                cwd: cx.base.cwd,
                env: cx.base.env,
                vars: &vars,
                stdin: Some(cx.input.json.as_bytes()),
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
                Some(format!("timed out after {} s", timeout.as_secs_f64()))
            } else if let Some(e) = &finished.error {
                Some(e.clone())
            } else if let (None, Some(Exit::Signal(s))) = (exit, finished.exit) {
                Some(format!("killed by signal {s}"))
            } else if finished.stdout_overflow && exit != Some(2) {
                Some(format!("stdout exceeded maxOutputBytes ({} bytes)", cx.base.max_output_bytes))
            } else {
                None
            };
            // Exit 2 blocks whatever stdout holds; an overflowing stdout is then just not read.
            let stdout: &[u8] = if finished.stdout_overflow { b"" } else { &finished.stdout };
            answer::read(
                event,
                &Ran {
                    exit,
                    failed,
                    timed_out: finished.timed_out,
                    stdout,
                    stderr: &finished.stderr,
                    on_failure_block: hook.on_failure_block,
                    overflow: finished.stdout_overflow,
                    name: command,
                },
            )
        }
        ClaudeHandler::Http { url, headers, allowed_env_vars } => {
            trace.timed_out = Some(false);
            let headers: Vec<(String, String)> =
                headers.iter().map(|(k, v)| (k.clone(), interpolate(v, allowed_env_vars, cx))).collect();
            let body = cx.input.json.trim_end();
            let ran = |failed: Option<String>, stdout: &[u8], overflow: bool| -> ClaudeAnswer {
                answer::read(
                    event,
                    &Ran {
                        exit: Some(0),
                        failed,
                        stdout,
                        on_failure_block: hook.on_failure_block,
                        overflow,
                        name: url,
                        ..Ran::default()
                    },
                )
            };
            match cx.base.http.post(url, body, &headers, timeout, cx.base.max_output_bytes, cx.base.cancel) {
                Reply::Body(status, bytes) => {
                    trace.status = Some(status);
                    // Read as the answer reader reads it (a byte-order mark, invalid UTF-8).
                    let text = crate::response::json::text(&bytes);
                    let t = text.trim();
                    if t.is_empty() || (t.starts_with('{') && t.ends_with('}')) {
                        ran(None, &bytes, false)
                    } else {
                        ran(Some(format!("HTTP {status} body is not a JSON object")), b"", false)
                    }
                }
                Reply::Status(status) => {
                    trace.status = Some(status);
                    ran(Some(format!("HTTP {status}")), b"", false)
                }
                Reply::TooLarge(status) => {
                    trace.status = Some(status);
                    ran(
                        Some(format!("HTTP response exceeded maxOutputBytes ({} bytes)", cx.base.max_output_bytes)),
                        b"",
                        true,
                    )
                }
                Reply::Failed { timed_out, message } => {
                    trace.timed_out = Some(timed_out);
                    trace.error = Some(message.clone());
                    let why = if timed_out { format!("timed out after {} s", timeout.as_secs_f64()) } else { message };
                    ran(Some(why), b"", false)
                }
            }
        }
        // The host function registered under the hook's type answers it, given the hook's own
        // fields and Claude Code's input, like an HTTP hook's body. None registered: Claude Code
        // skips a hook that cannot run.
        ClaudeHandler::Callback { kind, fields } => match cx.base.host.function(kind) {
            None => ClaudeAnswer { failure: Some(no_callback(kind)), ..ClaudeAnswer::default() },
            Some(f) => {
                let hook_fields = serde_json::to_string(fields).unwrap_or_else(|_| "{}".to_string());
                let request = format!(r#"{{"hook":{hook_fields},"input":{}}}"#, cx.input.json);
                let asked = host::ask(cx.base.engine_id, &*f, &request, timeout, cx.base.cancel);
                let timed_out = asked == Asked::TimedOut;
                trace.timed_out = Some(timed_out);
                let mut overflow = false;
                let (failed, body) = match asked {
                    Asked::Answered(a) => {
                        let body = a.unwrap_or_default();
                        if body.len() > cx.base.max_output_bytes {
                            let why =
                                format!("the answer exceeded maxOutputBytes ({} bytes)", cx.base.max_output_bytes);
                            overflow = true;
                            (Some(why), Vec::new())
                        } else {
                            (None, body)
                        }
                    }
                    Asked::TimedOut => (Some(format!("timed out after {} s", timeout.as_secs_f64())), Vec::new()),
                    Asked::Cancelled => (Some("cancelled".to_string()), Vec::new()),
                };
                match failed {
                    // A model's verdict `{ok, reason, impossible}` or a command hook's JSON.
                    None => answer::read_callback(event, &body, kind),
                    failed => answer::read(
                        event,
                        &Ran {
                            timed_out,
                            failed,
                            on_failure_block: hook.on_failure_block,
                            overflow,
                            name: kind,
                            ..Ran::default()
                        },
                    ),
                }
            }
        },
    };
    trace.duration_ms = millis(start.elapsed());
    trace.result = super::cancelled_or(cx.base.cancel, answer.label());
    trace.reason = answer.reason.clone();
    trace.failure = answer.failure.clone();
    (answer, trace)
}

/// `$VAR` and `${VAR}` in a header value: the variable's value when the hook lists it in
/// `allowedEnvVars`, else the empty string (a settings file must not read arbitrary secrets).
fn interpolate(value: &str, allowed: &[String], cx: &ClaudeContext) -> String {
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
            let value = match name {
                "CLAUDE_PROJECT_DIR" => Some(cx.project_dir.to_string()),
                _ => cx.base.env.get(name),
            };
            out.push_str(&value.unwrap_or_default());
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    // A header value cannot carry line breaks.
    out.replace(['\r', '\n'], " ")
}
