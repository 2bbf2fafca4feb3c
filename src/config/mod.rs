//! Reading configs (docs/config.md "Config reference"): the internal hook list every dialect produces, which files a
//! source reads, and how layers combine.
//!
//! - [`budget`]: the bounds on loading one config (expansion, regexes, time).
//! - [`layers`]: which sources are read (own vs project layers, the trust gate) and how they add up.
//! - [`openharness`]: the `.oh/*.yaml` dialect and its validation.
//!
//! Every other dialect's files are read by the same loader ([`layers`]) and parsed by the
//! dialect (`crate::dialect`).
//! - [`trust`]: the workspace-trust verdict.
//! - [`watch`]: noticing changed files for live reload.

pub mod budget;
pub mod layers;
pub mod openharness;
pub mod trust;
pub mod watch;

pub use openharness::parse_file;

use crate::dialect::Hook;
use crate::event::Event;
use crate::matcher::Matcher;
use std::path::Path;
use std::time::Duration;

/// What a hook runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handler {
    Command(String),
    Http(String),
    Prompt(String),
    /// The name of a function the host registers (`oh_hooks_register`).
    Callback(String),
}

/// One validated hook entry.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// Position in its event's configured list (the trace's `index`).
    pub index: usize,
    pub handler: Handler,
    pub matcher: Matcher,
    /// The `match` text as written, for display.
    pub match_text: Option<String>,
    pub timeout: Option<Duration>,
    /// Only meaningful for command hooks; ignored on the others, as the contract says.
    pub json_io: bool,
    /// A command hook with no shell syntax, split into words at load ([`crate::words::plain_words`]).
    pub argv: Option<Vec<String>>,
    /// `persistent: true | "eager"` on a command hook: a long-lived worker answers one envelope
    /// per line ([`crate::run::persistent`]).
    pub persistent: Option<Persistent>,
    /// Came from a project layer (trust gates it; [`layers`]).
    pub from_project: bool,
}

/// How a persistent command hook's workers are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Persistent {
    /// Start one worker when the config loads instead of on the first matching fire.
    pub eager: bool,
    /// At most this many processes of the hook at once; more concurrent fires queue.
    pub workers: usize,
}

impl Persistent {
    pub const DEFAULT_WORKERS: usize = 4;
    /// A config cannot ask for more processes than this per hook (docs/reliability.md "Reliability": no unbounded processes).
    pub const MAX_WORKERS: usize = 64;
}

impl HookSpec {
    pub fn type_name(&self) -> &'static str {
        match self.handler {
            Handler::Command(_) => "command",
            Handler::Http(_) => "http",
            Handler::Prompt(_) => "prompt",
            Handler::Callback(_) => "callback",
        }
    }
}

/// Hooks per event, indexed by [`Event::index`].
#[derive(Debug, Clone)]
pub struct EventHooks(Vec<Vec<HookSpec>>);

impl Default for EventHooks {
    fn default() -> EventHooks {
        EventHooks(vec![Vec::new(); Event::COUNT])
    }
}

impl EventHooks {
    pub fn of(&self, event: Event) -> &[HookSpec] {
        &self.0[event.index()]
    }

    pub fn list_mut(&mut self, event: Event) -> &mut Vec<HookSpec> {
        &mut self.0[event.index()]
    }

    pub fn total(&self) -> usize {
        self.0.iter().map(Vec::len).sum()
    }
}

/// Dialect hooks per event, indexed by [`Event::index`].
#[derive(Debug, Clone)]
pub struct DialectHooks(Vec<Vec<Hook>>);

impl Default for DialectHooks {
    fn default() -> DialectHooks {
        DialectHooks(vec![Vec::new(); Event::COUNT])
    }
}

impl DialectHooks {
    pub fn of(&self, event: Event) -> &[Hook] {
        &self.0[event.index()]
    }

    pub fn total(&self) -> usize {
        self.0.iter().map(Vec::len).sum()
    }

    pub(crate) fn push(&mut self, event: Event, hook: Hook) {
        self.0[event.index()].push(hook);
    }

    pub fn retain(&mut self, keep: impl Fn(&Hook) -> bool) {
        for list in &mut self.0 {
            list.retain(&keep);
        }
    }
}

/// The effective config: every loaded layer's hooks, added up ([`layers::load`]).
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub disable_all_hooks: bool,
    pub hooks: EventHooks,
    /// The other dialects' hooks per event, in walk order: the own layers' (dialect by dialect,
    /// in registry order), then the project layers'.
    pub dialects: DialectHooks,
    /// Said at load and repeated in every outcome: project files not loaded, suspicious matchers,
    /// skipped entries of a dialect's file.
    pub warnings: Vec<String>,
}

impl Config {
    /// This config without the project layers' hooks: what stays in force when trust is
    /// withdrawn but the reload that noticed it failed for another reason.
    pub fn without_project(&self) -> Config {
        let mut config = self.clone();
        for &event in Event::ALL {
            let list = config.hooks.list_mut(event);
            list.retain(|spec| !spec.from_project);
            for (i, spec) in list.iter_mut().enumerate() {
                spec.index = i;
            }
        }
        config.dialects.retain(|hook| !hook.from_project);
        config
    }
}

/// One file's (or the inline object's) settings; `None` means the key is absent.
#[derive(Debug, Default)]
pub struct Layer {
    pub disable_all_hooks: Option<bool>,
    pub hooks: Option<EventHooks>,
}

pub use crate::dialect::MAX_FILE_BYTES;

/// Reads a file that must be a regular file, at most [`MAX_FILE_BYTES`] + 1 bytes of it (the
/// parser then refuses it by its length). A FIFO or device in a config's place would block
/// `oh_hooks_new` (and every reloading fire) forever: it is opened without blocking and refused.
pub fn read_regular_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}
