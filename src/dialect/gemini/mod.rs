//! The Gemini CLI dialect (docs/dialects/gemini.md): the `hooks` key of
//! `~/.gemini/settings.json` and `<cwd>/.gemini/settings.json`, their `hooksConfig`, and
//! extensions' `hooks/hooks.json`, run as gemini-cli runs them.
//!
//! gemini-cli's code (`packages/core/src/hooks/`) is what its users' hooks were tested against,
//! and where its documentation says otherwise the code wins: exit 1 is a warning, any other
//! non-zero exit with text denies, JSON is obeyed on every exit code, `allow` approves nothing,
//! and a `tool_input` rewrite replaces the tool's input. Everything here is pure: no I/O, no
//! traces; the engine runs the hooks and hands each one's [`answer::GeminiRaw`] to [`answer::read`].

pub mod answer;
pub mod files;
pub mod merge;
pub mod view;

use crate::dialect::{self as seam, Dialect, File, Hook, LayerKind, Parsed, Parser, Place, Site};
use crate::envelope::tools::{self, HostTools};
use crate::envelope::Envelope;
use crate::event::Event;
use crate::matcher::field::FieldMatcher;
use crate::response::json;
use crate::response::Permission;
use files::{FileKind, GeminiHook, ToolMatcher};
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;

/// The Gemini CLI dialect: one line in the registry.
pub struct Gemini;

/// The variables gemini-cli sets for its hooks (the host's own values never reach a hook).
const VARIABLES: &[&str] =
    &["GEMINI_PROJECT_DIR", "GEMINI_PLANS_DIR", "GEMINI_CWD", "GEMINI_SESSION_ID", "CLAUDE_PROJECT_DIR"];

/// Where the rich answer travels from [`Dialect::read`] to [`Dialect::merge`] (the merge needs
/// which keys each answer gave, not only the outcome terms); never part of an outcome.
const RICH: &str = "gemini";

/// The option name, the trace's `dialect` and the `oh-hooks check --gemini` flag.
pub const NAME: &str = "gemini";

/// gemini-cli's event names and the engine events they fire on (`hookTypes` `HookEventName`).
pub const EVENTS: &[(&str, Event)] = &[
    ("BeforeTool", Event::PreToolUse),
    ("AfterTool", Event::PostToolUse),
    ("BeforeAgent", Event::UserPromptSubmit),
    ("AfterAgent", Event::TurnStop),
    ("SessionStart", Event::SessionStart),
    ("SessionEnd", Event::SessionEnd),
    ("PreCompress", Event::PreCompact),
    ("Notification", Event::Notification),
    ("BeforeModel", Event::BeforeModel),
    ("AfterModel", Event::AfterModel),
    ("BeforeToolSelection", Event::BeforeToolSelection),
];

/// The engine event of a Gemini CLI event name (exact: `beforeTool` is not one).
pub fn event_of(name: &str) -> Option<Event> {
    EVENTS.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}

/// Gemini CLI's name for an engine event (`hook_event_name`), when it has one.
pub fn name_of(event: Event) -> Option<&'static str> {
    EVENTS.iter().find(|(_, e)| *e == event).map(|(n, _)| *n)
}

/// Whether a Gemini hook can refuse on this event: the tool events, the prompt, the model
/// events, and the stop (where a deny means "go on with this"). On these `fire` waits for the
/// gemini hooks even where openHarness hooks cannot block.
pub fn can_block(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse
            | Event::PostToolUse
            | Event::UserPromptSubmit
            | Event::TurnStop
            | Event::BeforeModel
            | Event::AfterModel
    )
}

/// Whether `fire` waits for this event's gemini hooks: where they can refuse, and where the
/// harness uses what they return (SessionStart's context, BeforeToolSelection's tool config).
pub fn waits(event: Event) -> bool {
    can_block(event) || matches!(event, Event::SessionStart | Event::BeforeToolSelection)
}

/// How a matcher is tested on this event (`hookPlanner.ts` `matchesContext`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchOn {
    /// A JavaScript regex on the Gemini tool name (literal when it does not compile).
    ToolName,
    /// Exact comparison with this stdin field (`source`, `reason`, `trigger`).
    Exact(&'static str),
    /// No match context: every matcher matches.
    Nothing,
}

pub fn match_on(event: Event) -> MatchOn {
    match event {
        Event::PreToolUse | Event::PostToolUse => MatchOn::ToolName,
        Event::SessionStart => MatchOn::Exact("source"),
        Event::SessionEnd => MatchOn::Exact("reason"),
        Event::PreCompact => MatchOn::Exact("trigger"),
        _ => MatchOn::Nothing,
    }
}

/// Which of an event's hooks run on one fire, in order, and whether they run one after another
/// (`hookPlanner.ts` `createExecutionPlan`): the hooks whose matcher selects `value` (see
/// [`files::GeminiHook::selects`]), identical ones (same `name:command`) once, sequential when
/// any of them comes from a group with `sequential: true`.
pub fn plan<'a>(
    event: Event,
    hooks: impl IntoIterator<Item = &'a files::GeminiHook>,
    value: Option<&str>,
) -> (Vec<usize>, bool) {
    let mut seen = std::collections::HashSet::new();
    let mut runs = Vec::new();
    let mut sequential = false;
    for (i, hook) in hooks.into_iter().enumerate() {
        if hook.selects(event, value) && seen.insert(hook.key()) {
            sequential |= hook.sequential;
            runs.push(i);
        }
    }
    (runs, sequential)
}

impl Dialect for Gemini {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "Gemini CLI"
    }

    /// `~/.gemini/settings.json`, the host's files, `<cwd>/.gemini/settings.json` (not when
    /// `cwd` is the home directory: gemini-cli reads no workspace settings there), then each
    /// extension's `hooks/hooks.json`.
    fn files(&self, place: &Place) -> Vec<File> {
        let file = |path: PathBuf, kind| File { path, kind, plugin: None, change_source: None, dir: None };
        let mut out = Vec::new();
        if place.chosen.on {
            if let (true, Some(home)) = (place.user, place.home) {
                out.push(file(home.join(".gemini/settings.json"), LayerKind::Own));
            }
        }
        out.extend(place.chosen.files.iter().map(|p| file(p.clone(), LayerKind::Own)));
        if place.chosen.on && place.project && Some(place.cwd) != place.home {
            out.push(file(place.cwd.join(".gemini/settings.json"), LayerKind::Project));
        }
        for plugin in &place.chosen.plugins {
            out.push(File {
                path: plugin.root.join("hooks/hooks.json"),
                kind: LayerKind::Own,
                plugin: Some(plugin.clone()),
                change_source: None,
                dir: None,
            });
        }
        out
    }

    fn parser(&self) -> Box<dyn Parser> {
        Box::new(GeminiParser::default())
    }

    fn event_name(&self, event: Event) -> Option<&'static str> {
        name_of(event)
    }

    fn event(&self, name: &str) -> Option<Event> {
        event_of(name)
    }

    /// Where fire waits for gemini hooks: where they can refuse, and where the harness uses
    /// what they return (SessionStart's context, BeforeToolSelection's tool config).
    fn can_block(&self, event: Event) -> bool {
        waits(event)
    }

    fn variables(&self) -> &'static [&'static str] {
        VARIABLES
    }

    fn view(&self, envelope: &Envelope, site: &Site) -> seam::View {
        let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let v = view::GeminiView::build(envelope, site.cwd, &view::iso_time(since), site.tools);
        to_seam(&v)
    }

    fn select(&self, event: Event, hooks: &[&Hook], view: &seam::View, _site: &Site) -> Vec<usize> {
        let value = match match_on(event) {
            MatchOn::ToolName => view.get_str("tool_name"),
            MatchOn::Exact(field) => view.get_str(field),
            MatchOn::Nothing => None,
        };
        (0..hooks.len()).filter(|i| selects(hooks[*i], event, value)).collect()
    }

    fn timeout(&self, hook: &Hook, _event: Event) -> Duration {
        hook.timeout.unwrap_or(Duration::from_millis(files::DEFAULT_TIMEOUT_MS))
    }

    /// gemini-cli runs every matching hook in order when any of their groups says
    /// `sequential: true`, else all at once (`hookPlanner.ts`).
    fn sequential(&self, _event: Event, hooks: &[&Hook]) -> bool {
        hooks.iter().any(|h| h.sequential)
    }

    fn next_view(&self, event: Event, v: &seam::View, answer: &seam::Answer) -> Option<seam::View> {
        let rich = rich(answer);
        if !(rich.success && rich.output) {
            return None;
        }
        let tool = v.get_str("tool_name").map(str::to_string);
        let mine = view::GeminiView::from_stdin(event, &v.stdin, tool).after(&rich);
        Some(seam::View { vars: v.vars.clone(), ..to_seam(&mine) })
    }

    /// `bash -c` with `$GEMINI_PROJECT_DIR` and the other four replaced by their quoted values.
    fn command(&self, hook: &Hook, v: &seam::View) -> Option<Vec<String>> {
        let seam::Handler::Command { command, .. } = &hook.handler else { return None };
        let mine = view::GeminiView::from_stdin(Event::SessionStart, &v.stdin, None);
        Some(vec!["bash".into(), "-c".into(), mine.expand_command(command)])
    }

    fn read(&self, event: Event, hook: &Hook, raw: &seam::Raw) -> seam::Answer {
        // A hook killed by a signal closes with no exit code, which gemini-cli reads as 0.
        let killed = raw.exit.is_none()
            && !raw.timed_out
            && raw.failed.as_deref().is_some_and(|f| f.starts_with("killed by signal"));
        let mine = answer::GeminiRaw {
            exit: if killed { Some(0) } else { raw.exit },
            failed: if killed { None } else { raw.failed.as_deref() },
            stdout: raw.stdout,
            stderr: raw.stderr,
            overflow: raw.overflow,
            name: hook.what(),
        };
        let a = answer::read(event, &mine);
        let blocks = a.blocks() && can_block(event);
        let mut out = seam::Answer {
            block: blocks,
            permission: match a.decision {
                _ if blocks && event == Event::PreToolUse => Some(Permission::Deny),
                Some(answer::Word::Ask) if event == Event::PreToolUse => Some(Permission::Ask),
                _ => None,
            },
            reason: a.overflow_deny.clone().or_else(|| a.reason.clone().flatten()),
            context: a.context.clone(),
            stop: (a.cont == Some(false)).then(|| a.stop_reason.clone().flatten().unwrap_or_default()),
            system_message: a.system_message.clone().flatten().filter(|m| !m.is_empty()),
            failure: a.failure.clone(),
            ..seam::Answer::default()
        };
        if let Ok(v) = serde_json::to_value(&a) {
            out.extra.insert(RICH.into(), v);
        }
        out
    }

    fn merge(&self, event: Event, answers: &[seam::Answer]) -> seam::Decision {
        let rich: Vec<answer::GeminiAnswer> = answers.iter().map(rich).collect();
        let d = merge::merge(event, &rich);
        let refused = can_block(event) && (d.deny || d.stop.is_some());
        seam::Decision {
            block: d.deny && can_block(event),
            // On AfterAgent a refusal means "go on", and `continue: false` means "stop now": the
            // stop is reported (`continue: false`) without turning into `allowed: false`.
            stop_ends_walk: can_block(event) && event != Event::TurnStop,
            permission: match () {
                _ if d.deny && event == Event::PreToolUse => Some(Permission::Deny),
                _ if d.ask => Some(Permission::Ask),
                _ => None,
            },
            reason: if refused || d.ask { d.reason } else { None },
            contexts: d.context.into_iter().collect(),
            updated_input: d.tool_input,
            stop: d.stop,
            system_messages: d.system_message.into_iter().collect(),
            extra: d.extra.into_iter().map(|(k, v)| (k.to_string(), v)).collect::<Map<String, Value>>(),
            ..seam::Decision::default()
        }
    }

    /// A `tool_input` rewrite in the host's field names.
    fn to_host_input(&self, envelope: &Envelope, host_tools: &HostTools, input: Value) -> Value {
        let host = ["toolName", "tool_name"]
            .iter()
            .find_map(|k| envelope.raw(k))
            .and_then(|raw| json::value(raw)?.as_str().map(|s| s.into_owned()));
        match host {
            Some(name) => tools::from_dialect(&tools::GEMINI, host_tools, &name, input),
            None => input,
        }
    }
}

/// The rich answer [`Dialect::read`] left in an answer (a hook that did not run has none).
fn rich(answer: &seam::Answer) -> answer::GeminiAnswer {
    answer
        .extra
        .get(RICH)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_else(|| answer::GeminiAnswer { failure: answer.failure.clone(), ..answer::GeminiAnswer::default() })
}

fn to_seam(v: &view::GeminiView) -> seam::View {
    let stdin = v.stdin();
    // Matchers read the values decoded (a lone surrogate as U+FFFD).
    let fields = json::value(&stdin).and_then(json::Val::as_object).and_then(|o| o.to_map()).unwrap_or_default();
    let vars = v.variables();
    seam::View { stdin, fields, vars, variants: Vec::new() }
}

/// Whether a hook selects this fire (see [`files::GeminiHook::selects`]): its matcher was made
/// into a [`FieldMatcher`] at load — `Any`, `Names([text])` for an exact comparison (and a tool
/// matcher that is not a valid regex), `Regex` for a tool regex.
fn selects(hook: &Hook, event: Event, value: Option<&str>) -> bool {
    match (match_on(event), value, &hook.matcher) {
        (_, _, FieldMatcher::Any) | (MatchOn::Nothing, _, _) | (_, None, _) => true,
        (_, Some(v), FieldMatcher::Names(names)) => names.iter().any(|n| n == v),
        // A regex that gives up (backtracking limit) matches: a guard is never skipped because
        // its matcher was hard to evaluate.
        (_, Some(v), FieldMatcher::Regex(re)) => re.is_match(v).unwrap_or(true),
    }
}

/// One load's files, in order: the own files' `hooksConfig` applies to every later file.
#[derive(Default)]
struct GeminiParser {
    /// An own file said `hooksConfig.enabled: false` (the last own file that sets it decides).
    own_off: bool,
    own_disabled: Vec<String>,
    regexes: usize,
}

impl Parser for GeminiParser {
    fn parse(&mut self, file: &File, bytes: &[u8]) -> Parsed {
        let kind = match (&file.plugin, file.kind) {
            (Some(p), _) => FileKind::Extension(p.root.clone()),
            (None, LayerKind::Own) => FileKind::Own,
            (None, LayerKind::Project) => FileKind::Project,
        };
        let mut out = Parsed::default();
        if bytes.len() as u64 > seam::MAX_FILE_BYTES {
            out.warnings.push(format!(
                "{}: more than the {} bytes a Gemini CLI settings file may have; its hooks are not loaded",
                file.path.display(),
                seam::MAX_FILE_BYTES
            ));
            return out;
        }
        let env = |name: &str| std::env::var(name).ok();
        // `${workspacePath}` is left as written: a parser is not told the engine's `cwd`.
        let parsed = files::parse(&file.path, bytes, &kind, None, &env);
        out.warnings = parsed.warnings;
        match kind {
            FileKind::Own => {
                if let Some(enabled) = parsed.enabled {
                    self.own_off = !enabled;
                }
                self.own_disabled.extend(parsed.disabled.iter().cloned());
            }
            // A project switches off only its own hooks (the loader keeps it to them).
            FileKind::Project => out.disable_all = parsed.enabled.map(|e| !e),
            FileKind::Extension(_) => {}
        }
        if self.own_off {
            return out;
        }
        for (event, g) in parsed.hooks {
            let name = g.display_name().to_string();
            let off =
                self.own_disabled.contains(&name) || (kind == FileKind::Project && parsed.disabled.contains(&name));
            if off {
                continue;
            }
            if matches!(g.tool_matcher, Some(ToolMatcher::Regex(_))) {
                self.regexes += 1;
                if self.regexes > files::MAX_REGEX_MATCHERS {
                    out.warnings.push(format!(
                        "{}: more than {} tool matchers in the Gemini CLI files; `{}` is not loaded",
                        file.path.display(),
                        files::MAX_REGEX_MATCHERS,
                        g.command
                    ));
                    continue;
                }
            }
            out.hooks.push((event, to_hook(g, file)));
        }
        out
    }
}

fn to_hook(g: GeminiHook, file: &File) -> Hook {
    let matcher = match (&g.matcher, &g.tool_matcher) {
        (None, _) => FieldMatcher::Any,
        (Some(_), Some(ToolMatcher::Regex(re))) => FieldMatcher::Regex(re.clone()),
        (Some(m), _) => FieldMatcher::Names(vec![m.clone()]),
    };
    let identity = g.key();
    Hook {
        dialect: 0,
        handler: seam::Handler::Command { command: g.command, args: None },
        matcher,
        matcher_text: g.matcher,
        if_rule: None,
        if_text: None,
        timeout: Some(g.timeout),
        is_async: false,
        fail_closed: false,
        source: file.path.clone(),
        plugin: file.plugin.clone(),
        argv: None,
        identity,
        from_project: file.kind == LayerKind::Project,
        event_name: None,
        loop_limit: None,
        cwd: None,
        env: g.env,
        sequential: g.sequential,
        name: g.name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, kind: LayerKind, plugin: Option<&str>) -> File {
        File {
            path: PathBuf::from(path),
            kind,
            plugin: plugin.map(|r| seam::Plugin { root: r.into(), data: None }),
            change_source: None,
            dir: None,
        }
    }

    fn commands(p: &Parsed) -> Vec<String> {
        p.hooks.iter().map(|(_, h)| h.what().to_string()).collect()
    }

    #[test]
    fn hooks_config_across_one_loads_files() {
        let hook = |name: &str, cmd: &str| format!(r#"{{"type":"command","name":"{name}","command":"{cmd}"}}"#);
        let settings = |extra: &str, hooks: &[String]| {
            format!(r#"{{{extra}"hooks":{{"BeforeTool":[{{"hooks":[{}]}}]}}}}"#, hooks.join(","))
        };
        let mut parser = Gemini.parser();
        // The user switches off `noisy` wherever it comes from, the extension's included.
        let user = parser.parse(
            &file("/h/.gemini/settings.json", LayerKind::Own, None),
            settings(r#""hooksConfig":{"disabled":["noisy"]},"#, &[hook("guard", "g.sh"), hook("noisy", "n.sh")])
                .as_bytes(),
        );
        assert_eq!(commands(&user), ["g.sh"]);
        // The project's own switches reach only its own hooks.
        let project = parser.parse(
            &file("/w/.gemini/settings.json", LayerKind::Project, None),
            settings(
                r#""hooksConfig":{"enabled":false,"disabled":["guard","p2"]},"#,
                &[hook("p1", "p1.sh"), hook("p2", "p2.sh")],
            )
            .as_bytes(),
        );
        assert_eq!(commands(&project), ["p1.sh"]);
        assert_eq!(project.disable_all, Some(true), "the loader switches the project's gemini hooks off");
        let ext = parser.parse(
            &file("/e/hooks/hooks.json", LayerKind::Own, Some("/e")),
            settings(r#""hooksConfig":{"enabled":false},"#, &[hook("noisy", "n2.sh"), hook("guard", "g2.sh")])
                .as_bytes(),
        );
        assert_eq!(commands(&ext), ["g2.sh"], "the user's list reaches extensions; theirs is ignored");
        assert!(ext.warnings.iter().any(|w| w.contains("hooksConfig")), "{:?}", ext.warnings);
        // The user's `enabled: false` switches off every later file's hooks.
        let mut parser = Gemini.parser();
        parser.parse(&file("/h/.gemini/settings.json", LayerKind::Own, None), br#"{"hooksConfig":{"enabled":false}}"#);
        let later = parser.parse(
            &file("/e/hooks/hooks.json", LayerKind::Own, Some("/e")),
            settings("", &[hook("x", "x.sh")]).as_bytes(),
        );
        assert!(later.hooks.is_empty());
    }

    #[test]
    fn eleven_events_map_both_ways() {
        assert_eq!(EVENTS.len(), 11);
        for (n, e) in EVENTS {
            assert_eq!(event_of(n), Some(*e));
            assert_eq!(name_of(*e), Some(*n));
        }
        assert_eq!(event_of("PreToolUse"), None, "Claude Code's names are not Gemini's");
        assert_eq!(event_of("beforeTool"), None);
        assert_eq!(name_of(Event::PermissionRequest), None);
        assert!(can_block(Event::TurnStop) && !can_block(Event::SessionStart));
        assert!(waits(Event::BeforeToolSelection) && !waits(Event::Notification));
    }
}
