//! The openHarness dialect: `.oh/*.yaml` files (and `configPath` JSON or YAML), validated inside
//! serde visitors so that every error knows its position: serde_yaml and serde_json report the
//! line, serde_path_to_error the path (`hooks.preToolUse[0].timeout`).

use super::budget;
use super::{EventHooks, Handler, HookSpec, Layer, Persistent};
use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::matcher::Matcher;
use crate::suggest::did_you_mean;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::path::Path;
use std::time::Duration;

/// Parses the inline `config` option's value.
pub fn parse_value(value: &serde_json::Value) -> Result<Layer> {
    super::budget::scope(|| {
        serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            position_error(None, None, &path, &e.into_inner().to_string())
        })
    })
}

/// Parses one file: JSON when its name ends in `.json`, YAML otherwise, within the load bounds
/// of [`super::budget`].
pub fn parse_file(path: &Path, bytes: &[u8]) -> Result<Layer> {
    super::budget::scope(|| parse_file_unbounded(path, bytes))
}

fn parse_file_unbounded(path: &Path, bytes: &[u8]) -> Result<Layer> {
    let file = path.display().to_string();
    if bytes.len() as u64 > super::MAX_FILE_BYTES {
        return Err(Error {
            file: Some(file.clone()),
            ..Error::new(
                ErrorCode::InvalidConfig,
                format!(
                    "config file {file} is larger than {} MiB, the most a config file may have; expected a config of ordinary size",
                    super::MAX_FILE_BYTES >> 20
                ),
            )
        });
    }
    let text = std::str::from_utf8(bytes).map_err(|e| Error {
        file: Some(file.clone()),
        ..Error::new(ErrorCode::InvalidConfig, format!("config file {file} is not UTF-8 text ({e})"))
    })?;
    let is_json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        let mut de = serde_json::Deserializer::from_str(text);
        let layer = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            position_error(Some(&file), Some(inner.line() as u64), &path, &inner.to_string())
        })?;
        de.end().map_err(|e| position_error(Some(&file), Some(e.line() as u64), ".", &e.to_string()))?;
        Ok(layer)
    } else {
        if let Some(line) = too_deep(text) {
            return Err(position_error(
                Some(&file),
                Some(line),
                ".",
                &format!(
                    "`[` and `{{` are nested more than {MAX_FLOW_DEPTH} levels deep (or appear more than {MAX_FLOW_OPENERS} times); expected a config of ordinary size"
                ),
            ));
        }
        serde_path_to_error::deserialize(serde_yaml::Deserializer::from_str(text)).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let line = inner.location().map(|l| l.line() as u64);
            position_error(Some(&file), line, &path, &inner.to_string())
        })
    }
}

/// The YAML parser's time grows with the square of flow-collection nesting (a 40 KB file of
/// 20,000 nested `[` takes a second, 100,000 most of a minute), and nothing in a hook config
/// nests like that; such a file is refused before parsing.
const MAX_FLOW_DEPTH: usize = 1000;
/// Brackets are counted without telling which are inside quoted strings (YAML's quoting rules
/// are the parser's business), so closers in strings could hide depth from the count above;
/// a cap on openers bounds the real depth, and so the parse time (10,000: a quarter second).
const MAX_FLOW_OPENERS: usize = 10_000;

/// The line where `[`/`{` nesting first exceeds [`MAX_FLOW_DEPTH`], or their number exceeds
/// [`MAX_FLOW_OPENERS`].
fn too_deep(text: &str) -> Option<u64> {
    let (mut depth, mut openers, mut line) = (0usize, 0usize, 1u64);
    for b in text.bytes() {
        match b {
            b'[' | b'{' => {
                depth += 1;
                openers += 1;
                if depth > MAX_FLOW_DEPTH || openers > MAX_FLOW_OPENERS {
                    return Some(line);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => line += 1,
            _ => {}
        }
    }
    None
}

/// Builds the `invalid_config` error. The parsers decorate their messages with the path and
/// position, which the error carries as fields, so the message is stripped of them first.
/// `file` is `None` for the inline `config` option.
pub(super) fn position_error(file: Option<&str>, line: Option<u64>, path: &str, raw: &str) -> Error {
    // serde_yaml prefixes the path it knows, which may stop short of ours.
    let mut message = match raw.split_once(": ") {
        Some((prefix, rest)) if !prefix.contains(' ') && path.starts_with(prefix) => rest.to_string(),
        _ => raw.to_string(),
    };
    if let Some(at) = message.rfind(" at line ") {
        let tail = &message[at + " at line ".len()..];
        if tail.split(" column ").all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) {
            message.truncate(at);
        }
    }
    // serde_path_to_error writes `?` for a position it could not name (inside a syntax error):
    // the nearest enclosing path is what it did name.
    let path = path.trim_end_matches('?').trim_end_matches('.');
    let path = (path != "." && !path.is_empty()).then(|| path.to_string());
    let mut place = file.map_or_else(|| "the `config` option".to_string(), str::to_string);
    if let Some(l) = line {
        place.push_str(&format!(" line {l}"));
    }
    if let Some(p) = &path {
        place.push_str(&format!(" at `{p}`"));
    }
    Error {
        file: file.map(str::to_string),
        line,
        path,
        ..Error::new(ErrorCode::InvalidConfig, format!("invalid config in {place}: {message}"))
    }
}

// ---- serde visitors: the validation rules live here ----

impl<'de> Deserialize<'de> for Layer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Layer, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Layer;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of settings at the top level (with `hooks:` and optionally `disableAllHooks:`)")
            }
            // An empty file is an empty config.
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Layer, E> {
                Ok(Layer::default())
            }
            fn visit_none<E: de::Error>(self) -> std::result::Result<Layer, E> {
                Ok(Layer::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Layer, A::Error> {
                let mut layer = Layer::default();
                while let Some(key) = map.next_key::<String>()? {
                    budget::charge(key.len()).map_err(de::Error::custom)?;
                    match key.as_str() {
                        "hooks" => {
                            let hooks: Option<EventHooks> = map.next_value()?;
                            layer.hooks = Some(hooks.unwrap_or_default());
                        }
                        "disableAllHooks" => layer.disable_all_hooks = Some(map.next_value::<StrictBool>()?.0),
                        // Every other top-level key belongs to the harness.
                        // (serde_yaml skips an ignored value without expanding its aliases.)
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(layer)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for EventHooks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<EventHooks, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EventHooks;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map from event names (such as `preToolUse`) to lists of hook entries")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<EventHooks, A::Error> {
                let mut hooks = EventHooks::default();
                let mut seen = [false; Event::COUNT];
                while let Some(EventKey(event)) = map.next_key()? {
                    if std::mem::replace(&mut seen[event.index()], true) {
                        map.next_value_seed(Reject(format!(
                            "event `{event}` appears twice; list all its hooks under one key"
                        )))?;
                    }
                    let list: Option<HookList> = map.next_value()?;
                    hooks.0[event.index()] = list.map(|l| l.0).unwrap_or_default();
                }
                Ok(hooks)
            }
        }
        d.deserialize_map(V)
    }
}

struct EventKey(Event);

impl<'de> Deserialize<'de> for EventKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<EventKey, D::Error> {
        // The check runs inside the visitor so the parser marks the key's own line.
        struct V;
        impl Visitor<'_> for V {
            type Value = EventKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an event name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> std::result::Result<EventKey, E> {
                if let Some(e) = Event::from_name(name) {
                    return Ok(EventKey(e));
                }
                let hint = match Event::suggest(name) {
                    Some(e) => format!(" (did you mean `{e}`? event names are camelCase)"),
                    None => did_you_mean(name, &Event::ALL.iter().map(|e| e.name()).collect::<Vec<_>>()),
                };
                Err(E::custom(format!("unknown event `{name}`{hint}")))
            }
        }
        d.deserialize_str(V)
    }
}

struct HookList(Vec<HookSpec>);

impl<'de> Deserialize<'de> for HookList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<HookList, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HookList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of hook entries (or null for none)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<HookList, A::Error> {
                let mut list = Vec::new();
                while let Some(mut spec) = seq.next_element::<HookSpec>()? {
                    budget::charge(0).map_err(de::Error::custom)?;
                    spec.index = list.len();
                    list.push(spec);
                }
                Ok(HookList(list))
            }
        }
        d.deserialize_seq(V)
    }
}

const ENTRY_KEYS: &[&str] =
    &["command", "http", "prompt", "callback", "match", "timeout", "jsonIO", "persistent", "workers"];

#[derive(Clone, Copy, PartialEq)]
enum EntryKey {
    Command,
    Http,
    Prompt,
    Callback,
    Match,
    Timeout,
    JsonIo,
    Persistent,
    Workers,
}

impl EntryKey {
    fn parse(key: &str) -> Option<EntryKey> {
        Some(match key {
            "command" => EntryKey::Command,
            "http" => EntryKey::Http,
            "prompt" => EntryKey::Prompt,
            "callback" => EntryKey::Callback,
            "match" => EntryKey::Match,
            "timeout" => EntryKey::Timeout,
            "jsonIO" => EntryKey::JsonIo,
            "persistent" => EntryKey::Persistent,
            "workers" => EntryKey::Workers,
            _ => return None,
        })
    }
}

/// Fails with its message when asked for a value. Raising an error about a key *while reading
/// its value* makes the parsers report the key's own line and path (`…[0].matcher`).
struct Reject(String);

impl<'de> de::DeserializeSeed<'de> for Reject {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// Every kind of value is refused with the message (the parser marks the value's position).
impl<'de> Visitor<'de> for Reject {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<(), E> {
        Err(E::custom(self.0))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<(), E> {
        Err(E::custom(self.0))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<(), E> {
        Err(E::custom(self.0))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<(), E> {
        Err(E::custom(self.0))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> std::result::Result<(), E> {
        Err(E::custom(self.0))
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<(), E> {
        Err(E::custom(self.0))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> std::result::Result<(), A::Error> {
        Err(de::Error::custom(self.0))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> std::result::Result<(), A::Error> {
        Err(de::Error::custom(self.0))
    }
}

impl<'de> Deserialize<'de> for HookSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<HookSpec, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HookSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a hook entry: a map with exactly one of `command`, `http`, `prompt` or `callback`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<HookSpec, A::Error> {
                let mut handlers: Vec<(&'static str, Handler)> = Vec::new();
                let mut matcher: Option<MatchValue> = None;
                let mut timeout = None;
                let mut json_io = None;
                let mut persistent = None;
                let mut workers = None;
                let mut seen: Vec<EntryKey> = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    budget::charge(name.len()).map_err(de::Error::custom)?;
                    let Some(key) = EntryKey::parse(&name) else {
                        map.next_value_seed(Reject(format!(
                            "unknown key `{name}` in a hook entry{}; expected {}",
                            did_you_mean(&name, ENTRY_KEYS),
                            ENTRY_KEYS.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                        )))?;
                        unreachable!("Reject always fails");
                    };
                    if seen.contains(&key) {
                        map.next_value_seed(Reject(format!("`{name}` appears twice in one hook entry")))?;
                    }
                    seen.push(key);
                    match key {
                        EntryKey::Command => {
                            handlers.push(("command", Handler::Command(map.next_value::<NonEmpty>()?.0)))
                        }
                        EntryKey::Http => handlers.push(("http", Handler::Http(map.next_value::<HttpUrl>()?.0))),
                        EntryKey::Prompt => handlers.push(("prompt", Handler::Prompt(map.next_value::<NonEmpty>()?.0))),
                        EntryKey::Callback => {
                            handlers.push(("callback", Handler::Callback(map.next_value::<NonEmpty>()?.0)))
                        }
                        EntryKey::Match => matcher = Some(map.next_value::<MatchValue>()?),
                        EntryKey::Timeout => timeout = Some(map.next_value::<Timeout>()?.0),
                        EntryKey::JsonIo => json_io = Some(map.next_value::<StrictBool>()?.0),
                        EntryKey::Persistent => persistent = Some(map.next_value::<PersistentValue>()?.0),
                        EntryKey::Workers => workers = Some(map.next_value::<Workers>()?.0),
                    }
                }
                let handler =
                    match handlers.len() {
                        1 => handlers.pop().expect("one handler").1,
                        0 => return Err(de::Error::custom(
                            "a hook entry needs exactly one of `command`, `http`, `prompt` or `callback`; found none",
                        )),
                        _ => {
                            let names: Vec<_> = handlers.iter().map(|(n, _)| format!("`{n}`")).collect();
                            return Err(de::Error::custom(format!(
                                "a hook entry needs exactly one of `command`, `http`, `prompt` or `callback`; found {}",
                                names.join(" and ")
                            )));
                        }
                    };
                let argv = match &handler {
                    Handler::Command(c) => crate::words::plain_words(c),
                    _ => None,
                };
                let persistent =
                    persistent_setting(&handler, persistent, workers, json_io).map_err(de::Error::custom)?;
                Ok(HookSpec {
                    argv,
                    index: 0,
                    handler,
                    match_text: matcher.as_ref().map(|m| m.1.clone()),
                    matcher: matcher.map_or(Matcher::Any, |m| m.0),
                    timeout,
                    json_io: json_io.unwrap_or(false),
                    persistent,
                    from_project: false,
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// The `persistent` and `workers` keys together: `persistent` only on command hooks, `workers`
/// only with `persistent`, and never with `jsonIO: false` (a persistent hook speaks JSON lines).
fn persistent_setting(
    handler: &Handler,
    persistent: Option<Option<bool>>,
    workers: Option<usize>,
    json_io: Option<bool>,
) -> std::result::Result<Option<Persistent>, String> {
    let eager = match persistent {
        Some(Some(eager)) => eager,
        Some(None) | None => {
            return match workers {
                Some(_) => {
                    Err("`workers` applies only to persistent hooks; add `persistent: true` or remove `workers`"
                        .to_string())
                }
                None => Ok(None),
            }
        }
    };
    if !matches!(handler, Handler::Command(_)) {
        return Err("`persistent` applies only to `command` hooks".to_string());
    }
    if json_io == Some(false) {
        return Err(
            "a persistent hook reads envelopes and answers as JSON lines, so `jsonIO: false` contradicts it; remove `jsonIO`"
                .to_string(),
        );
    }
    Ok(Some(Persistent { eager, workers: workers.unwrap_or(Persistent::DEFAULT_WORKERS) }))
}

/// `persistent:` `true`, `false` or `"eager"`: `Some(eager)` when persistent.
struct PersistentValue(Option<bool>);

impl<'de> Deserialize<'de> for PersistentValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<PersistentValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = PersistentValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("true, false or \"eager\"")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<PersistentValue, E> {
                Ok(PersistentValue(v.then_some(false)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<PersistentValue, E> {
                match v {
                    "eager" => Ok(PersistentValue(Some(true))),
                    _ => Err(E::custom(format!("expected true, false or \"eager\", found \"{v}\""))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `workers:` a positive integer up to [`Persistent::MAX_WORKERS`].
struct Workers(usize);

impl<'de> Deserialize<'de> for Workers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Workers, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Workers;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a positive integer number of processes, at most {}", Persistent::MAX_WORKERS)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Workers, E> {
                match usize::try_from(v) {
                    Ok(n) if (1..=Persistent::MAX_WORKERS).contains(&n) => Ok(Workers(n)),
                    _ => Err(E::custom(format!(
                        "expected a positive integer number of processes, at most {}, found {v}",
                        Persistent::MAX_WORKERS
                    ))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Workers, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err(E::custom(format!(
                        "expected a positive integer number of processes, at most {}, found {v}",
                        Persistent::MAX_WORKERS
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// `true` or `false` and nothing else (not `"yes"`, not `1`).
struct StrictBool(bool);

impl<'de> Deserialize<'de> for StrictBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<StrictBool, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = StrictBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("true or false")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<StrictBool, E> {
                Ok(StrictBool(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// A string that is not blank. `deserialize_any` so that YAML `command: 123` is an error
/// rather than the string "123".
struct NonEmpty(String);

impl<'de> Deserialize<'de> for NonEmpty {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<NonEmpty, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = NonEmpty;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a non-empty string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<NonEmpty, E> {
                budget::charge(v.len()).map_err(E::custom)?;
                if v.trim().is_empty() {
                    Err(E::custom("expected a non-empty string, found an empty one"))
                } else if v.contains('\0') {
                    Err(E::custom("the string contains a NUL byte, which no command line or URL can hold"))
                } else {
                    Ok(NonEmpty(v.to_string()))
                }
            }
        }
        d.deserialize_any(V)
    }
}

struct HttpUrl(String);

impl<'de> Deserialize<'de> for HttpUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<HttpUrl, D::Error> {
        let NonEmpty(url) = NonEmpty::deserialize(d)?;
        let lower = url.to_ascii_lowercase();
        let rest = lower.strip_prefix("http://").or_else(|| lower.strip_prefix("https://"));
        match rest {
            Some(host) if !host.is_empty() && !host.starts_with('/') => Ok(HttpUrl(url)),
            _ => Err(de::Error::custom(format!("`{url}` is not an http:// or https:// URL with a host"))),
        }
    }
}

struct MatchValue(Matcher, String);

impl<'de> Deserialize<'de> for MatchValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<MatchValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = MatchValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string: a tool name substring, a glob with `*`, or `/regex/flags`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<MatchValue, E> {
                budget::matcher(v).map(|m| MatchValue(m, v.to_string())).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Hooks never wait longer than this, however large the configured timeout: it keeps deadline
/// arithmetic far from overflow and is longer than any harness would wait for a hook.
const MAX_TIMEOUT_MS: u64 = 24 * 60 * 60 * 1000;

struct Timeout(Duration);

impl<'de> Deserialize<'de> for Timeout {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Timeout, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Timeout;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a positive integer number of milliseconds")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Timeout, E> {
                if v == 0 {
                    return Err(E::custom(
                        "expected a positive integer number of milliseconds, found 0 (there is no \"never\")",
                    ));
                }
                Ok(Timeout(Duration::from_millis(v.min(MAX_TIMEOUT_MS))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Timeout, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err(E::custom(format!("expected a positive integer number of milliseconds, found {v}"))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Result<Layer> {
        parse_file(Path::new("/p/.oh/config.yaml"), text.as_bytes())
    }

    #[test]
    fn parses_entries() {
        let layer = yaml(
            "model: x\nhooks:\n  preToolUse:\n    - command: ./a.sh\n      match: Bash\n      timeout: 5000\n      jsonIO: true\n    - http: http://127.0.0.1:9/x\n  sessionStart: null\n",
        )
        .unwrap();
        let hooks = layer.hooks.unwrap();
        let pre = hooks.of(Event::PreToolUse);
        assert_eq!(pre.len(), 2);
        assert_eq!(pre[0].handler, Handler::Command("./a.sh".into()));
        assert_eq!(pre[0].timeout, Some(Duration::from_millis(5000)));
        assert!(pre[0].json_io);
        assert_eq!(pre[1].index, 1);
        assert_eq!(pre[1].type_name(), "http");
        assert!(hooks.of(Event::SessionStart).is_empty());
    }

    #[test]
    fn empty_and_null() {
        assert!(yaml("").unwrap().hooks.is_none());
        assert_eq!(yaml("hooks: null").unwrap().hooks.unwrap().total(), 0);
    }

    #[test]
    fn errors_name_file_line_path() {
        let e = yaml("hooks:\n  preToolUse:\n    - command: x\n      timeout: 0\n").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidConfig);
        assert_eq!(e.path.as_deref(), Some("hooks.preToolUse[0].timeout"));
        assert_eq!(e.line, Some(4));
        assert_eq!(e.file.as_deref(), Some("/p/.oh/config.yaml"));
        assert!(e.message.contains("positive integer"), "{}", e.message);
        assert!(!e.message.contains("column"), "{}", e.message);

        let e = yaml("hooks:\n  preToolUse: []\n  sessionStart: []\n  PreToolUse:\n    - command: x\n").unwrap_err();
        assert!(e.message.contains("did you mean `preToolUse`"), "{}", e.message);
        assert_eq!(e.line, Some(4), "the line of the bad key");
        let e = yaml("hooks:\n  preToolUse:\n    - command: x\n      matcher: Bash\n").unwrap_err();
        assert!(e.message.contains("did you mean `match`"), "{}", e.message);
        assert_eq!(e.line, Some(4));
        for (text, needle) in [
            ("hooks:\n  preToolUse:\n    - match: x\n", "found none"),
            ("hooks:\n  preToolUse:\n    - command: x\n      http: http://h/\n", "`command` and `http`"),
            ("hooks:\n  preToolUse:\n    - command: 12\n", "non-empty string"),
            ("hooks:\n  preToolUse:\n    - command: x\n      timeout: -1\n", "found -1"),
            ("hooks:\n  preToolUse:\n    - command: x\n      timeout: 1.5\n", "positive integer"),
            ("hooks:\n  preToolUse:\n    - command: x\n      timeout: \"5\"\n", "positive integer"),
            ("hooks:\n  preToolUse:\n    - command: x\n      match: /(?<=a)b/\n", "does not compile"),
            ("hooks:\n  preToolUse:\n    - command: x\n      match: 3\n", "a string"),
            ("disableAllHooks: yes\n", "true or false"),
            ("- a\n- b\n", "top level"),
            ("hooks: [1]\n", "map from event names"),
            ("hooks:\n  preToolUse: {command: x}\n", "list of hook entries"),
            ("hooks: [\n", "line"),
            (&format!("x: {}{}\n", "[".repeat(100_000), "]".repeat(100_000)), "nested more than 1000 levels"),
        ] {
            let e = yaml(text).unwrap_err();
            assert!(e.message.contains(needle), "{text:?}: {}", e.message);
        }
    }

    #[test]
    fn json_files_and_inline() {
        let e = parse_file(Path::new("/x/c.json"), br#"{"hooks": {"preToolUse": [{"command": "x", "timeout": 0}]}}"#)
            .unwrap_err();
        assert_eq!(e.path.as_deref(), Some("hooks.preToolUse[0].timeout"));
        assert_eq!(e.line, Some(1));
        let ok = parse_file(Path::new("/x/c.json"), br#"{"hooks": {"preToolUse": [{"command": "x"}]}}"#).unwrap();
        assert_eq!(ok.hooks.unwrap().total(), 1);
    }
}
