//! The fire path's first look at an envelope (docs/envelope.md "The envelope"): its `event`
//! (in the engine's names, or a registered dialect's with `dialect`), `toolName`, and its fields
//! as raw text when some hook may run. Resolving a dialect's event names asks the registry, so
//! this sits above the dialects (docs/layout.md "The layers"), while the rest of `envelope/`,
//! which every dialect's view reads, sits below them.

use super::{invalid, tools, Scalar, Skip, Text};
use crate::dialect::registry::REGISTRY;
use crate::dialect::Dialect;
use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::suggest;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// What the fire path needs before deciding whether any hook runs.
#[derive(Debug)]
pub struct Head<'a> {
    pub event: Event,
    /// The text matchers test: `toolName` when it is a string, number or boolean.
    pub tool: Option<Cow<'a, str>>,
    /// Every field as raw JSON text, in order, repeats merged (as `Fields` reads them), gathered on the
    /// way at almost no cost so that a fire whose hooks run need not parse the text again.
    /// `None` for deeply nested input, which takes the depth-checking path.
    pub fields: Option<Vec<(Cow<'a, str>, &'a str)>>,
    /// The registered dialect whose event name `event` was (`"dialect": "cursor"`), and that
    /// name, when it was one of a registered dialect's (docs/envelope.md "Dialect event names"):
    /// a tool-specific event needs a tool of its kind, which only the options can tell
    /// ([`check_named`]).
    pub named: Option<(usize, String)>,
}

/// What an envelope's `dialect` names: openHarness's own names (the engine's), or a registered
/// dialect's.
const NATIVE: &str = "openHarness";

/// Validates the whole envelope (syntax and nesting depth) but keeps only `event` and
/// `toolName`, borrowing them from the input when they have no escapes.
pub fn parse_head(json: &str) -> Result<Head<'_>> {
    parse_head_for(json, &|_| false)
}

/// [`parse_head`], also gathering [`Head::fields`] when `event` comes first and `wanted(event)`:
/// the fire path asks for them when the event has hooks, so that the no-hook path allocates
/// nothing.
pub fn parse_head_for<'a>(json: &'a str, wanted: &dyn Fn(Event) -> bool) -> Result<Head<'a>> {
    let mut de = serde_json::Deserializer::from_str(json);
    // Fewer brackets than the recursion limit cannot nest past it: then the values can be
    // skipped by serde_json's own (faster, but depth-blind) `IgnoredAny`.
    let check_depth = memchr::memchr2_iter(b'[', b'{', json.as_bytes()).take(128).count() >= 128;
    let raw = RawHead::read(&mut de, check_depth, wanted).and_then(|h| de.end().map(|_| h)).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => invalid(format!("invalid envelope: {e}")),
        _ => invalid(format!(
            "the envelope is not valid JSON ({e}); expected a JSON object such as {{\"event\":\"preToolUse\",\"toolName\":\"Bash\"}}"
        )),
    })?;
    let name = raw.event.ok_or_else(|| {
        invalid("the envelope has no `event`; expected a string naming the event, such as \"preToolUse\"".into())
    })?;
    if let Some(dialect) = raw.dialect {
        let (event, named) = dialect_event(&dialect, &name)?;
        return Ok(Head { event, tool: raw.tool, fields: raw.fields, named });
    }
    let event = Event::from_name(&name).ok_or_else(|| {
        let hint = Event::suggest(&name)
            .map(|e| format!(" (did you mean `{e}`?)"))
            .or_else(|| whose_event(&name))
            .unwrap_or_default();
        Error::new(
            ErrorCode::UnknownEvent,
            format!(
                "unknown event `{name}`{hint}; expected one of the {} camelCase event names, such as \"preToolUse\"",
                Event::COUNT
            ),
        )
    })?;
    Ok(Head { event, tool: raw.tool, fields: raw.fields, named: None })
}

/// A hint for an engine event name that is a registered dialect's own (`BeforeTool`): which
/// dialect's, and the two ways to send it.
fn whose_event(name: &str) -> Option<String> {
    let d = REGISTRY.iter().find(|d| d.event(name).is_some())?;
    let event = d.event(name)?;
    Some(format!(
        " (`{name}` is {}'s name for `{event}`: send \"event\":\"{event}\", or \"dialect\":\"{}\" with it)",
        d.name(),
        d.name()
    ))
}

/// The engine event `name` maps to in dialect `dialect` (an envelope with `dialect` set), and
/// the registered dialect it is of. Nothing here knows a dialect: each is asked through its
/// trait.
fn dialect_event(dialect: &str, name: &str) -> Result<(Event, Option<(usize, String)>)> {
    // The engine's own names, as the native dialect's event table.
    let native_names: Vec<&str> = Event::ALL.iter().map(|e| e.name()).collect();
    let position = REGISTRY.iter().position(|d| d.name() == dialect);
    let found: Option<&'static dyn Dialect> = position.map(|i| REGISTRY[i]);
    if found.is_none() && dialect != NATIVE {
        let names: Vec<&str> = std::iter::once(NATIVE).chain(REGISTRY.iter().map(|d| d.name())).collect();
        return Err(invalid(format!(
            "unknown dialect `{dialect}` in the envelope's `dialect`{}; expected one of {} (the dialect whose event name `event` is)",
            suggest::did_you_mean(dialect, &names),
            names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
        )));
    }
    let (event, names, title) = match found {
        Some(d) => (d.event(name), d.event_names(), d.name()),
        None => (Event::from_name(name), native_names, NATIVE),
    };
    if let Some(event) = event {
        return Ok((event, position.map(|i| (i, name.to_string()))));
    }
    // The same event under another dialect's (or the engine's) name: this dialect's name of it.
    let their_name = |event: Event| match found {
        Some(d) => d.event_name(event),
        None => Some(event.name()),
    };
    let elsewhere = Event::from_name(name)
        .or_else(|| REGISTRY.iter().find_map(|d| d.event(name)))
        .and_then(their_name)
        .map(|n| format!(" (did you mean `{n}`?)"));
    let hint = elsewhere.unwrap_or_else(|| suggest::did_you_mean(name, &names));
    Err(Error::new(
        ErrorCode::UnknownEvent,
        format!(
            "unknown {title} event `{name}`{hint}; with \"dialect\": \"{title}\", `event` is one of its {} event names: {}",
            names.len(),
            names.join(", ")
        ),
    ))
}

/// A tool-specific dialect event (Cursor's `beforeShellExecution`) fires the generic tool event
/// only for a tool of its kind: an envelope naming it must name such a tool, or the hooks
/// written for it would silently not run (docs/envelope.md "Dialect event names").
pub fn check_named(head: &Head, tools: &tools::HostTools) -> Result<()> {
    let Some((at, name)) = &head.named else { return Ok(()) };
    let dialect = REGISTRY[*at];
    let kinds = dialect.event_kinds(name);
    if kinds.is_empty() {
        return Ok(());
    }
    let tool = head.tool.as_deref().filter(|t| !t.is_empty());
    let kind = tool.and_then(|t| tools.lookup(t)).map(|k| k.kind);
    if kind.is_some_and(|k| kinds.contains(&k)) {
        return Ok(());
    }
    let wanted = kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(" or ");
    let found = match (tool, kind) {
        (None, _) => "the envelope has no `toolName`".to_string(),
        (Some(t), None) => format!("`toolName` is \"{t}\", a tool of no known kind"),
        (Some(t), Some(k)) => format!("`toolName` is \"{t}\", a {} tool", k.name()),
    };
    Err(invalid(format!(
        "{} event `{name}` fires `{}` for a {wanted} tool, but {found}; send `toolName` naming a {wanted} tool (one of Claude Code's names, such as \"Bash\" for shell, or a tool listed with that kind in option `tools`) and its `toolInput`",
        dialect.name(),
        dialect.event(name).map_or("", |e| e.name()),
    )))
}

struct RawHead<'a> {
    event: Option<Cow<'a, str>>,
    dialect: Option<Cow<'a, str>>,
    tool: Option<Cow<'a, str>>,
    fields: Option<Vec<(Cow<'a, str>, &'a str)>>,
}

impl<'de> RawHead<'de> {
    fn read<D: Deserializer<'de>>(
        d: D,
        check_depth: bool,
        wanted: &dyn Fn(Event) -> bool,
    ) -> std::result::Result<Self, D::Error> {
        struct V<'w> {
            check_depth: bool,
            wanted: &'w dyn Fn(Event) -> bool,
        }
        impl<'de> Visitor<'de> for V<'_> {
            type Value = RawHead<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object with an `event` string")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<RawHead<'de>, A::Error> {
                let mut head = RawHead { event: None, dialect: None, tool: None, fields: None };
                let mut first = true;
                let mut camel_tool = false;
                while let Some(Text(key)) = map.next_key::<Text>()? {
                    // A value is read as raw text when it is kept in `fields` (`event` never is:
                    // the envelope's JSON writes it from the name), by `Skip` on the depth-checking
                    // path, and by `IgnoredAny` otherwise.
                    // Nor `dialect`: the engine reads it, as it reads `event`, and no hook sees it.
                    let keep = head.fields.is_some() && key != "event" && key != "dialect";
                    let was_first = std::mem::replace(&mut first, false);
                    let raw: Option<&'de RawValue> = if keep { Some(map.next_value()?) } else { None };
                    let scalar = |raw: Option<&'de RawValue>, map: &mut A| match raw {
                        // A string without escapes is its text between the quotes (serde_json
                        // checked it while reading the raw value): no second parse.
                        Some(r) if r.get().len() >= 2 && r.get().starts_with('"') && !r.get().contains('\\') => {
                            let t = r.get();
                            Ok(Scalar::Text(Cow::Borrowed(&t[1..t.len() - 1])))
                        }
                        Some(r) => serde_json::from_str::<Scalar<'de>>(r.get()).map_err(de::Error::custom),
                        None => map.next_value::<Scalar>(),
                    };
                    match &*key {
                        "event" => match scalar(raw, &mut map)? {
                            Scalar::Text(t) => {
                                if was_first && !self.check_depth && Event::from_name(&t).is_some_and(self.wanted) {
                                    head.fields = Some(Vec::with_capacity(12));
                                }
                                head.event = Some(t)
                            }
                            other => {
                                return Err(de::Error::custom(format!(
                                    "`event` must be a string naming the event, found {}",
                                    other.describe()
                                )))
                            }
                        },
                        "dialect" => match scalar(raw, &mut map)? {
                            Scalar::Text(t) => head.dialect = Some(t),
                            other => {
                                return Err(de::Error::custom(format!(
                                    "`dialect` must be a string naming the dialect whose event name `event` is (such as \"gemini\"), found {}",
                                    other.describe()
                                )))
                            }
                        },
                        // camelCase wins when both spellings are given.
                        "toolName" | "tool_name" => {
                            let tool = match scalar(raw, &mut map)? {
                                Scalar::Text(t) => Some(t),
                                Scalar::Other(Some(t)) => Some(Cow::Owned(t)),
                                Scalar::Other(None) => None,
                            };
                            if &*key == "toolName" || !camel_tool {
                                head.tool = tool;
                                camel_tool |= &*key == "toolName";
                            }
                        }
                        _ if raw.is_some() => {}
                        _ if self.check_depth => {
                            map.next_value::<Skip>()?;
                        }
                        _ => {
                            map.next_value::<de::IgnoredAny>()?;
                        }
                    }
                    if let (Some(fields), Some(raw), true) = (&mut head.fields, raw, keep) {
                        match fields.iter_mut().find(|(k, _)| *k == key) {
                            Some(slot) => slot.1 = raw.get(),
                            None => fields.push((key, raw.get())),
                        }
                    }
                }
                Ok(head)
            }
        }
        d.deserialize_any(V { check_depth, wanted })
    }
}
