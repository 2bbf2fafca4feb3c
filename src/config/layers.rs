//! Which config sources an engine reads and how they combine (docs/options.md "Options", docs/config.md "Trust and the kill switch", version 1.1).
//!
//! Every source is an [`Entry`]: where it is, whose it is ([`LayerKind`]) and which dialect it is
//! written in (openHarness's own, or one of `crate::dialect::registry::REGISTRY`, which says which files it
//! reads and parses them; this module does everything else). The **own** layers (the user's `<home>/.oh/config.yaml`, an inline `config`, a
//! `configPath` file) were written by the user or the host and always apply. The **project**
//! layers come from the repository in `cwd`, which may be hostile: they are read only when `cwd`
//! is trusted, and otherwise not even opened (only stat'ed, so the outcome can say they exist).
//! Hooks add up per event in entry order, the user's first; `disableAllHooks` in an own layer
//! disables everything, in a project layer only the project's hooks; among the layers of one
//! kind (and dialect) the last one that sets it decides (version 1.2). A plugin's hooks file
//! cannot set it at all.
//!
//! Every dialect's files go through this one loader, so every dialect gets the same read-error
//! rule (docs/reliability.md "Reliability", no read error is a verdict): a file that exists and cannot be read
//! is [`LoadFailure::Read`] — `io_error` at creation, the old config kept and the file retried on a
//! reload — never a file silently left out.
//!
//! A new dialect needs nothing here: its [`crate::dialect::Dialect::files`] are more entries.

use super::trust::Trust;
use super::{openharness, Config, DialectHooks, EventHooks, Layer};
use crate::dialect::registry::REGISTRY;
use crate::dialect::{self, Hook, Place, Plugin};
use crate::error::{Error, ErrorCode};
use crate::event::Event;
use crate::options::{Options, Source};
use std::path::{Path, PathBuf};

pub use crate::dialect::LayerKind;

/// Which dialect a source is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// openHarness's own `.oh/` files, the inline `config`, a `configPath` file.
    OpenHarness,
    /// The dialect at this position of [`REGISTRY`].
    Registered(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    File(PathBuf),
    /// The `config` option (its value is in the options).
    Inline,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub origin: Origin,
    pub kind: LayerKind,
    pub dialect: Dialect,
    /// A missing file is simply absent, except the `configPath` the host named.
    pub required: bool,
    /// A plugin's hooks file: its hooks get the plugin's variables, and it has no
    /// `disableAllHooks` (only the user's own settings and the host switch hooks off).
    pub plugin: Option<Plugin>,
    /// What a `configChange` envelope's `source` says when this file changed.
    pub change_source: Option<&'static str>,
    /// A directory of files ending with this ([`dialect::File::dir`]).
    pub dir: Option<&'static str>,
}

/// The sources the options name, in layer order.
pub fn entries(options: &Options) -> Vec<Entry> {
    let file = |path: PathBuf, kind| Entry {
        origin: Origin::File(path),
        kind,
        dialect: Dialect::OpenHarness,
        required: false,
        plugin: None,
        change_source: None,
        dir: None,
    };
    let mut list = match &options.source {
        Source::Layers { user, project, local } => {
            let mut list = Vec::new();
            if let (true, Some(home)) = (*user, &options.home) {
                list.push(file(home.join(".oh").join("config.yaml"), LayerKind::Own));
            }
            if *project {
                list.push(file(options.cwd.join(".oh").join("config.yaml"), LayerKind::Project));
            }
            if *local {
                list.push(file(options.cwd.join(".oh").join("config.local.yaml"), LayerKind::Project));
            }
            list
        }
        Source::Path(p) => vec![Entry { required: true, ..file(p.clone(), LayerKind::Own) }],
        Source::Inline(_) => vec![Entry { origin: Origin::Inline, ..file(PathBuf::new(), LayerKind::Own) }],
    };
    // Every dialect reads its user and project files by the same `layers` choice (`configPath`
    // and `config` replace only openHarness's own files).
    let (user, project, local) = match options.source {
        Source::Layers { user, project, local } => (user, project, local),
        _ => (true, true, true),
    };
    for (d, dialect) in REGISTRY.iter().enumerate() {
        let place = Place {
            cwd: &options.cwd,
            home: options.home.as_deref(),
            user,
            project,
            local,
            chosen: &options.dialects[d],
        };
        list.extend(dialect.files(&place).into_iter().map(|f| Entry {
            origin: Origin::File(f.path),
            kind: f.kind,
            dialect: Dialect::Registered(d),
            required: false,
            plugin: f.plugin,
            change_source: f.change_source,
            dir: f.dir,
        }));
    }
    list
}

/// The files among the entries: the watched ones.
pub fn files(options: &Options) -> Vec<PathBuf> {
    entries(options)
        .into_iter()
        .filter_map(|e| match e.origin {
            Origin::File(p) => Some(p),
            Origin::Inline => None,
        })
        .collect()
}

/// Why a load produced no config.
#[derive(Debug)]
pub enum LoadFailure {
    /// A file exists but could not be read right now (EMFILE, EACCES, EIO...): nothing about
    /// its content is known, so nothing may be concluded; the caller keeps what it had and
    /// reads again later.
    Read(Error),
    /// A file was read and is not a valid config.
    Invalid(Error),
}

impl LoadFailure {
    pub fn into_error(self) -> Error {
        match self {
            LoadFailure::Read(e) | LoadFailure::Invalid(e) => e,
        }
    }
}

/// Reads and combines the layers; `trust` decides whether the project layers are read at all.
pub fn load(options: &Options, trust: &Trust) -> Result<Config, LoadFailure> {
    let mut config = Config::default();
    // `disableAllHooks` per dialect and layer kind: the last layer that sets it decides.
    let mut disabled: Vec<(Dialect, LayerKind, bool)> = Vec::new();
    let mut set_disabled = |dialect, kind, value: Option<bool>| {
        if let Some(value) = value {
            disabled.retain(|(d, k, _)| (*d, *k) != (dialect, kind));
            disabled.push((dialect, kind, value));
        }
    };
    let mut layers: Vec<(LayerKind, EventHooks)> = Vec::new();
    let mut dialect_hooks: Vec<(LayerKind, usize, Event, Hook)> = Vec::new();
    // One parser per dialect per load, made when its first file is read.
    let mut parsers: Vec<Option<Box<dyn dialect::Parser>>> = REGISTRY.iter().map(|_| None).collect();
    let entries = entries(options);
    let also_own = also_own(&entries);
    for (entry, _) in entries.iter().zip(&also_own).filter(|(_, own)| !**own) {
        if let (LayerKind::Project, Trust::Untrusted(why), Origin::File(path)) = (entry.kind, trust, &entry.origin) {
            // lstat only: the file is not opened, so a symlink to a secret or a FIFO costs nothing.
            if std::fs::symlink_metadata(path).is_ok() {
                config.warnings.push(match entry.dialect {
                    Dialect::OpenHarness => format!("{} exists and was not loaded: {why}", path.display()),
                    Dialect::Registered(d) => format!(
                        "{} was not loaded: the project is not trusted (its {} hooks do not run)",
                        path.display(),
                        REGISTRY[d].title()
                    ),
                });
            }
            continue;
        }
        match entry.dialect {
            Dialect::OpenHarness => {
                let Some(layer) = parse_entry(options, entry)? else { continue };
                if let Some(hooks) = &layer.hooks {
                    config.warnings.extend(dialect_warnings(&entry.origin, hooks));
                }
                set_disabled(entry.dialect, entry.kind, layer.disable_all_hooks);
                if let Some(hooks) = layer.hooks {
                    layers.push((entry.kind, hooks));
                }
            }
            Dialect::Registered(d) => {
                let Origin::File(path) = &entry.origin else { continue };
                // A directory entry is each of its files, in name order (Copilot's `hooks/*.json`).
                let paths = match entry.dir {
                    None => vec![path.clone()],
                    Some(suffix) => directory_files(path, suffix, &mut config.warnings)?,
                };
                for path in &paths {
                    let Some(bytes) = read_entry(path, entry.required)? else { continue };
                    let file = dialect::File {
                        path: path.clone(),
                        kind: entry.kind,
                        plugin: entry.plugin.clone(),
                        change_source: entry.change_source,
                        dir: None,
                    };
                    // A bad entry (or a whole bad file) is skipped with a warning, as the harnesses do.
                    let parsed = parsers[d].get_or_insert_with(|| REGISTRY[d].parser()).parse(&file, &bytes);
                    config.warnings.extend(parsed.warnings);
                    if entry.plugin.is_some() {
                        if let Some(value) = parsed.disable_all {
                            config.warnings.push(format!(
                                "{}: `disableAllHooks: {value}` ignored: a plugin's hooks file cannot switch hooks off (only your own settings and the host can)",
                                path.display()
                            ));
                        }
                    } else {
                        set_disabled(entry.dialect, entry.kind, parsed.disable_all);
                    }
                    dialect_hooks.extend(parsed.hooks.into_iter().map(|(event, hook)| (entry.kind, d, event, hook)));
                }
            }
        }
    }
    let is_disabled = |dialect, kind| disabled.iter().any(|(d, k, v)| (*d, *k) == (dialect, kind) && *v);
    // An own layer's switch, of any dialect, turns every hook off.
    config.disable_all_hooks = disabled.iter().any(|(_, k, v)| *k == LayerKind::Own && *v);
    for &event in Event::ALL {
        let list = config.hooks.list_mut(event);
        for (kind, hooks) in &mut layers {
            if *kind == LayerKind::Project && is_disabled(Dialect::OpenHarness, LayerKind::Project) {
                continue;
            }
            if *kind == LayerKind::Project {
                hooks.list_mut(event).iter_mut().for_each(|spec| spec.from_project = true);
            }
            list.append(hooks.list_mut(event));
        }
        // The trace's `index` is the position in the combined list.
        for (i, spec) in list.iter_mut().enumerate() {
            spec.index = i;
        }
    }
    // The other dialects' hooks in walk order: the own files' (user settings, the host's files,
    // plugins) first, dialect by dialect, then the project's, each in file order.
    let mut hooks = DialectHooks::default();
    for want in [LayerKind::Own, LayerKind::Project] {
        for d in 0..REGISTRY.len() {
            if want == LayerKind::Project && is_disabled(Dialect::Registered(d), LayerKind::Project) {
                continue;
            }
            for (kind, dialect, event, hook) in &dialect_hooks {
                if (*kind, *dialect) == (want, d) {
                    let mut hook = hook.clone();
                    hook.dialect = d;
                    hook.from_project = want == LayerKind::Project;
                    hooks.push(*event, hook);
                }
            }
        }
    }
    config.dialects = hooks;
    Ok(config)
}

/// A file's bytes; `None` when it does not exist (and need not). A file that exists and cannot
/// be read right now is [`LoadFailure::Read`]: never "no hooks"; one that is not a regular file (a
/// FIFO, a directory) is [`LoadFailure::Invalid`].
/// A directory holds at most this many files of an entry (real ones hold a handful); more are
/// left out with a warning, so a hostile directory costs a bounded load.
pub const MAX_DIR_FILES: usize = 256;

/// The files of a directory entry whose names end with `suffix`, in name order. A missing
/// directory has none; one that exists and cannot be listed is [`LoadFailure::Read`] (no read
/// error is a verdict); an entry that is not a regular file is left out with a warning.
fn directory_files(dir: &Path, suffix: &str, warnings: &mut Vec<String>) -> Result<Vec<PathBuf>, LoadFailure> {
    let listing = match std::fs::read_dir(dir) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            warnings.push(format!("{} is not a directory; nothing in it was loaded", dir.display()));
            return Ok(Vec::new());
        }
        Err(e) => return Err(LoadFailure::Read(io_error(dir, &e))),
    };
    let mut names = Vec::new();
    for item in listing {
        let item = item.map_err(|e| LoadFailure::Read(io_error(dir, &e)))?;
        let name = item.file_name();
        if name.to_str().is_some_and(|n| n.ends_with(suffix)) {
            names.push(name);
        }
    }
    names.sort();
    if names.len() > MAX_DIR_FILES {
        warnings.push(format!(
            "{}: {} files, more than the {MAX_DIR_FILES} a hooks directory may have; the ones after {} in name order were not loaded",
            dir.display(),
            names.len(),
            names[MAX_DIR_FILES - 1].to_string_lossy()
        ));
        names.truncate(MAX_DIR_FILES);
    }
    let mut files = Vec::with_capacity(names.len());
    for name in names {
        let path = dir.join(name);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => files.push(path),
            Ok(_) => warnings.push(format!("{} is not a regular file; not loaded", path.display())),
            // Gone since the listing, or a dangling link: nothing to read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(LoadFailure::Read(io_error(&path, &e))),
        }
    }
    Ok(files)
}

fn read_entry(path: &Path, required: bool) -> Result<Option<Vec<u8>>, LoadFailure> {
    match super::read_regular_file(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound || e.kind() == std::io::ErrorKind::InvalidInput => {
            Err(LoadFailure::Invalid(io_error(path, &e)))
        }
        Err(e) => Err(LoadFailure::Read(io_error(path, &e))),
    }
}

/// A warning for each `match` that looks like another dialect's syntax (docs/reliability.md "Reliability").
fn dialect_warnings(origin: &Origin, hooks: &EventHooks) -> Vec<String> {
    let place = match origin {
        Origin::File(p) => p.display().to_string(),
        Origin::Inline => "the `config` option".to_string(),
    };
    let mut warnings = Vec::new();
    for &event in Event::ALL {
        for (i, spec) in hooks.of(event).iter().enumerate() {
            if let Some(hint) = spec.match_text.as_deref().and_then(crate::matcher::other_dialect_hint) {
                warnings.push(format!("{place} at `hooks.{event}[{i}].match`: {hint}"));
            }
        }
    }
    warnings
}

/// For each entry, whether it is a project file that is an own layer's file too (`cwd` is the
/// home directory): it is the user's, read once as such, not a second time as the project's.
/// Each directory is resolved (`realpath`) once, however many entries it holds: the project's
/// `config.yaml` and `config.local.yaml` share theirs, and the own files are resolved only
/// when some project file's directory exists.
fn also_own(entries: &[Entry]) -> Vec<bool> {
    /// `p`'s directory resolved, then its name; `dirs` holds the directories resolved so far.
    fn real<'a>(p: &'a Path, dirs: &mut Vec<(&'a Path, Option<PathBuf>)>) -> Option<PathBuf> {
        let dir = p.parent()?;
        let resolved = match dirs.iter().find(|(d, _)| *d == dir) {
            Some((_, r)) => r.clone(),
            None => {
                let r = std::fs::canonicalize(dir).ok();
                dirs.push((dir, r.clone()));
                r
            }
        };
        resolved.map(|d| d.join(p.file_name().unwrap_or_default()))
    }
    let mut dirs = Vec::new();
    let mut own: Option<Vec<Option<PathBuf>>> = None;
    let mut list = Vec::with_capacity(entries.len());
    for entry in entries {
        let mine = match &entry.origin {
            Origin::File(path) if entry.kind == LayerKind::Project => real(path, &mut dirs),
            _ => None,
        };
        let Some(mine) = mine else {
            list.push(false);
            continue;
        };
        let own = own.get_or_insert_with(|| {
            let files = entries.iter().filter_map(|e| match &e.origin {
                Origin::File(p) if e.kind == LayerKind::Own => Some(p),
                _ => None,
            });
            files.map(|p| real(p, &mut dirs)).collect()
        });
        list.push(own.iter().any(|r| r.as_ref() == Some(&mine)));
    }
    list
}

/// One openHarness entry's layer; `None` when its file does not exist.
fn parse_entry(options: &Options, entry: &Entry) -> Result<Option<Layer>, LoadFailure> {
    match &entry.origin {
        Origin::Inline => {
            let Source::Inline(value) = &options.source else { return Ok(None) };
            openharness::parse_value(value).map(Some).map_err(LoadFailure::Invalid)
        }
        Origin::File(path) => match read_entry(path, entry.required)? {
            Some(bytes) => openharness::parse_file(path, &bytes).map(Some).map_err(LoadFailure::Invalid),
            None => Ok(None),
        },
    }
}

pub fn io_error(path: &Path, e: &std::io::Error) -> Error {
    Error {
        file: Some(path.display().to_string()),
        ..Error::new(ErrorCode::IoError, format!("cannot read config file {}: {e}", path.display()))
    }
}
