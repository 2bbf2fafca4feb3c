//! Engine options (docs/options.md "Options"): parsed from the JSON given to `oh_hooks_new`.

use crate::dialect::registry::REGISTRY;
use crate::dialect::{Alias, Chosen, Plugin};
use crate::envelope::tools::{HostTool, HostTools, Kind};
use crate::error::{Error, ErrorCode, Result};
use crate::suggest::did_you_mean;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

const KEYS: &[&str] = &[
    "cwd",
    "home",
    "layers",
    "configPath",
    "config",
    "trusted",
    "defaultTimeoutMs",
    "env",
    "strict",
    "maxOutputBytes",
    "waitNonBlocking",
    "watch",
    "httpProxy",
    "shutdownTimeoutMs",
    "tools",
];

/// Every option key the engine accepts: the one list the bindings' option types and every
/// docs/options.md's option table are checked against (tests/it/option_lists.rs). The engine's own, then
/// each registered dialect's name and its 1.1 spellings (`claude`, `claudePlugins`, …).
pub static OPTION_NAMES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut names = KEYS.to_vec();
    for dialect in REGISTRY {
        names.push(dialect.name());
        names.extend(dialect.aliases().iter().map(|(key, _)| *key));
    }
    names
});

/// Where the hooks come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// openHarness's layers, in order: user, project, local (each may be switched off).
    Layers { user: bool, project: bool, local: bool },
    /// One YAML or JSON file instead of the layers.
    Path(PathBuf),
    /// An inline config object; never watched for changes.
    Inline(Value),
}

#[derive(Debug, Clone)]
pub struct Options {
    /// Absolute; the directory hooks run in and project layers are read from.
    pub cwd: PathBuf,
    /// Base of the user layer and the trust store; `None` when `$HOME` is unset too.
    pub home: Option<PathBuf>,
    pub source: Source,
    pub trusted: Option<bool>,
    pub default_timeout: Duration,
    pub env: Vec<(String, String)>,
    pub strict: bool,
    pub max_output_bytes: usize,
    pub wait_non_blocking: bool,
    /// Each registered dialect's option, by its position in the registry (docs/dialects.md).
    pub dialects: Vec<Chosen>,
    /// `false`: the files are read at creation and by an explicit reload only.
    pub watch: bool,
    /// The `httpProxy` option, validated; `None`: HTTP hooks connect directly.
    pub http_proxy: Option<ureq::Proxy>,
    /// How long `oh_hooks_free` lets background hooks and asynchronous fires run before it
    /// cancels them (docs/reliability.md "Reliability": a free held for hours by queued hooks).
    pub shutdown_timeout: Duration,
    /// The host's tools (option `tools` over Claude Code's names): how each dialect sees them.
    pub tools: HostTools,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            home: default_home(std::env::var_os("HOME"), passwd_home),
            source: Source::Layers { user: true, project: true, local: true },
            trusted: None,
            default_timeout: Duration::from_millis(10_000),
            env: Vec::new(),
            strict: false,
            max_output_bytes: 1024 * 1024,
            wait_non_blocking: false,
            dialects: vec![Chosen::default(); REGISTRY.len()],
            watch: true,
            http_proxy: None,
            shutdown_timeout: Duration::from_millis(5_000),
            tools: HostTools::default(),
        }
    }
}

/// `$HOME` when it is an absolute path, else the password database's entry for the process's
/// user. An empty or relative `$HOME` must not become a home: `<home>/.oh/trusted-dirs.json`
/// would then be looked up relative to the process's directory, usually missing, and a missing
/// store trusts every project.
fn default_home(env: Option<std::ffi::OsString>, passwd: impl FnOnce() -> Option<PathBuf>) -> Option<PathBuf> {
    env.map(PathBuf::from).filter(|h| h.is_absolute()).or_else(passwd)
}

/// The home directory of the process's real user in the password database, if it has one.
fn passwd_home() -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut buf = vec![0u8; 4096];
    loop {
        // SAFETY: getpwuid_r writes into `pwd` and `buf` (whose length it is told) and sets
        // `result` to `&pwd` or NULL; pw_dir then points into `buf`, read before `buf` changes.
        unsafe {
            let mut pwd: libc::passwd = std::mem::zeroed();
            let mut result: *mut libc::passwd = std::ptr::null_mut();
            let rc = libc::getpwuid_r(libc::getuid(), &mut pwd, buf.as_mut_ptr().cast(), buf.len(), &mut result);
            if rc == libc::ERANGE && buf.len() < 1 << 20 {
                buf.resize(buf.len() * 2, 0);
                continue;
            }
            if rc != 0 || result.is_null() || pwd.pw_dir.is_null() {
                return None;
            }
            let dir = std::ffi::CStr::from_ptr(pwd.pw_dir);
            let path = PathBuf::from(std::ffi::OsStr::from_bytes(dir.to_bytes()));
            return path.is_absolute().then_some(path);
        }
    }
}

fn invalid(key: &str, message: impl std::fmt::Display) -> Error {
    Error { path: Some(key.to_string()), ..Error::new(ErrorCode::InvalidOptions, format!("option `{key}`: {message}")) }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn want_bool(key: &str, v: &Value) -> Result<bool> {
    v.as_bool().ok_or_else(|| invalid(key, format!("expected true or false, found {}", type_name(v))))
}

fn want_str<'a>(key: &str, v: &'a Value) -> Result<&'a str> {
    v.as_str().ok_or_else(|| invalid(key, format!("expected a string, found {}", type_name(v))))
}

fn want_positive(key: &str, v: &Value) -> Result<u64> {
    match v.as_u64() {
        Some(n) if n > 0 => Ok(n),
        _ => Err(invalid(key, format!("expected a positive integer, found {v}"))),
    }
}

/// `path` made absolute. One with `..` in it is resolved as the OS resolves it (`app/..` is the
/// parent of wherever `app` points), so that messages name the real file
/// (`/work/badproject/.oh/config.yaml`, not `/work/x/app/../../badproject/.oh/config.yaml`); a
/// path that does not exist keeps a lexical normalisation, for its error message.
fn absolute(path: &str) -> PathBuf {
    let p = Path::new(path);
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")).join(p)
    };
    if !p.components().any(|c| c == std::path::Component::ParentDir) {
        return p;
    }
    std::fs::canonicalize(&p).unwrap_or_else(|_| {
        let mut out = PathBuf::new();
        for c in p.components() {
            match c {
                std::path::Component::ParentDir => {
                    out.pop();
                }
                std::path::Component::CurDir => {}
                c => out.push(c),
            }
        }
        out
    })
}

impl Options {
    /// Parses the options JSON (`None`: all defaults). Relative paths are taken from the
    /// process's working directory at this call.
    pub fn parse(json: Option<&str>) -> Result<Options> {
        let mut options = Options::default();
        let Some(json) = json else { return Ok(options) };
        let value: Value = serde_json::from_str(json).map_err(|e| {
            Error::new(
                ErrorCode::InvalidOptions,
                format!("options are not valid JSON ({e}); expected a JSON object such as {{\"cwd\": \"/project\"}}"),
            )
        })?;
        let map = match value {
            Value::Null => return Ok(options),
            Value::Object(map) => map,
            other => {
                return Err(Error::new(
                    ErrorCode::InvalidOptions,
                    format!("options must be a JSON object, found {}", type_name(&other)),
                ))
            }
        };
        options.apply(map)?;
        Ok(options)
    }

    fn apply(&mut self, map: Map<String, Value>) -> Result<()> {
        let mut layers: Option<(bool, bool, bool)> = None;
        let mut config_path: Option<PathBuf> = None;
        let mut inline: Option<Value> = None;
        for (key, v) in map {
            match key.as_str() {
                "cwd" => {
                    let cwd = absolute(want_str(&key, &v)?);
                    if !cwd.is_dir() {
                        return Err(invalid(
                            &key,
                            format!("`{}` is not a directory; expected an existing directory", cwd.display()),
                        ));
                    }
                    self.cwd = cwd;
                }
                "home" => {
                    let home = want_str(&key, &v)?;
                    if !Path::new(home).is_absolute() {
                        return Err(invalid(
                            &key,
                            format!("`{home}` is not an absolute path; expected one such as \"/home/me\" (`~` is not expanded)"),
                        ));
                    }
                    self.home = Some(PathBuf::from(home));
                }
                "layers" => {
                    let items = v.as_array().ok_or_else(|| {
                        invalid(
                            &key,
                            format!("expected an array of \"user\", \"project\", \"local\", found {}", type_name(&v)),
                        )
                    })?;
                    let mut set = (false, false, false);
                    for item in items {
                        match item.as_str() {
                            Some("user") => set.0 = true,
                            Some("project") => set.1 = true,
                            Some("local") => set.2 = true,
                            _ => {
                                return Err(invalid(
                                    &key,
                                    format!("unknown layer {item}; expected \"user\", \"project\" or \"local\""),
                                ))
                            }
                        }
                    }
                    layers = Some(set);
                }
                "configPath" => config_path = Some(absolute(want_str(&key, &v)?)),
                "config" => {
                    if !v.is_object() {
                        return Err(invalid(
                            &key,
                            format!("expected a config object (the shape of a config file), found {}", type_name(&v)),
                        ));
                    }
                    inline = Some(v);
                }
                "trusted" => self.trusted = Some(want_bool(&key, &v)?),
                "defaultTimeoutMs" => self.default_timeout = Duration::from_millis(want_positive(&key, &v)?),
                "shutdownTimeoutMs" => self.shutdown_timeout = Duration::from_millis(want_positive(&key, &v)?),
                "env" => {
                    let obj = v.as_object().ok_or_else(|| {
                        invalid(&key, format!("expected an object of strings, found {}", type_name(&v)))
                    })?;
                    for (name, value) in obj {
                        let value = value.as_str().ok_or_else(|| {
                            invalid(&key, format!("the value of `{name}` must be a string, found {}", type_name(value)))
                        })?;
                        if name.is_empty() || name.contains('=') || name.contains('\0') {
                            return Err(invalid(&key, format!("`{name}` is not a valid variable name; expected a non-empty name without `=` or NUL")));
                        }
                        if value.contains('\0') {
                            return Err(invalid(
                                &key,
                                format!("the value of `{name}` contains a NUL byte, which no environment can hold"),
                            ));
                        }
                        self.env.push((name.clone(), value.to_string()));
                    }
                }
                "strict" => self.strict = want_bool(&key, &v)?,
                "maxOutputBytes" => {
                    self.max_output_bytes = usize::try_from(want_positive(&key, &v)?).unwrap_or(usize::MAX)
                }
                "waitNonBlocking" => self.wait_non_blocking = want_bool(&key, &v)?,
                "tools" => self.tools = host_tools(&key, &v)?,
                "watch" => self.watch = want_bool(&key, &v)?,
                "httpProxy" => {
                    let url = want_str(&key, &v)?;
                    let proxy = ureq::Proxy::new(url).map_err(|e| {
                        invalid(
                            &key,
                            format!(
                                "`{url}` is not a proxy URL ({e}); expected one such as \"http://proxy.example:3128\""
                            ),
                        )
                    })?;
                    self.http_proxy = Some(proxy);
                }
                _ if self.dialect_option(&key, &v)? => {}
                _ => {
                    return Err(Error {
                        path: Some(key.clone()),
                        ..Error::new(
                            ErrorCode::InvalidOptions,
                            format!(
                                "unknown option `{key}`{}; expected one of: {}",
                                did_you_mean(&key, &OPTION_NAMES),
                                OPTION_NAMES.join(", ")
                            ),
                        )
                    })
                }
            }
        }
        let given = [layers.is_some(), config_path.is_some(), inline.is_some()];
        if given.iter().filter(|g| **g).count() > 1 {
            let which = if inline.is_some() { "config" } else { "configPath" };
            return Err(invalid(which, "`config`, `configPath` and `layers` are exclusive; give one of them"));
        }
        self.source = if let Some(path) = config_path {
            Source::Path(path)
        } else if let Some(value) = inline {
            Source::Inline(value)
        } else if let Some((user, project, local)) = layers {
            Source::Layers { user, project, local }
        } else {
            Source::Layers { user: true, project: true, local: true }
        };
        Ok(())
    }
}

impl Options {
    /// A dialect's option (`claude: true | {"files": [...], "plugins": [...]}`) or one of its 1.1
    /// spellings (`claudePlugins`, `claudeProjectDir`); `false`: `key` is no dialect's.
    fn dialect_option(&mut self, key: &str, v: &Value) -> Result<bool> {
        for (d, dialect) in REGISTRY.iter().enumerate() {
            let chosen = &mut self.dialects[d];
            if key == dialect.name() {
                match v {
                    Value::Object(map) => {
                        let expected = "expected true, false or {\"files\": [paths], \"plugins\": [directories]}";
                        if let Some(other) = map.keys().find(|k| *k != "files" && *k != "plugins") {
                            return Err(invalid(key, format!("unknown key `{other}`; {expected}")));
                        }
                        chosen.on = true;
                        if let Some(files) = map.get("files") {
                            chosen.files = paths(key, files)?;
                        }
                        if let Some(list) = map.get("plugins") {
                            chosen.plugins.extend(plugins(key, list)?);
                        }
                    }
                    _ => {
                        chosen.on = v.as_bool().ok_or_else(|| {
                            invalid(
                                key,
                                format!(
                                    "expected true or false (or an object with `files` and `plugins`), found {}",
                                    type_name(v)
                                ),
                            )
                        })?
                    }
                }
                return Ok(true);
            }
            match dialect.aliases().iter().find(|(name, _)| *name == key).map(|(_, alias)| *alias) {
                Some(Alias::Plugins) => chosen.plugins.extend(plugins(key, v)?),
                Some(Alias::ProjectDir) => chosen.project_dir = Some(absolute(want_str(key, v)?)),
                None => continue,
            }
            return Ok(true);
        }
        Ok(false)
    }
}

/// A dialect's `files`: a list of paths (made absolute).
fn paths(key: &str, v: &Value) -> Result<Vec<PathBuf>> {
    let items =
        v.as_array().ok_or_else(|| invalid(key, format!("`files` must be a list of paths, found {}", type_name(v))))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = item.as_str().ok_or_else(|| {
                invalid(key, format!("`files` entry {i} must be a string naming a file, found {}", type_name(item)))
            })?;
            if path.contains('\0') {
                return Err(invalid(key, format!("`files` entry {i} contains a NUL byte")));
            }
            Ok(absolute(path))
        })
        .collect()
}

/// `claudePlugins` (and a dialect's `plugins`): a list of plugin directories, each a string or
/// `{"root": dir, "data": dir}`.
fn plugins(key: &str, v: &Value) -> Result<Vec<Plugin>> {
    let expected = "expected a list of plugin directories, each a string or {\"root\": dir, \"data\": dir}";
    let items = v.as_array().ok_or_else(|| invalid(key, format!("{expected}, found {}", type_name(v))))?;
    let dir = |value: &Value, what: &str| -> Result<PathBuf> {
        let path = absolute(value.as_str().ok_or_else(|| {
            invalid(key, format!("{what} must be a string naming a directory, found {}", type_name(value)))
        })?);
        if path.as_os_str().as_encoded_bytes().contains(&0) {
            return Err(invalid(key, format!("{what} contains a NUL byte")));
        }
        Ok(path)
    };
    let mut plugins = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let plugin = match item {
            Value::String(_) => Plugin { root: dir(item, &format!("entry {i}"))?, data: None },
            Value::Object(map) => {
                if let Some(other) = map.keys().find(|k| *k != "root" && *k != "data") {
                    return Err(invalid(key, format!("entry {i} has unknown key `{other}`; {expected}")));
                }
                let root =
                    map.get("root").ok_or_else(|| invalid(key, format!("entry {i} has no `root`; {expected}")))?;
                Plugin {
                    root: dir(root, &format!("entry {i}'s `root`"))?,
                    data: map.get("data").map(|d| dir(d, &format!("entry {i}'s `data`"))).transpose()?,
                }
            }
            other => return Err(invalid(key, format!("entry {i} is {}; {expected}", type_name(other)))),
        };
        if !plugin.root.is_dir() {
            return Err(invalid(
                key,
                format!(
                    "plugin directory `{}` is not a directory; expected an existing directory",
                    plugin.root.display()
                ),
            ));
        }
        plugins.push(plugin);
    }
    Ok(plugins)
}

/// `tools`: `{"<host tool name>": "<kind>" | {"kind": "<kind>", "fields": {"<canonical>": "<host
/// field>"}}}` (docs/envelope.md "Host tools").
fn host_tools(key: &str, v: &Value) -> Result<HostTools> {
    let kinds = Kind::names();
    let shape = "{\"<tool name>\": \"<kind>\" or {\"kind\": \"<kind>\", \"fields\": {\"<canonical field>\": \"<your field>\"}}}";
    let obj =
        v.as_object().ok_or_else(|| invalid(key, format!("expected an object {shape}, found {}", type_name(v))))?;
    let kind_of = |name: &str, k: &Value| -> Result<Kind> {
        let text = k.as_str().ok_or_else(|| {
            invalid(
                key,
                format!(
                    "tool `{name}`: the kind must be a string, one of {}; found {}",
                    kinds.join(", "),
                    type_name(k)
                ),
            )
        })?;
        Kind::from_name(text).ok_or_else(|| {
            invalid(
                key,
                format!(
                    "tool `{name}`: unknown kind `{text}`{}; expected one of {}",
                    did_you_mean(text, &kinds),
                    kinds.join(", ")
                ),
            )
        })
    };
    let mut tools = HostTools::default();
    for (name, entry) in obj {
        if name.is_empty() {
            return Err(invalid(key, "a tool name is empty; expected the host's name of the tool"));
        }
        let tool = match entry {
            Value::String(_) => HostTool { kind: kind_of(name, entry)?, fields: Vec::new() },
            Value::Object(map) => {
                if let Some(other) = map.keys().find(|k| *k != "kind" && *k != "fields") {
                    return Err(invalid(
                        key,
                        format!(
                            "tool `{name}` has unknown key `{other}`{}; expected `kind` and `fields`",
                            did_you_mean(other, &["kind", "fields"])
                        ),
                    ));
                }
                let kind = kind_of(
                    name,
                    map.get("kind").ok_or_else(|| {
                        invalid(key, format!("tool `{name}` has no `kind`; expected one of {}", kinds.join(", ")))
                    })?,
                )?;
                let canonical = kind.fields();
                let mut fields: Vec<(&'static str, String)> = Vec::new();
                match map.get("fields") {
                    None => {}
                    Some(Value::Object(given)) => {
                        for (field, host_field) in given {
                            let Some(c) = canonical.iter().find(|c| **c == field) else {
                                // `{"cmd": "command"}`: the mapping written the other way round.
                                let hint = match host_field.as_str().filter(|h| canonical.contains(h)) {
                                    Some(h) => format!(" (the other way round: {{\"{h}\": \"{field}\"}}?)"),
                                    None => did_you_mean(field, canonical),
                                };
                                return Err(invalid(
                                    key,
                                    format!(
                                        "tool `{name}`: `{field}` is not a field of kind {}{hint}; expected {} (each mapped to your tool's field name)",
                                        kind.name(),
                                        canonical.join(" or ")
                                    ),
                                ));
                            };
                            let host_field = host_field.as_str().filter(|f| !f.is_empty()).ok_or_else(|| {
                                invalid(
                                    key,
                                    format!("tool `{name}`: field `{field}` must name your tool's field as a non-empty string, found {}", type_name(host_field)),
                                )
                            })?;
                            if let Some((other, _)) = fields.iter().find(|(_, f)| f == host_field) {
                                return Err(invalid(
                                    key,
                                    format!("tool `{name}`: `{other}` and `{field}` both name the field `{host_field}`; expected a field of its own for each"),
                                ));
                            }
                            fields.push((c, host_field.to_string()));
                        }
                    }
                    Some(other) => {
                        return Err(invalid(
                            key,
                            format!(
                                "tool `{name}`: `fields` must be an object mapping canonical fields ({}) to your tool's field names, found {}",
                                canonical.join(", "),
                                type_name(other)
                            ),
                        ))
                    }
                }
                // A field left canonical still names one of the host's fields: two canonical
                // fields may not end on the same one (`{"path": "content"}` for a write tool).
                for c in canonical.iter().filter(|c| !fields.iter().any(|(m, _)| m == *c)) {
                    if let Some((other, _)) = fields.iter().find(|(_, f)| f == c) {
                        return Err(invalid(
                            key,
                            format!("tool `{name}`: `{other}` is mapped to `{c}`, the name of the canonical field `{c}` too; map `{c}` to another field"),
                        ));
                    }
                }
                HostTool { kind, fields }
            }
            other => {
                return Err(invalid(
                    key,
                    format!(
                        "tool `{name}` is {}; expected a kind (one of {}) or {{\"kind\": …, \"fields\": {{…}}}}",
                        type_name(other),
                        kinds.join(", ")
                    ),
                ))
            }
        };
        tools.insert(name.clone(), tool);
    }
    Ok(tools)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(json: &str) -> Error {
        Options::parse(Some(json)).unwrap_err()
    }

    #[test]
    fn defaults() {
        let o = Options::parse(None).unwrap();
        assert_eq!(o.default_timeout, Duration::from_millis(10_000));
        assert_eq!(o.max_output_bytes, 1 << 20);
        assert_eq!(o.shutdown_timeout, Duration::from_millis(5_000));
        assert!(!o.strict && !o.wait_non_blocking && o.trusted.is_none());
        assert!(Options::parse(Some("null")).is_ok());
    }

    #[test]
    fn bad_options() {
        let e = err(r#"{"defaultTimeout": 5}"#);
        assert_eq!(e.code, ErrorCode::InvalidOptions);
        assert!(e.message.contains("did you mean `defaultTimeoutMs`"), "{}", e.message);
        assert!(err(r#"{"trust": true}"#).message.contains("did you mean `trusted`"));
        assert!(err(r#"{"timeoutMs": 5}"#).message.contains("did you mean `defaultTimeoutMs`"));
        assert!(err(r#"{"defaultTimeoutMs": 0}"#).message.contains("positive integer"));
        assert!(err(r#"{"defaultTimeoutMs": -5}"#).message.contains("positive integer"));
        assert!(err(r#"{"shutdownTimeoutMs": 0}"#).message.contains("positive integer"));
        assert!(err(r#"{"shutdownTimeoutMs": "5s"}"#).message.contains("shutdownTimeoutMs"));
        assert!(err(r#"{"shutdownTimeout": 5}"#).message.contains("did you mean `shutdownTimeoutMs`"));
        assert!(err(r#"{"maxOutputBytes": 1.5}"#).message.contains("positive integer"));
        assert!(err(r#"{"strict": "yes"}"#).message.contains("true or false"));
        assert!(err(r#"{"cwd": "/definitely/not/here"}"#).message.contains("not a directory"));
        assert!(err(r#"{"config": {}, "configPath": "/x"}"#).message.contains("exclusive"));
        assert!(err(r#"{"layers": ["team"]}"#).message.contains("unknown layer"));
        assert!(err(r#"{"env": {"A": 1}}"#).message.contains("must be a string"));
        assert!(err(r#"{"env": {"A": "x\u0000y"}}"#).message.contains("NUL"));
        assert!(err("[1]").message.contains("must be a JSON object"));
        assert!(err("{").message.contains("not valid JSON"));
        assert!(err(r#"{"claude": 1}"#).message.contains("true or false"));
        assert!(err(r#"{"claudePlugins": "/tmp"}"#).message.contains("expected a list of plugin directories"));
        assert!(err(r#"{"claudePlugins": ["/definitely/not/here"]}"#).message.contains("not a directory"));
        assert!(err(r#"{"claudePlugins": [{"data": "/tmp"}]}"#).message.contains("has no `root`"));
        assert!(err(r#"{"claudePlugins": [{"root": "/tmp", "x": 1}]}"#).message.contains("unknown key `x`"));
        assert!(err(r#"{"claudeProjectDir": 3}"#).message.contains("expected a string"));
    }

    #[test]
    fn claude_options() {
        let o = Options::parse(Some(
            r#"{"claude": true, "claudeProjectDir": "/p", "claudePlugins": ["/tmp", {"root": "/", "data": "/d"}]}"#,
        ))
        .unwrap();
        let claude = &o.dialects[crate::dialect::registry::by_name("claude").unwrap().0];
        assert!(claude.on);
        assert_eq!(claude.project_dir.as_deref(), Some(Path::new("/p")));
        assert_eq!(claude.plugins[0], Plugin { root: "/tmp".into(), data: None });
        assert_eq!(claude.plugins[1], Plugin { root: "/".into(), data: Some("/d".into()) });
        assert!(err(r#"{"watch": "no"}"#).message.contains("true or false"));
        assert!(err(r#"{"httpProxy": 5}"#).message.contains("expected a string"));
        assert!(err(r#"{"httpProxy": "::nope"}"#).message.contains("not a proxy URL"));
        assert!(Options::parse(Some(r#"{"httpProxy": "http://127.0.0.1:3128", "watch": false}"#)).is_ok());
    }

    #[test]
    fn tools_option() {
        let o = Options::parse(Some(
            r#"{"tools": {"shell": {"kind": "shell", "fields": {"command": "cmd"}}, "my_edit": "edit", "read_file": {"kind": "read"}}}"#,
        ))
        .unwrap();
        let shell = o.tools.lookup("shell").unwrap();
        assert_eq!((shell.kind, shell.host_field("command"), shell.host_field("cwd")), (Kind::Shell, "cmd", "cwd"));
        assert_eq!(o.tools.lookup("my_edit").unwrap().kind, Kind::Edit);
        assert_eq!(o.tools.lookup("read_file").unwrap().kind, Kind::Read);
        assert_eq!(o.tools.lookup("Bash").unwrap().kind, Kind::Shell, "Claude Code's names stay known");
        assert!(Options::parse(Some(r#"{"tools": {}}"#)).unwrap().tools.is_empty());
        // Each bad entry: the option, the tool, what was wrong and what was expected.
        for (json, want) in [
            (r#"{"tools": ["shell"]}"#, "option `tools`: expected an object {\"<tool name>\": \"<kind>\""),
            (r#"{"tools": "shell"}"#, "found a string"),
            (r#"{"tools": {"sh": "shel"}}"#, "tool `sh`: unknown kind `shel` (did you mean `shell`?); expected one of shell, read, write, edit, fetch, search, glob, agent, mcp"),
            (r#"{"tools": {"sh": {"kind": "terminal"}}}"#, "tool `sh`: unknown kind `terminal`"),
            (r#"{"tools": {"sh": {"kind": 3}}}"#, "tool `sh`: the kind must be a string, one of shell, read"),
            (r#"{"tools": {"sh": 3}}"#, "tool `sh` is a number; expected a kind (one of shell, read"),
            (r#"{"tools": {"sh": null}}"#, "tool `sh` is null"),
            (r#"{"tools": {"sh": {"fields": {}}}}"#, "tool `sh` has no `kind`; expected one of shell"),
            (r#"{"tools": {"sh": {"kind": "shell", "field": {}}}}"#, "tool `sh` has unknown key `field` (did you mean `fields`?)"),
            (r#"{"tools": {"sh": {"kind": "shell", "fields": {"cmd": "command"}}}}"#, "tool `sh`: `cmd` is not a field of kind shell (the other way round: {\"command\": \"cmd\"}?); expected command or cwd"),
            (r#"{"tools": {"r": {"kind": "read", "fields": {"file": "f"}}}}"#, "`file` is not a field of kind read; expected path (each mapped to your tool's field name)"),
            (r#"{"tools": {"sh": {"kind": "shell", "fields": ["command"]}}}"#, "tool `sh`: `fields` must be an object mapping canonical fields (command, cwd) to your tool's field names, found an array"),
            (r#"{"tools": {"sh": {"kind": "shell", "fields": {"command": 1}}}}"#, "field `command` must name your tool's field as a non-empty string, found a number"),
            (r#"{"tools": {"sh": {"kind": "shell", "fields": {"command": ""}}}}"#, "non-empty string"),
            (r#"{"tools": {"w": {"kind": "write", "fields": {"path": "f", "content": "f"}}}}"#, "`path` and `content` both name the field `f`"),
            (r#"{"tools": {"w": {"kind": "write", "fields": {"path": "content"}}}}"#, "`path` is mapped to `content`, the name of the canonical field `content` too"),
            (r#"{"tools": {"": "shell"}}"#, "a tool name is empty"),
        ] {
            let e = err(json);
            assert_eq!(e.code, ErrorCode::InvalidOptions, "{json}");
            assert_eq!(e.path.as_deref(), Some("tools"), "{json}");
            assert!(e.message.contains(want), "{json}: {}", e.message);
        }
    }

    /// Version 1 accepted these and, finding no trust store under them, trusted every project.
    #[test]
    fn home_must_be_absolute() {
        for home in ["", "~", "~/x", "relative/dir", "."] {
            let e = err(&serde_json::json!({ "home": home }).to_string());
            assert_eq!(e.code, ErrorCode::InvalidOptions, "{home:?}");
            assert!(e.message.contains("not an absolute path"), "{home:?}: {}", e.message);
        }
    }

    #[test]
    fn home_falls_back_to_the_password_database() {
        let pw = || Some(PathBuf::from("/from/passwd"));
        assert_eq!(default_home(Some("/h".into()), pw), Some(PathBuf::from("/h")));
        for bad in ["", "~", "rel"] {
            assert_eq!(default_home(Some(bad.into()), pw), Some(PathBuf::from("/from/passwd")), "{bad:?}");
        }
        assert_eq!(default_home(None, pw), Some(PathBuf::from("/from/passwd")));
        assert_eq!(default_home(None, || None), None, "no home at all");
        // This process's user is in the password database (root in the test containers).
        let real = passwd_home().expect("the test user has a passwd entry");
        assert!(real.is_absolute());
    }
}
