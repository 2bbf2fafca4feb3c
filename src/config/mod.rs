//! Reading configs (CONTRACT §3.1): the internal hook list every dialect produces, which files a
//! source reads, and how layers combine.
//!
//! - [`openharness`]: the `.oh/*.yaml` dialect and its validation.
//! - [`trust`]: the workspace-trust verdict.
//! - [`watch`]: noticing changed files for live reload.

pub mod openharness;
pub mod trust;
pub mod watch;

pub use openharness::parse_file;

use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::matcher::Matcher;
use crate::options::{Options, Source};
use std::path::{Path, PathBuf};
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
    /// A command hook with no shell syntax, split into words at load ([`crate::run::command::plain_words`]).
    pub argv: Option<Vec<String>>,
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

    pub fn total(&self) -> usize {
        self.0.iter().map(Vec::len).sum()
    }
}

/// The effective config after merging layers.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub disable_all_hooks: bool,
    pub hooks: EventHooks,
}

/// One file's (or the inline object's) settings; `None` means the key is absent, so an earlier
/// layer's value stands.
#[derive(Debug, Default)]
pub struct Layer {
    pub disable_all_hooks: Option<bool>,
    pub hooks: Option<EventHooks>,
}

impl Config {
    /// openHarness's shallow merge: a top-level key of a later layer replaces the earlier one whole.
    pub fn merge(layers: impl IntoIterator<Item = Layer>) -> Config {
        let mut config = Config::default();
        for layer in layers {
            if let Some(d) = layer.disable_all_hooks {
                config.disable_all_hooks = d;
            }
            if let Some(h) = layer.hooks {
                config.hooks = h;
            }
        }
        config
    }
}

/// The files a source reads, in merge order: the layer files (present or not, so that one
/// created later is noticed), or the `configPath` file. An inline config reads none.
pub fn config_files(options: &Options) -> Vec<PathBuf> {
    match &options.source {
        Source::Layers { user, project, local } => {
            let mut files = Vec::new();
            if *user {
                if let Some(home) = &options.home {
                    files.push(home.join(".oh").join("config.yaml"));
                }
            }
            if *project {
                files.push(options.cwd.join(".oh").join("config.yaml"));
            }
            if *local {
                files.push(options.cwd.join(".oh").join("config.local.yaml"));
            }
            files
        }
        Source::Path(p) => vec![p.clone()],
        Source::Inline(_) => Vec::new(),
    }
}

/// Reads and validates the config the options point at.
pub fn load(options: &Options) -> Result<Config> {
    match &options.source {
        Source::Inline(value) => {
            let layer = serde_path_to_error::deserialize(value).map_err(|e| {
                let path = e.path().to_string();
                openharness::position_error(None, None, &path, &e.into_inner().to_string())
            })?;
            Ok(Config::merge([layer]))
        }
        Source::Path(path) => {
            let text = read_regular_file(path).map_err(|e| io_error(path, &e))?;
            Ok(Config::merge([parse_file(path, &text)?]))
        }
        Source::Layers { .. } => {
            let mut layers = Vec::new();
            for path in config_files(options) {
                match read_regular_file(&path) {
                    Ok(text) => layers.push(parse_file(&path, &text)?),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io_error(&path, &e)),
                }
            }
            Ok(Config::merge(layers))
        }
    }
}

/// Reads a file that must be a regular file. A FIFO or device in a config's place would block
/// `oh_hooks_new` (and every reloading fire) forever: it is opened without blocking and refused.
pub fn read_regular_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn io_error(path: &Path, e: &std::io::Error) -> Error {
    Error {
        file: Some(path.display().to_string()),
        ..Error::new(ErrorCode::IoError, format!("cannot read config file {}: {e}", path.display()))
    }
}
