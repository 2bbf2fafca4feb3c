//! Dialects (docs/dialects.md): the hooks other harnesses' users already wrote, run beside
//! openHarness's own by each harness's rules.
//!
//! A dialect is a folder of data and pure functions behind one trait, [`Dialect`]: the files it
//! reads and how their bytes become hooks, its event names, what its hooks see (stdin, variables,
//! the value a matcher tests), how long they may run, how an answer reads and how the answers of
//! one step combine. Everything with a side effect belongs to the engine and is the same for
//! every dialect: reading the files (trust gate, bounds, reload: `config/layers.rs`), running a
//! hook (one mechanism per way of running it: `run/dialect.rs`), the walk (`merge/`) and the
//! traces. The engine never names a dialect; it walks [`registry::REGISTRY`].
//!
//! Adding a dialect: a folder `src/dialect/<name>/` implementing [`Dialect`], and one line in
//! [`registry::REGISTRY`] (docs/dialects.md lists what else a new dialect may touch).
//!
//! openHarness's own `.oh/` hooks are the native dialect: their answer reader and precedence
//! are in [`openharness`] and give the same [`Answer`] and [`Decision`], but they do not
//! implement [`Dialect`] and are not in [`registry::REGISTRY`] (always on, no `dialect` in their traces,
//! one step per hook; docs/dialects.md "openHarness, the native dialect"). They are the first
//! step of each layer kind (docs/config.md "Merging").

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod openharness;
pub mod registry;

use crate::envelope::tools::HostTools;
use crate::envelope::Envelope;
use crate::event::Event;
use crate::matcher::claude::PermissionRule;
use crate::matcher::field::FieldMatcher;
use crate::outcome::Verdict;
use crate::response::Permission;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// No dialect hook waits longer than this, whatever its file says (as for openHarness hooks).
pub const MAX_TIMEOUT_SECS: f64 = 24.0 * 60.0 * 60.0;

/// The largest config file (of any dialect) that is parsed. Real ones are a few KiB; a parser's
/// memory grows with the text (an 18 MB YAML file took 350 MB before any budget applied), so the
/// loader reads at most one byte more than this and each parser refuses a longer file unparsed.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// A plugin's (or extension's) directory: its hooks file is an own layer, and its hooks get the
/// dialect's plugin variables (Claude Code: `CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plugin {
    pub root: PathBuf,
    pub data: Option<PathBuf>,
}

/// What the options say about one dialect (docs/options.md "Options": `<name>: true | {"files": [...],
/// "plugins": [...]}`, plus the dialect's own 1.1 spellings such as `claudePlugins`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chosen {
    /// `true`, or the object form: read the dialect's user and project files.
    pub on: bool,
    /// Own layers the host names (enterprise or managed files the engine never looks for).
    pub files: Vec<PathBuf>,
    pub plugins: Vec<Plugin>,
    /// The project directory the dialect's hooks are told (`CLAUDE_PROJECT_DIR`); `None`: `cwd`.
    pub project_dir: Option<PathBuf>,
}

/// An extra option key of a dialect (its 1.1 spelling) and what it sets in [`Chosen`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alias {
    /// A list of plugin directories (`claudePlugins`).
    Plugins,
    /// An absolute directory (`claudeProjectDir`).
    ProjectDir,
}

/// Whose a layer is, which decides whether trust gates it (docs/config.md "Trust and the kill switch").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// The user's and the host's: always read, hooks run in every directory.
    Own,
    /// The repository's in `cwd`: read only when `cwd` is trusted.
    Project,
}

/// Where a dialect looks for its files: what [`Dialect::files`] needs of the options.
pub struct Place<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    /// The `layers` option: the user, project and local files each read or not.
    pub user: bool,
    pub project: bool,
    pub local: bool,
    pub chosen: &'a Chosen,
}

/// One file a dialect reads, for the one loader.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    pub path: PathBuf,
    pub kind: LayerKind,
    /// A plugin's hooks file: its hooks get the plugin's variables; it cannot set
    /// `disableAllHooks` (only the user's own settings and the host switch hooks off).
    pub plugin: Option<Plugin>,
    /// What a `configChange` envelope's `source` says when this file changed (Claude Code's
    /// ConfigChange matcher tests it: `user_settings`, `project_settings`, `local_settings`).
    pub change_source: Option<&'static str>,
    /// `Some(suffix)`: `path` is a directory, and each file in it whose name ends with `suffix`
    /// is one file of this entry, in name order (Copilot's `hooks/*.json`). The loader lists it;
    /// the watcher notices a file added, removed or changed in it.
    pub dir: Option<&'static str>,
}

/// One file's contribution. A file the dialect rejects whole is no hooks and a warning.
#[derive(Debug, Default)]
pub struct Parsed {
    pub disable_all: Option<bool>,
    pub hooks: Vec<(Event, Hook)>,
    /// Each names the file, the place in it and why (a skipped entry, an ignored key).
    pub warnings: Vec<String>,
}

/// Parses the files of one load, one after another: state shared by one load's files (such as
/// a bound on the regexes they may compile) lives in the parser. Pure: no I/O, no traces.
pub trait Parser {
    fn parse(&mut self, file: &File, bytes: &[u8]) -> Parsed;
}

/// What a dialect hook runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Handler {
    /// Shell form (`args` absent: `sh -c command`, or directly when it has no shell syntax) or
    /// exec form (`args` present: no shell). `${VAR}` of the dialect's variables is replaced in
    /// the exec form's words.
    Command { command: String, args: Option<Vec<String>> },
    /// POST the hook's stdin JSON; `headers` values may interpolate `allowed_env_vars`.
    Http { url: String, headers: Vec<(String, String)>, allowed_env_vars: Vec<String> },
    /// Answered by the host function registered under `kind` (`prompt`, `agent`, `mcp_tool`),
    /// which gets the handler's own fields and the hook's stdin JSON.
    Callback { kind: &'static str, fields: Map<String, Value> },
}

/// One dialect hook, as parsed from its file: the common shape of every dialect's handlers.
#[derive(Debug, Clone)]
pub struct Hook {
    /// Its dialect's position in [`registry::REGISTRY`] (set by the loader).
    pub dialect: usize,
    pub handler: Handler,
    /// Tested against the value the dialect's view names for the event.
    pub matcher: FieldMatcher,
    /// The matcher as written (`None`: absent).
    pub matcher_text: Option<String>,
    /// A permission rule over the tool call (`Bash(git *)`): the hook runs only when it may match.
    pub if_rule: Option<PermissionRule>,
    pub if_text: Option<String>,
    /// As configured; `None` takes the dialect's default for the event ([`Dialect::timeout`]).
    pub timeout: Option<Duration>,
    /// Runs in the background and decides nothing.
    pub is_async: bool,
    /// A failure blocks instead of letting the action through (Claude Code's `onFailure: "block"`).
    pub fail_closed: bool,
    /// The file it came from.
    pub source: PathBuf,
    pub plugin: Option<Plugin>,
    /// Shell form with no shell syntax, split into words (run without `/bin/sh`).
    pub argv: Option<Vec<String>>,
    /// "Identical handlers run once": hooks of one fire with the same identity run once.
    pub identity: String,
    /// From a project layer (trust-gated): dropped when trust is withdrawn.
    pub from_project: bool,
    /// The dialect's own event the hook was written under when several of the dialect's events
    /// fire with one engine event (Cursor's `beforeShellExecution` fires with `preToolUse`;
    /// Copilot's PascalCase names): the hook sees the view's [`Variant`] of that name. `None`:
    /// the engine event's own view.
    pub event_name: Option<&'static str>,
    /// How many times per conversation the hook may keep the agent going (Cursor's
    /// `loop_limit`); `None`: no cap, or the dialect has none.
    pub loop_limit: Option<u64>,
    /// The directory the hook runs in (a relative one is under the engine's `cwd`); `None`: the
    /// engine's `cwd`.
    pub cwd: Option<PathBuf>,
    /// The handler's own environment, over the engine's and the view's variables (Gemini CLI's
    /// `env`).
    pub env: Vec<(String, String)>,
    /// Its group asks that the step's hooks run one after another (Gemini CLI's `sequential`;
    /// [`Dialect::sequential`] decides).
    pub sequential: bool,
    /// The handler's `name` where its dialect has one (Gemini CLI).
    pub name: Option<String>,
}

impl Hook {
    /// The trace's `type`.
    pub fn type_name(&self) -> &'static str {
        match &self.handler {
            Handler::Command { .. } => "command",
            Handler::Http { .. } => "http",
            Handler::Callback { kind, .. } => kind,
        }
    }

    /// What the hook runs, to name it in a reason (`denied by Claude Code hook `...``).
    pub fn what(&self) -> &str {
        match &self.handler {
            Handler::Command { command, .. } => command,
            Handler::Http { url, .. } => url,
            Handler::Callback { kind, .. } => kind,
        }
    }
}

/// Where a fire happens, for views and selection.
pub struct Site<'a> {
    pub cwd: &'a Path,
    pub home: Option<&'a Path>,
    /// The dialect's project directory ([`Chosen::project_dir`], else `cwd`).
    pub project_dir: &'a Path,
    /// The host's tools (option `tools`): a view shows a known tool under the dialect's own
    /// name and field names ([`crate::envelope::tools`], docs/envelope.md "Host tools").
    pub tools: &'a HostTools,
}

/// What a dialect's hooks see of one envelope, built from the one parsed [`Envelope`] (never a
/// second parse of its text: docs/envelope.md "One envelope").
#[derive(Debug, Clone, Default)]
pub struct View {
    /// The hook's stdin (and an HTTP hook's body): one line of JSON and a newline.
    pub stdin: String,
    /// The same, as fields: matchers and `if` rules read them.
    pub fields: Map<String, Value>,
    /// Variables every hook of the dialect gets besides the envelope's (`CLAUDE_PROJECT_DIR`);
    /// an HTTP hook's headers may interpolate them.
    pub vars: Vec<(&'static str, String)>,
    /// The dialect's other events this fire raises with the engine event (Cursor's
    /// tool-specific events, docs/envelope.md "Host tools"; Copilot's PascalCase payload), each with what
    /// its hooks see; a hook whose [`Hook::event_name`] is one of them gets that stdin.
    pub variants: Vec<Variant>,
}

/// What the hooks of one more of a dialect's events see in a fire (see [`View::variants`]).
#[derive(Debug, Clone, Default)]
pub struct Variant {
    pub event: &'static str,
    /// Empty: the view's own stdin (the variant of the engine event's own dialect event).
    pub stdin: String,
    /// The value its matchers test (`None`: the event has no matcher).
    pub matcher_value: Option<String>,
}

impl View {
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    pub fn tool_input(&self) -> Option<&Map<String, Value>> {
        self.fields.get("tool_input").and_then(Value::as_object)
    }

    /// The variant of the dialect event `name`, when this fire raises it.
    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.event == name)
    }

    /// The stdin `hook` gets: its event's variant's, else the view's own.
    pub fn stdin_for(&self, hook: &Hook) -> &str {
        match hook.event_name.and_then(|n| self.variant(n)) {
            Some(v) if !v.stdin.is_empty() => &v.stdin,
            _ => &self.stdin,
        }
    }
}

/// How a hook was run: what [`Raw`]'s fields mean depends on it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Via {
    #[default]
    Command,
    /// An HTTP hook whose server answered with a 2xx status.
    Http { status: u16 },
    /// A host callback that answered (its answer is `stdout`).
    Callback,
}

/// What happened when a hook ran, in the terms an answer reader needs. A mechanism (command,
/// HTTP, callback) fills it in; the dialect reads it ([`Dialect::read`]).
#[derive(Debug, Default)]
pub struct Raw<'a> {
    pub via: Via,
    /// The exit code; `None` when the hook did not start, was killed or timed out.
    pub exit: Option<i32>,
    /// Why the hook produced no answer (spawn failure, timeout, signal, HTTP error, no callback).
    pub failed: Option<String>,
    pub timed_out: bool,
    /// Empty when it overflowed.
    pub stdout: &'a [u8],
    pub stderr: &'a [u8],
    /// The answer was larger than `maxOutputBytes` and was not read.
    pub overflow: bool,
    /// `maxOutputBytes`, to say so.
    pub max_output_bytes: usize,
    /// The hook's [`Hook::fail_closed`].
    pub fail_closed: bool,
    /// Names the hook in a reason when nothing better is at hand.
    pub name: &'a str,
}

/// One dialect hook's answer, in the outcome's terms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// Blocks the event (or, on a stop event, the agent must not stop yet).
    pub block: bool,
    /// An openHarness hook's top-level `decision: "allow"`: its trace's `result` is `allow`, and
    /// it decides nothing (docs/config.md "Merging": it does not stop the walk).
    pub allow: bool,
    pub permission: Option<Permission>,
    pub reason: Option<String>,
    pub context: Option<String>,
    pub updated_input: Option<Value>,
    pub updated_prompt: Option<String>,
    pub updated_permissions: Option<Value>,
    pub interrupt: bool,
    /// `continue: false`: its stop reason (else its reason, else empty).
    pub stop: Option<String>,
    pub system_message: Option<String>,
    /// Why this answer was a failure (the action went through unless `block`).
    pub failure: Option<String>,
    /// Outcome keys with no 1.1 equivalent, under the dialect's names (`llmRequest`, …).
    pub extra: Map<String, Value>,
    /// When the hook finished (set by the run path): a dialect whose harness keeps the answer
    /// of the hook that finished last (Codex's rewrite) merges by it.
    pub finished: Option<std::time::Instant>,
}

impl Answer {
    /// The trace's `result`.
    pub fn label(&self) -> Verdict {
        match (self.block, self.permission) {
            (true, _) | (_, Some(Permission::Deny)) => Verdict::Deny,
            (_, Some(p)) => p.into(),
            _ if self.allow => Verdict::Allow,
            _ => Verdict::None,
        }
    }
}

/// One step's combined answer: what the walk (`merge/`) takes from a dialect, one step at a
/// time, and what the walk ends with (`Walk::finish`: the outcome's decision).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Decision {
    /// The event is blocked (or, on a stop event, the agent must not stop yet).
    pub block: bool,
    /// `stop` ends the walk on this event (the dialect's hooks could block it).
    pub stop_ends_walk: bool,
    pub permission: Option<Permission>,
    pub reason: Option<String>,
    pub contexts: Vec<String>,
    pub updated_input: Option<Value>,
    pub updated_prompt: Option<String>,
    pub updated_permissions: Option<Value>,
    pub interrupt: bool,
    pub stop: Option<String>,
    pub system_messages: Vec<String>,
    /// Outcome keys with no 1.1 equivalent (the last answer's value of each wins).
    pub extra: Map<String, Value>,
    /// How the walk weighs this step against the others.
    pub precedence: Precedence,
}

/// How the walk takes a step's [`Decision`] (docs/config.md "Merging"). Either way a block ends
/// the walk and a rewrite reaches the later steps; they differ in what an allow does and which
/// reason a decision keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precedence {
    /// Every registered dialect's steps: a block keeps the context gathered so far; an allow,
    /// ask or defer is remembered and ranked against the other steps' (defer > ask > allow,
    /// the first of a rank keeping its reason), so a later step's deny still denies.
    #[default]
    Ranked,
    /// openHarness's own hooks, one hook a step (`openharness::merge`): a deny drops the context
    /// gathered so far; a permission `allow` ends the walk as allowed, with no reason; an `ask`
    /// is remembered; the first reason seen is kept.
    FirstDecides,
}

/// A dialect: data and pure functions. Only the engine has side effects; a dialect's methods
/// never read files, start processes, write traces or keep state between calls.
pub trait Dialect: Send + Sync {
    /// The option name, the traces' `dialect`, the `oh-hooks check --<name>` flag (`"claude"`).
    fn name(&self) -> &'static str;

    /// The harness's name in warnings and reasons (`"Claude Code"`).
    fn title(&self) -> &'static str;

    /// Option keys of 1.1 that set parts of this dialect's option (`claudePlugins`). Read by the
    /// options parser once per engine.
    fn aliases(&self) -> &'static [(&'static str, Alias)] {
        &[]
    }

    /// The files to read, in layer order (own before project within each kind's order), present
    /// or not: a file created later is noticed by the watcher. Called by the loader and the
    /// watcher; must not touch the file system (the loader applies trust, lstat, bounds).
    fn files(&self, place: &Place) -> Vec<File>;

    /// A parser for one load's files. Called by the loader once per load.
    fn parser(&self) -> Box<dyn Parser>;

    /// The dialect's name of an engine event (`turnStop` → `Stop`); `None`: it has none.
    fn event_name(&self, event: Event) -> Option<&'static str>;

    /// The engine event of one of the dialect's event names.
    fn event(&self, name: &str) -> Option<Event>;

    /// Every event name of the dialect, for a message about a name it does not have (an
    /// envelope's `dialect` event, docs/envelope.md "Dialect event names"). Default: its name
    /// of each engine event.
    fn event_names(&self) -> Vec<&'static str> {
        Event::ALL.iter().filter_map(|e| self.event_name(*e)).collect()
    }

    /// The tool kinds a tool-specific event of the dialect fires for (Cursor's
    /// `beforeShellExecution`: shell), so that an envelope naming it must name a tool of such a
    /// kind; empty: the event fires for any tool, or has none.
    fn event_kinds(&self, _name: &str) -> &'static [crate::envelope::tools::Kind] {
        &[]
    }

    /// Whether this dialect's hooks may block `event` (docs/dialects.md): where openHarness's
    /// cannot, `fire` waits for these hooks all the same. Asked by the engine's fire path.
    fn can_block(&self, event: Event) -> bool;

    /// The variables the dialect sets for its hooks: the host's values of these never reach a
    /// hook. Read once at engine creation.
    fn variables(&self) -> &'static [&'static str];

    /// What this dialect's hooks see of `envelope`. Called by the fire path once per fire that
    /// has a hook of this dialect (and again after a rewrite); pure.
    fn view(&self, envelope: &Envelope, site: &Site) -> View;

    /// Which of `hooks` (this dialect's on `event`, in configuration order) run for this view:
    /// their positions in `hooks` (their matchers, their `if` rules). Identical handlers are
    /// dropped by the engine afterwards ([`Hook::identity`]). Called by the fire path once per
    /// fire; pure.
    fn select(&self, event: Event, hooks: &[&Hook], view: &View, site: &Site) -> Vec<usize>;

    /// How long `hook` may run on `event` (its own timeout, else the dialect's default).
    fn timeout(&self, hook: &Hook, event: Event) -> Duration;

    /// Variables of this hook besides the view's (a plugin's root); `${NAME}` of these and of
    /// the view's is replaced in an exec-form command's words.
    fn hook_vars(&self, _hook: &Hook) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// The shell a command hook without `args` runs in, with `-c`, when the harness uses the
    /// user's shell rather than `/bin/sh` (Codex); `env` reads the hooks' environment (options
    /// `env` over the host's). `None`: `/bin/sh -c`, or directly when the command is plain words.
    fn shell(&self, _env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        None
    }

    /// The program and arguments a command hook runs on this view, when the dialect decides
    /// them itself (Gemini CLI: `bash -c` with the view's variables expanded in the command);
    /// `None`: the engine's shell form or exec form. Pure.
    fn command(&self, _hook: &Hook, _view: &View) -> Option<Vec<String>> {
        None
    }

    /// Whether one step's `hooks` (those selected, in order) run one after another instead of
    /// in parallel, each with its own timeout and turn. Pure.
    fn sequential(&self, _event: Event, _hooks: &[&Hook]) -> bool {
        false
    }

    /// In a sequential step, what the next hook sees after a hook gave `answer` (`None`: the
    /// same view). Pure.
    fn next_view(&self, _event: Event, _view: &View, _answer: &Answer) -> Option<View> {
        None
    }

    /// Reads one hook's answer. PURE: no I/O, no traces, no state; on top of the one tolerant
    /// reader (`response/json.rs`). Called by the run path once per hook that ran.
    fn read(&self, event: Event, hook: &Hook, raw: &Raw) -> Answer;

    /// [`Dialect::read`] for a dialect whose reading depends on the fire as well (Cursor: a
    /// follow-up counts only under the hook's `loop_limit` against the envelope's `loopCount`).
    /// PURE. The run path calls this one.
    fn read_in(&self, event: Event, hook: &Hook, raw: &Raw, _view: &View) -> Answer {
        self.read(event, hook, raw)
    }

    /// Combines one step's answers (in configuration order). PURE. Called once per step.
    fn merge(&self, event: Event, answers: &[Answer]) -> Decision;

    /// A rewritten tool input as the host names its fields (the dialect's table in
    /// [`crate::envelope::tools`] and the host's `tools`, docs/envelope.md "Host tools"): the one place a
    /// rewrite goes back to the host's names. Pure.
    fn to_host_input(&self, _envelope: &Envelope, _tools: &HostTools, input: Value) -> Value {
        input
    }
}

/// Why a callback hook did not run: no host function of its kind.
pub fn no_callback(dialect: &dyn Dialect, kind: &str) -> String {
    format!("no host callback registered for `{kind}`; the {} {kind} hook was skipped", dialect.title())
}

/// What a JSON value is, in the words every dialect's config warnings use ("a list", "an object").
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A hook entry's optional string field, as every dialect's parser reads one: absent or `null` is
/// `None`; a NUL byte (no command or path can carry one) or another type is an error naming the key.
pub(crate) fn string_field(h: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match h.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.contains('\0') => Err(format!("`{key}` contains a NUL byte")),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("`{key}` is {}, expected a string", kind(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::registry::{by_name, REGISTRY};
    use super::*;

    /// What every registered dialect must keep, whoever adds the next one: a name that is an
    /// option, a flag and a trace's `dialect` (so unique, lowercase, not an engine option), and
    /// an event table whose engine → dialect → engine round trip is the identity.
    #[test]
    fn the_registry_keeps_its_invariants() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|d| d.name()).collect();
        for name in &names {
            assert!(!name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase()), "{name:?}");
            assert!(by_name(name).is_some_and(|(_, d)| d.name() == *name));
        }
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "two dialects share a name");
        let options = crate::options::OPTION_NAMES.clone();
        let mut unique = options.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), options.len(), "an option name twice: {options:?}");
        for dialect in REGISTRY {
            assert!(!dialect.title().is_empty());
            for &event in Event::ALL {
                if let Some(name) = dialect.event_name(event) {
                    assert_eq!(dialect.event(name), Some(event), "{}: {name}", dialect.name());
                }
            }
        }
    }
}
