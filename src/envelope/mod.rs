//! The envelope (docs/envelope.md "The envelope"): a cheap first look for the fire path
//! ([`head`]), and the full parse (compact JSON for jsonIO/HTTP hooks, `OH_*` variables for
//! command hooks) done only when some hook matches.
//!
//! Every field may be given in camelCase or snake_case (`toolName` or `tool_name`, docs/dialects/claude.md
//! "Claude Code hooks"): the openHarness JSON carries a snake_case field under both names, the `OH_*` variables
//! read either, and Claude Code hooks get everything in snake_case.
//! Each dialect builds its own view of the one parsed envelope (`crate::dialect`).

pub mod head;
pub mod tools;

use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::response::json;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// Context field → variable (docs/envelope.md "The envelope"). `prompt` and `effort.level` have rules of their own.
const FIELD_VARS: &[(&str, &str)] = &[
    ("toolName", "OH_TOOL_NAME"),
    ("toolArgs", "OH_TOOL_ARGS"),
    ("toolOutput", "OH_TOOL_OUTPUT"),
    ("toolInputJson", "OH_TOOL_INPUT_JSON"),
    ("sessionId", "OH_SESSION_ID"),
    ("model", "OH_MODEL"),
    ("provider", "OH_PROVIDER"),
    ("permissionMode", "OH_PERMISSION_MODE"),
    ("cost", "OH_COST"),
    ("tokens", "OH_TOKENS"),
    ("filePath", "OH_FILE_PATH"),
    ("newCwd", "OH_NEW_CWD"),
    ("agentId", "OH_AGENT_ID"),
    ("message", "OH_MESSAGE"),
    ("toolError", "OH_TOOL_ERROR"),
    ("errorMessage", "OH_ERROR_MESSAGE"),
    ("permissionAction", "OH_PERMISSION_ACTION"),
    ("turnNumber", "OH_TURN_NUMBER"),
    ("turnReason", "OH_TURN_REASON"),
    ("worktreePath", "OH_WORKTREE_PATH"),
    ("worktreeParent", "OH_WORKTREE_PARENT"),
    ("worktreeForced", "OH_WORKTREE_FORCED"),
    ("elicitationServer", "OH_ELICITATION_SERVER"),
    ("elicitationMessage", "OH_ELICITATION_MESSAGE"),
    ("elicitationSchema", "OH_ELICITATION_SCHEMA"),
    ("elicitationAction", "OH_ELICITATION_ACTION"),
    ("elicitationContent", "OH_ELICITATION_CONTENT"),
];

/// OH_PROMPT is cut to this many bytes, on a character boundary (the spec's "8KB").
pub const PROMPT_LIMIT: usize = 8192;

/// Every variable name the envelope may set; the host's values of these never reach a hook.
pub fn variable_names() -> impl Iterator<Item = &'static str> {
    FIELD_VARS.iter().map(|(_, v)| *v).chain(["OH_EVENT", "OH_PROMPT", "OH_EFFORT"])
}

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidEnvelope, message)
}

/// An envelope's fields in order but `event` (the envelope writes it from its name), keys
/// borrowed where they have no escapes. A repeated key keeps
/// its first place and its last value (as a map would); envelopes are small, so a linear search
/// beats hashing every key.
struct Fields<'a>(Vec<(Cow<'a, str>, &'a str)>);

impl<'de> Deserialize<'de> for Fields<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Fields<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Fields<'de>, A::Error> {
                let mut fields: Vec<(Cow<'de, str>, &'de str)> = Vec::with_capacity(16);
                while let Some(Text(key)) = map.next_key::<Text>()? {
                    if key == "event" || key == "dialect" {
                        map.next_value::<de::IgnoredAny>()?;
                        continue;
                    }
                    let value = map.next_value::<&'de RawValue>()?.get();
                    match fields.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = value,
                        None => fields.push((key, value)),
                    }
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(V)
    }
}

/// A string, borrowed when the input allows.
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A value seen only for its text: strings as themselves, numbers and booleans as JSON text,
/// anything else skipped (`Other(None)`).
enum Scalar<'a> {
    Text(Cow<'a, str>),
    Other(Option<String>),
}

impl Scalar<'_> {
    fn describe(&self) -> &'static str {
        match self {
            Scalar::Text(_) => "a string",
            Scalar::Other(Some(_)) => "a number or boolean",
            Scalar::Other(None) => "null, an array or an object",
        }
    }
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Text(Cow::Owned(v.to_string())))
            }
            fn visit_bool<E>(self, v: bool) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Some(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Some(v.to_string())))
            }
            fn visit_u64<E>(self, v: u64) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Some(v.to_string())))
            }
            fn visit_f64<E>(self, v: f64) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Other(Some(Value::from(v).to_string())))
            }
            fn visit_unit<E>(self) -> std::result::Result<Scalar<'de>, E> {
                Ok(Scalar::Other(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Scalar<'de>, A::Error> {
                SkipVisitor.visit_seq(seq).map(|_| Scalar::Other(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Scalar<'de>, A::Error> {
                SkipVisitor.visit_map(map).map(|_| Scalar::Other(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Skips any value through `deserialize_any`, so serde_json's recursion limit applies (unlike
/// `IgnoredAny`, which skips iteratively and would accept what the full parse rejects).
struct Skip;

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> std::result::Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Skip, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

/// Everything hooks receive from one envelope, computed once per fire and shared by its hooks.
#[derive(Debug)]
pub struct Envelope {
    pub event: Event,
    /// Compact JSON, `event` first, then the other fields in the order received, each value's
    /// text as received minus insignificant whitespace.
    pub json: String,
    /// Every field of `json` but `event`, in order: its key and where its value's text is in
    /// `json`. Every other view of the envelope (variables, Claude Code's stdin, a rewrite) is
    /// made from these, never by parsing `json` again (docs/envelope.md "One envelope").
    fields: Vec<(Key, Range<usize>)>,
    /// The `OH_*` variables this envelope sets, `OH_EVENT` first: made on first use, since only
    /// command hooks read them (a fire of callback or HTTP hooks never does).
    vars: OnceLock<Vec<(&'static str, String)>>,
}

/// A field's key: where `json` has it (written without escapes, as nearly every key is), or its
/// own text. Spans, not a `String` per key: a fire that runs a hook allocates one text for the
/// envelope, not one more per field.
#[derive(Debug)]
enum Key {
    At(Range<usize>),
    Own(Box<str>),
}

impl Envelope {
    /// The full look, after [`head::parse_head`] accepted the same text. Values are kept as raw JSON
    /// text: nothing is built for fields no hook reads.
    pub fn parse(text: &str, event: Event) -> Result<Envelope> {
        Envelope::parse_with(text, event, None)
    }

    /// [`Envelope::parse`], from the fields [`head::parse_head`] gathered when it has them.
    pub fn parse_with<'a>(
        text: &'a str,
        event: Event,
        fields: Option<Vec<(Cow<'a, str>, &'a str)>>,
    ) -> Result<Envelope> {
        let fields = match fields {
            Some(f) => f,
            None => {
                serde_json::from_str::<Fields>(text)
                    .map_err(|e| invalid(format!("the envelope is not a valid JSON object ({e})")))?
                    .0
            }
        };
        // What hosts usually send is already the compact form (`event` first, no repeated key, no
        // whitespace between tokens): then it is the envelope's JSON as it is.
        // `{"event":"<name>"` exactly, then the other fields.
        let head = text
            .strip_prefix(r#"{"event":""#)
            .and_then(|t| t.strip_prefix(event.name()))
            .filter(|t| t.starts_with('"'));
        // A key with `_` may need its camelCase copy (see `build`): then the text is rebuilt.
        // Keys are a few bytes: a plain loop, not a memchr call per key.
        let no_alias = fields.iter().all(|(k, _)| k.bytes().all(|b| b != b'_'));
        if no_alias && head.is_some_and(|rest| verbatim(text, text.len() - rest.len() + 1, &fields)) {
            // `verbatim` checked that every value is a slice of `text` in place.
            let base = text.as_ptr() as usize;
            // ...and every key too (borrowed from `text`, checked by address). Consumed, not
            // borrowed: the spans are the same size as the fields, so they take over their
            // buffer (std's in-place collect) instead of allocating another.
            let spans = fields
                .into_iter()
                .map(|(k, v)| {
                    let (key, start) = (k.as_ptr() as usize - base, v.as_ptr() as usize - base);
                    (Key::At(key..key + k.len()), start..start + v.len())
                })
                .collect();
            return Ok(Envelope { event, json: text.to_string(), fields: spans, vars: OnceLock::new() });
        }
        Ok(Envelope::build(event, fields.iter().map(|(k, v)| (&**k, *v))))
    }

    /// An envelope the engine makes itself (`configChange`).
    pub fn from_fields(event: Event, fields: &Map<String, Value>) -> Envelope {
        let raw: Vec<(&str, String)> = fields.iter().map(|(k, v)| (k.as_str(), v.to_string())).collect();
        Envelope::build(event, raw.iter().map(|(k, v)| (*k, v.as_str())))
    }

    /// `fields`: keys and their values' JSON text, in order, without duplicates.
    fn build<'a>(event: Event, fields: impl Iterator<Item = (&'a str, &'a str)> + Clone) -> Envelope {
        let mut json: Vec<u8> =
            Vec::with_capacity(64 + fields.clone().map(|(k, v)| k.len() + v.len() + 4).sum::<usize>());
        // A set only when a linear look per field would add up.
        let keys: Option<std::collections::HashSet<&str>> =
            (fields.clone().nth(16).is_some()).then(|| fields.clone().map(|(k, _)| k).collect());
        let given = |name: &str| match &keys {
            Some(set) => set.contains(name),
            None => fields.clone().any(|(k, _)| k == name),
        };
        let mut spans = Vec::with_capacity(fields.clone().count() + 4);
        json.extend_from_slice(b"{\"event\":\"");
        json.extend_from_slice(event.name().as_bytes());
        json.push(b'"');
        for (key, raw) in fields.clone().filter(|(k, _)| *k != "event") {
            // (`Fields` has no `event`; `from_fields` may.)
            json.push(b',');
            // Most keys need no escaping (plain ASCII letters): copied as they are.
            let at = if key.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b < 0x7f) {
                json.push(b'"');
                json.extend_from_slice(key.as_bytes());
                json.push(b'"');
                Key::At(json.len() - 1 - key.len()..json.len() - 1)
            } else {
                serde_json::to_writer(&mut json, key).expect("writing to a Vec cannot fail");
                Key::Own(key.into())
            };
            json.push(b':');
            let start = json.len();
            push_compact(&mut json, raw);
            spans.push((at, start..json.len()));
            // A snake_case field is followed by its camelCase name (unless the host gave that
            // too), so an openHarness hook finds it under the name it knows. camelCase fields
            // get no snake_case copy here: Claude Code hooks have their own stdin, and copying
            // would double every large field for every jsonIO hook.
            if let Some(alias) = alias(key).filter(|a| key.contains('_') && !given(a)) {
                let value = json[start..].to_vec();
                json.push(b',');
                serde_json::to_writer(&mut json, &alias).expect("writing to a Vec cannot fail");
                json.push(b':');
                let at = json.len();
                json.extend_from_slice(&value);
                spans.push((Key::Own(alias.into()), at..json.len()));
            }
        }
        json.push(b'}');
        let json = String::from_utf8(json).expect("JSON text from UTF-8 parts is UTF-8");
        Envelope { event, json, fields: spans, vars: OnceLock::new() }
    }

    /// Every field but `event`, in order: its key and its value's JSON text as received (minus
    /// insignificant whitespace), a lone surrogate escape or `1e999` included.
    pub fn fields(&self) -> impl Iterator<Item = (&str, &str)> + Clone + '_ {
        self.fields.iter().map(|(k, r)| {
            let key = match k {
                Key::At(at) => &self.json[at.clone()],
                Key::Own(key) => key,
            };
            (key, &self.json[r.clone()])
        })
    }

    /// The JSON text of field `key`, as received.
    pub fn raw(&self, key: &str) -> Option<&str> {
        self.fields().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The `OH_*` variables this envelope sets, `OH_EVENT` first.
    pub fn vars(&self) -> &[(&'static str, String)] {
        self.vars.get_or_init(|| variables(self.event, self.fields()))
    }

    /// This envelope with a hook's rewrites applied (docs/dialects/claude.md "Claude Code hooks"): later hooks receive the new
    /// tool input (under every spelling the envelope carries it, `toolInputJson` as text) and
    /// the new prompt.
    pub fn rewritten(&self, input: Option<&Value>, prompt: Option<&str>) -> Envelope {
        let mut fields: Vec<(&str, Cow<str>)> = self.fields().map(|(k, v)| (k, Cow::Borrowed(v))).collect();
        if let Some(input) = input {
            let text = input.to_string();
            let mut set = false;
            for (key, value) in fields.iter_mut() {
                if matches!(*key, "toolInput" | "tool_input") {
                    *value = Cow::Owned(text.clone());
                    set = true;
                } else if matches!(*key, "toolInputJson" | "tool_input_json") {
                    *value = Cow::Owned(Value::String(text.clone()).to_string());
                }
            }
            if !set {
                fields.push(("toolInput", Cow::Owned(text)));
            }
        }
        if let Some(prompt) = prompt {
            let text = Value::String(prompt.to_string()).to_string();
            match fields.iter_mut().find(|(k, _)| *k == "prompt") {
                Some(slot) => slot.1 = Cow::Owned(text),
                None => fields.push(("prompt", Cow::Owned(text))),
            }
        }
        Envelope::build(self.event, fields.iter().map(|(k, v)| (*k, &**v)))
    }

    /// The first variable whose value holds a NUL byte, which no process environment can carry.
    pub fn nul_variable(&self) -> Option<&'static str> {
        self.vars().iter().find(|(_, v)| v.contains('\0')).map(|(k, _)| *k)
    }
}

/// The other spelling of a field name: `toolName` ↔ `tool_name`. `None` when the name has
/// only one (`event`, `prompt`) or is neither camelCase nor snake_case (`Tool-Name`, `a__b`).
pub fn alias(key: &str) -> Option<String> {
    let first_lower = key.starts_with(|c: char| c.is_ascii_lowercase());
    if !first_lower || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let has_upper = key.chars().any(|c| c.is_ascii_uppercase());
    let has_underscore = key.contains('_');
    match (has_upper, has_underscore) {
        (true, false) => Some(to_snake(key)),
        (false, true) if !key.contains("__") && !key.ends_with('_') => Some(to_camel(key)),
        _ => None,
    }
}

/// `toolName` → `tool_name`; snake_case stays.
/// Whether `key` is [`to_snake`] of `camel`, without building it.
fn is_snake_of(key: &str, camel: &str) -> bool {
    let mut k = key.bytes();
    let mut first = true;
    for c in camel.bytes() {
        if c.is_ascii_uppercase() {
            if !first && k.next() != Some(b'_') {
                return false;
            }
            if k.next() != Some(c.to_ascii_lowercase()) {
                return false;
            }
        } else if k.next() != Some(c) {
            return false;
        }
        first = false;
    }
    k.next().is_none()
}

pub fn to_snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `tool_name` → `toolName`.
pub fn to_camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The `OH_*` variables of an envelope's fields (keys and their values' JSON text).
fn variables<'a>(
    event: Event,
    fields: impl Iterator<Item = (&'a str, &'a str)> + Clone,
) -> Vec<(&'static str, String)> {
    // One pass over the fields for the table, `prompt` and `effort`: each field's camelCase
    // spelling first, its snake_case one when the camelCase one is not given. Every name here
    // starts with a lowercase letter, so a key without `_` is the snake_case spelling of one only
    // when it is that name itself (`model`, `prompt`): the equality already found it, and
    // `is_snake_of` runs only for keys with `_` (a lookup per name, each building the snake_case
    // spelling, was most of a command hook's per-fire work in the engine; then a pass that
    // compared every key with every name both ways, a third of it).
    let mut camel: [Option<&str>; FIELD_VARS.len()] = [None; FIELD_VARS.len()];
    let mut snake: [Option<&str>; FIELD_VARS.len()] = [None; FIELD_VARS.len()];
    let (mut prompt, mut effort) = (None, None);
    for (key, value) in fields {
        if key.as_bytes().contains(&b'_') {
            if let Some(i) = FIELD_VARS.iter().position(|(name, _)| is_snake_of(key, name)) {
                snake[i].get_or_insert(value);
            }
        } else if let Some(i) = FIELD_VARS.iter().position(|(name, _)| key == *name) {
            camel[i].get_or_insert(value);
        } else if key == "prompt" {
            prompt.get_or_insert(value);
        } else if key == "effort" {
            effort.get_or_insert(value);
        }
    }
    let mut vars = Vec::with_capacity(FIELD_VARS.len() + 3);
    vars.push(("OH_EVENT", event.name().to_string()));
    for (i, (_, var)) in FIELD_VARS.iter().enumerate() {
        if let Some(text) = camel[i].or(snake[i]).and_then(variable_text) {
            vars.push((*var, text));
        }
    }
    if let Some(raw) = prompt {
        match raw.starts_with('"') {
            true => vars.push(("OH_PROMPT", cut_at_char_boundary(&json::decode_string(raw), PROMPT_LIMIT).to_string())),
            false => vars.extend(variable_text(raw).map(|t| ("OH_PROMPT", t))),
        }
    }
    let level = effort
        .and_then(json::value)
        .and_then(json::Val::as_object)
        .and_then(|effort| effort.get_by("level", |_| false))
        .and_then(|level| variable_text(level.raw()));
    vars.extend(level.map(|l| ("OH_EFFORT", l)));
    vars
}

/// Valid JSON text with no whitespace between tokens (inside strings it is content).
fn is_compact(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = json::string_end(b, i + 1),
            b' ' | b'\n' | b'\r' | b'\t' => return false,
            _ => i += 1,
        }
    }
    true
}

/// Whether `text` from `start` is exactly each field as `,"key":value`, then `}`, with compact
/// values: then it has no repeated key (a repeat would leave a gap) and no whitespace between
/// tokens. Keys and values are slices of `text`, so their places are checked by address.
fn verbatim(text: &str, start: usize, fields: &[(Cow<'_, str>, &str)]) -> bool {
    let (b, base) = (text.as_bytes(), text.as_ptr() as usize);
    let mut pos = start;
    for (key, value) in fields {
        if b.get(pos) != Some(&b',') {
            return false;
        }
        pos += 1;
        let Cow::Borrowed(key) = key else { return false };
        if key.as_ptr() as usize != base + pos + 1 || b.get(pos + key.len() + 2) != Some(&b':') {
            return false;
        }
        pos += key.len() + 3;
        let raw = *value;
        if raw.as_ptr() as usize != base + pos || (matches!(raw.as_bytes()[0], b'{' | b'[') && !is_compact(raw)) {
            return false;
        }
        pos += raw.len();
    }
    pos + 1 == b.len() && b[pos] == b'}'
}

/// The JSON a string value holds (`"{\"command\":\"ls\"}"`), compact, when it holds one; JSON
/// only this reader accepts (`NaN`, raw control characters) is written out again so that every
/// hook's reader reads the line.
pub fn json_in_string(raw: &str) -> Option<String> {
    if !raw.starts_with('"') {
        return None;
    }
    let inner = json::decode_string(raw);
    let value = json::value(&inner)?;
    if serde_json::from_str::<serde::de::IgnoredAny>(&inner).is_ok() {
        let mut out = Vec::with_capacity(inner.len());
        push_compact(&mut out, value.raw());
        return String::from_utf8(out).ok();
    }
    value.to_value().map(|v| v.to_string())
}

/// Appends valid JSON text without its insignificant whitespace, copying the runs between
/// whitespace whole and jumping through strings with memchr.
pub(crate) fn push_compact(out: &mut Vec<u8>, raw: &str) {
    let b = raw.as_bytes();
    let (mut i, mut start) = (0, 0);
    while i < b.len() {
        match b[i] {
            // To the closing quote: past every escape (a backslash and the byte after it).
            b'"' => i = json::string_end(b, i + 1),
            b' ' | b'\n' | b'\r' | b'\t' => {
                out.extend_from_slice(&b[start..i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    out.extend_from_slice(&b[start..]);
}

/// From a value's JSON text: a non-empty string as itself; a number or boolean as its JSON
/// text; otherwise nothing.
fn variable_text(raw: &str) -> Option<String> {
    match raw.as_bytes().first()? {
        // Without escapes the text between the quotes is the value.
        b'"' if !raw.contains('\\') => Some(raw[1..raw.len() - 1].to_string()).filter(|s| !s.is_empty()),
        // A lone surrogate escape becomes U+FFFD: the variable is set (1.1 left it unset).
        b'"' => Some(json::decode_string(raw).into_owned()).filter(|s| !s.is_empty()),
        b't' | b'f' | b'-' | b'0'..=b'9' => Some(raw.to_string()),
        _ => None,
    }
}

pub fn cut_at_char_boundary(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::head::parse_head;
    use super::*;

    #[test]
    fn compact_input_is_kept_and_anything_else_rebuilt() {
        let compact = r#"{"event":"preToolUse","toolName":"Bash","x":{"a":[1,"b\"c: d"]},"s":"a b"}"#;
        assert_eq!(Envelope::parse(compact, Event::PreToolUse).unwrap().json, compact);
        for (text, want) in [
            (r#"{"toolName":"Bash","event":"preToolUse"}"#, r#"{"event":"preToolUse","toolName":"Bash"}"#),
            (r#"{"event":"preToolUse","a":1,"a":2}"#, r#"{"event":"preToolUse","a":2}"#),
            (r#"{ "event" : "preToolUse", "a" : [1, 2] }"#, r#"{"event":"preToolUse","a":[1,2]}"#),
            (r#"{"event":"pre\u0054oolUse"}"#, r#"{"event":"preToolUse"}"#),
            (r#"{"event":"preToolUse","k\"":"v"}"#, r#"{"event":"preToolUse","k\"":"v"}"#),
        ] {
            assert_eq!(Envelope::parse(text, Event::PreToolUse).unwrap().json, want, "{text}");
        }
        assert!(!verbatim(r#"{"a":1} "#, 7, &[]));
        assert!(verbatim(r#"{"a":1}"#, 6, &[]));
    }

    /// Every view of the envelope comes from the spans of the one parse (docs/envelope.md "One envelope"):
    /// verbatim and rebuilt alike, and a rewrite keeps every other field as written.
    #[test]
    fn is_snake_of_agrees_with_to_snake() {
        let keys = [
            "tool_name",
            "toolName",
            "tool_args",
            "_tool_name",
            "tool__name",
            "toolname",
            "tool_name_",
            "model",
            "Model",
            "turn_number",
            "t",
            "",
        ];
        for (camel, _) in FIELD_VARS.iter().chain(&[("prompt", ""), ("effort", ""), ("A", "")]) {
            assert!(is_snake_of(&to_snake(camel), camel), "{camel}");
            for key in keys {
                assert_eq!(is_snake_of(key, camel), to_snake(camel) == key, "{key} vs {camel}");
            }
        }
    }

    #[test]
    fn fields_are_spans_of_the_one_parse() {
        for text in [
            r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"rm \ud800","n":1e999}"#,
            r#"{ "toolName" : "Bash", "event":"preToolUse", "tool_input": {"command": "x"}, "n": -1e400 }"#,
        ] {
            let head = parse_head(text).unwrap();
            let env = Envelope::parse(text, head.event).unwrap();
            let fields: Vec<(&str, &str)> = env.fields().collect();
            assert!(fields.iter().any(|(k, _)| *k == "toolName"), "{fields:?}");
            let rebuilt = Envelope::build(env.event, env.fields());
            assert_eq!(rebuilt.json, env.json, "the spans are the JSON's values");
            let rewritten = env.rewritten(Some(&serde_json::json!({"command": "rm -rf /"})), Some("p"));
            assert_eq!(rewritten.raw("toolName"), Some(r#""Bash""#));
            assert!(rewritten.raw("n").unwrap().ends_with("e999") || rewritten.raw("n") == Some("-1e400"));
            assert_eq!(rewritten.raw("toolInput"), Some(r#"{"command":"rm -rf /"}"#));
            assert_eq!(rewritten.raw("prompt"), Some(r#""p""#));
        }
        let env = Envelope::parse(r#"{"event":"preToolUse","toolArgs":"rm \ud800"}"#, Event::PreToolUse).unwrap();
        assert_eq!(env.vars().iter().find(|(k, _)| *k == "OH_TOOL_ARGS").unwrap().1, "rm \u{FFFD}");
    }

    #[test]
    fn head() {
        let h = parse_head(r#"{"toolName":"Bash","event":"preToolUse","x":[{"a":1}]}"#).unwrap();
        assert_eq!(h.event, Event::PreToolUse);
        assert_eq!(h.tool.as_deref(), Some("Bash"));
        assert!(matches!(h.tool, Some(Cow::Borrowed(_))));
        let h = parse_head(r#"{"event":"preToolUse","toolName":7}"#).unwrap();
        assert_eq!(h.tool.as_deref(), Some("7"));
    }

    #[test]
    fn head_errors() {
        let code = |s: &str| parse_head(s).unwrap_err().code;
        assert_eq!(code("{"), ErrorCode::InvalidEnvelope);
        assert_eq!(code("[]"), ErrorCode::InvalidEnvelope);
        assert_eq!(code("{}"), ErrorCode::InvalidEnvelope);
        assert_eq!(code(r#"{"event":1}"#), ErrorCode::InvalidEnvelope);
        assert_eq!(code(r#"{"event":"preToolUse"} x"#), ErrorCode::InvalidEnvelope);
        assert_eq!(code(r#"{"event":"PreToolUse"}"#), ErrorCode::UnknownEvent);
        let deep = format!("{{\"event\":\"preToolUse\",\"x\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(code(&deep), ErrorCode::InvalidEnvelope);
    }

    #[test]
    fn compact_json_event_first_and_variables() {
        let text = r#"{"toolName":"Bash","event":"preToolUse","turnNumber":0,"worktreeForced":false,"model":"","extra":{"a": 1.5},"effort":{"level":"high"}}"#;
        let head = parse_head(text).unwrap();
        let env = Envelope::parse(text, head.event).unwrap();
        assert_eq!(
            env.json,
            r#"{"event":"preToolUse","toolName":"Bash","turnNumber":0,"worktreeForced":false,"model":"","extra":{"a":1.5},"effort":{"level":"high"}}"#
        );
        // Whitespace goes, string contents and number spellings stay.
        let spaced = "{ \"event\" : \"preToolUse\", \"a\" : [ 1.0 , \"x \\\" y\" ], \"b\": { \"c\" : 1e3 } }";
        let spaced = Envelope::parse(spaced, Event::PreToolUse).unwrap();
        assert_eq!(spaced.json, r#"{"event":"preToolUse","a":[1.0,"x \" y"],"b":{"c":1e3}}"#);
        let mut out = Vec::new();
        push_compact(&mut out, r#"[ "q\"uote\\ \u00e9 é \n" , 1 ]"#);
        assert_eq!(String::from_utf8(out).unwrap(), r#"["q\"uote\\ \u00e9 é \n",1]"#, "escapes inside strings");
        // A repeated key keeps its first position and its last value.
        let repeated = Envelope::parse(r#"{"a":1,"event":"preToolUse","b":2,"a":3}"#, Event::PreToolUse).unwrap();
        assert_eq!(repeated.json, r#"{"event":"preToolUse","a":3,"b":2}"#);
        let get = |k: &str| env.vars().iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("OH_EVENT"), Some("preToolUse"));
        assert_eq!(get("OH_TOOL_NAME"), Some("Bash"));
        assert_eq!(get("OH_TURN_NUMBER"), Some("0"));
        assert_eq!(get("OH_WORKTREE_FORCED"), Some("false"));
        assert_eq!(get("OH_MODEL"), None);
        assert_eq!(get("OH_EFFORT"), Some("high"));
        assert_eq!(get("OH_PROMPT"), None);
    }

    #[test]
    fn both_spellings_reach_hooks() {
        let env = Envelope::parse(
            r#"{"event":"preToolUse","tool_name":"Bash","session_id":"s","tool_input":{"command":"ls"},"permissionMode":"plan","x_":1,"Weird":2}"#,
            Event::PreToolUse,
        )
        .unwrap();
        assert_eq!(
            env.json,
            r#"{"event":"preToolUse","tool_name":"Bash","toolName":"Bash","session_id":"s","sessionId":"s","tool_input":{"command":"ls"},"toolInput":{"command":"ls"},"permissionMode":"plan","x_":1,"Weird":2}"#
        );
        let get = |k: &str| env.vars().iter().find(|(n, _)| *n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("OH_TOOL_NAME"), Some("Bash"));
        assert_eq!(get("OH_SESSION_ID"), Some("s"));
        assert_eq!(get("OH_PERMISSION_MODE"), Some("plan"));
        // Both given: each keeps its own value, camelCase feeds the variable.
        let env =
            Envelope::parse(r#"{"event":"preToolUse","tool_name":"a","toolName":"b"}"#, Event::PreToolUse).unwrap();
        assert_eq!(env.json, r#"{"event":"preToolUse","tool_name":"a","toolName":"b"}"#);
        assert_eq!(env.vars().iter().find(|(n, _)| *n == "OH_TOOL_NAME").unwrap().1, "b");
        assert_eq!(parse_head(r#"{"event":"preToolUse","tool_name":"Bash"}"#).unwrap().tool.as_deref(), Some("Bash"));
        assert_eq!(
            parse_head(r#"{"event":"preToolUse","toolName":"A","tool_name":"B"}"#).unwrap().tool.as_deref(),
            Some("A")
        );
        assert_eq!(alias("toolName").as_deref(), Some("tool_name"));
        assert_eq!(alias("tool_use_id").as_deref(), Some("toolUseId"));
        assert_eq!(alias("prompt"), None);
        assert_eq!(alias("a__b"), None);
    }

    #[test]
    fn prompt_cut_on_char_boundary() {
        let prompt = "é".repeat(5000); // 10000 bytes
        let env =
            Envelope::parse(&serde_json::json!({ "prompt": prompt }).to_string(), Event::UserPromptSubmit).unwrap();
        let p = &env.vars().iter().find(|(n, _)| *n == "OH_PROMPT").unwrap().1;
        assert_eq!(p.len(), 8192);
        let empty: Map<String, Value> = serde_json::from_value(serde_json::json!({ "prompt": "" })).unwrap();
        let env = Envelope::from_fields(Event::UserPromptSubmit, &empty);
        assert!(env.vars().iter().any(|(n, v)| *n == "OH_PROMPT" && v.is_empty()));
    }
}
