//! The one tolerant JSON reader (docs/envelope.md "Reading answers"): every answer of every dialect goes
//! through it — jsonIO stdout, HTTP bodies, callback answers, persistent workers' lines, Claude
//! Code stdout and bodies — and the envelope's strings are decoded by it. What a dialect's keys
//! mean is decided by pure functions over its [`Obj`] view ([`super::parse`],
//! [`super::claude`]); this module only reads.
//!
//! A hook's answer is untrusted input that decides whether a tool runs, so whatever the bytes, a
//! deny must not be read as "no decision":
//! - invalid UTF-8 is read with U+FFFD in its place, and a leading byte-order mark is skipped
//!   (a guard that cuts an echoed command with `head -c` may cut a character in two);
//! - a lone surrogate escape (`"\ud800"`, which Python's `json.dumps` writes for a lone
//!   surrogate in its input) is read as U+FFFD, as are unknown escapes and raw control
//!   characters inside strings read as themselves (Python's `strict=False`);
//! - nesting depth is unbounded: the scanner is iterative, and only the values a reader asks
//!   for are built;
//! - numbers are only scanned, never converted, unless a value is built (`1e999` is then
//!   `null`); `NaN`, `Infinity` and `-Infinity` (Python's defaults) are read as `null`;
//! - a key given more than once keeps every value: [`Obj::get_by`] takes the last value the
//!   dialect calls a refusal, else the last value, so a later `null`, `allow` or object cannot
//!   erase an earlier deny.
//!
//! Only text that does not parse structurally (a missing quote or bracket, trailing text) is
//! malformed, and then serde_json's own message says where.

use serde_json::{Map, Value};
use std::borrow::Cow;

/// How deep a value the reader builds ([`Val::to_value`]) may nest: `Value` is recursive (its
/// drop too), so a built value has a bound; reading and deciding have none. Above the 128 levels
/// an envelope may have, so a hook echoing a tool input back is always built.
pub const MAX_VALUE_DEPTH: usize = 512;

/// An answer's bytes as text: invalid UTF-8 replaced by U+FFFD, a leading byte-order mark
/// dropped. Borrowed when the bytes are valid UTF-8.
pub fn text(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    // `from_utf8` checks ASCII a word at a time; `from_utf8_lossy` walks byte by byte even
    // when nothing needs replacing (about 2,000 instructions for a 278-byte answer).
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Why a text is not a JSON object.
#[derive(Debug, PartialEq)]
pub enum NotAnObject {
    /// Not JSON (with a message saying where).
    Invalid(String),
    /// Valid JSON, but an array, string, number, boolean or null.
    OtherValue,
}

/// Reads `text` (see [`text`]) as one JSON object, surrounded by whitespace only.
pub fn object(text: &str) -> Result<Obj<'_>, NotAnObject> {
    let mut s = Scan::new(text);
    s.ws();
    if s.peek() != Some(b'{') {
        return match s.value().and_then(|_| s.end()) {
            Ok(()) => Err(NotAnObject::OtherValue),
            Err(at) => Err(NotAnObject::Invalid(why(text, at))),
        };
    }
    // One pass: the members are gathered while the text is checked (checking it whole, then
    // walking it again for the members, read every answer twice).
    s.members().and_then(|obj| s.end().map(|()| obj)).map_err(|at| NotAnObject::Invalid(why(text, at)))
}

/// Reads `text` as one JSON value of any kind (the envelope's fields, a string holding JSON).
pub fn value(text: &str) -> Option<Val<'_>> {
    let mut s = Scan::new(text);
    s.ws();
    let start = s.i;
    s.value().and_then(|_| s.end()).ok()?;
    Some(Val(text[start..].trim_end_matches(is_ws_char)))
}

/// serde_json's explanation of what is wrong (its messages say line and column); ours when
/// serde_json reads the text after all (it never does: it accepts less than this reader).
fn why(text: &str, at: usize) -> String {
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Err(e) => e.to_string(),
        Ok(_) => format!("unexpected text at byte {at}"),
    }
}

fn is_ws_char(c: char) -> bool {
    matches!(c, ' ' | '\n' | '\r' | '\t')
}

/// One value of a scanned text, as its raw JSON text (whitespace inside containers included).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Val<'a>(&'a str);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    /// For messages: "a string", "an object", ….
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Number => "a number",
            Kind::String => "a string",
            Kind::Array => "a list",
            Kind::Object => "an object",
        }
    }
}

impl<'a> Val<'a> {
    /// The value's JSON text as written.
    pub fn raw(self) -> &'a str {
        self.0
    }

    pub fn kind(self) -> Kind {
        match self.0.as_bytes().first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            // `NaN`, `Infinity`, `-Infinity`: not numbers JSON can hold.
            Some(b'N' | b'I') | None => Kind::Null,
            Some(b'-') if self.0.as_bytes().get(1) == Some(&b'I') => Kind::Null,
            Some(b'n') => Kind::Null,
            Some(_) => Kind::Number,
        }
    }

    /// The string, decoded (lone surrogates and unknown escapes as U+FFFD or themselves).
    pub fn as_str(self) -> Option<Cow<'a, str>> {
        (self.kind() == Kind::String).then(|| decode_string(self.0))
    }

    /// A non-empty string (what "a reason" means in every dialect).
    pub fn text(self) -> Option<String> {
        self.as_str().filter(|s| !s.is_empty()).map(Cow::into_owned)
    }

    pub fn as_bool(self) -> Option<bool> {
        match self.0 {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    pub fn is_null(self) -> bool {
        self.kind() == Kind::Null
    }

    /// Whether the value is this string.
    pub fn is(self, s: &str) -> bool {
        // A string of another length cannot decode to `s` unless it has escapes.
        self.kind() == Kind::String
            && (self.0.len() == s.len() + 2 || self.0.contains('\\'))
            && decode_string(self.0) == s
    }

    /// The object's entries, in order, repeated keys kept.
    pub fn as_object(self) -> Option<Obj<'a>> {
        if self.kind() != Kind::Object {
            return None;
        }
        let mut s = Scan::new(self.0);
        let mut entries = Vec::new();
        s.i = 1;
        s.ws();
        if s.peek() == Some(b'}') {
            return Some(Obj { entries });
        }
        loop {
            s.ws();
            let key_start = s.i;
            s.string().ok()?;
            let key = decode_string(&self.0[key_start..s.i]);
            s.ws();
            s.i += 1; // ':'
            s.ws();
            let start = s.i;
            s.value().ok()?;
            entries.push((key, Val(&self.0[start..s.i])));
            s.ws();
            match s.bump() {
                Some(b',') => continue,
                _ => return Some(Obj { entries }),
            }
        }
    }

    /// The value built as a `serde_json::Value` (for rewrites and matchers): `None` when it
    /// nests deeper than [`MAX_VALUE_DEPTH`]. Numbers a `Value` cannot hold (`1e999`, `NaN`)
    /// are `null`; a repeated key keeps a refusing value over a later one that does not refuse.
    pub fn to_value(self) -> Option<Value> {
        let mut s = Scan::new(self.0);
        build(&mut s, 0)
    }
}

/// A JSON object's entries in order; a repeated key keeps all its values.
#[derive(Debug, Clone, PartialEq)]
pub struct Obj<'a> {
    entries: Vec<(Cow<'a, str>, Val<'a>)>,
}

impl<'a> Obj<'a> {
    pub fn entries(&self) -> impl Iterator<Item = (&str, Val<'a>)> + '_ {
        self.entries.iter().map(|(k, v)| (&**k, *v))
    }

    /// The value of `key`: the last one `refuses` holds for, else the last one. Each dialect says
    /// what a refusal is for its keys; so `"decision":"deny","decision":"allow"` and
    /// `"hookSpecificOutput":{…deny…},"hookSpecificOutput":null` read as the deny.
    pub fn get_by(&self, key: &str, refuses: impl Fn(Val<'a>) -> bool) -> Option<Val<'a>> {
        let mut last = None;
        for (k, v) in self.entries.iter().rev() {
            if k != key {
                continue;
            }
            if refuses(*v) {
                return Some(*v);
            }
            last.get_or_insert(*v);
        }
        last
    }

    /// [`Obj::get_by`] with the refusal every dialect shares: the value is `false`, `"deny"` or
    /// `"block"`, or holds one of them at any depth.
    pub fn get(&self, key: &str) -> Option<Val<'a>> {
        self.get_by(key, holds_refusal)
    }

    /// The object built as a map (see [`Val::to_value`]).
    pub fn to_map(&self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        for (k, v) in &self.entries {
            insert_sticky(&mut map, k.to_string(), v.to_value()?);
        }
        Some(map)
    }
}

/// Whether a value is, or holds at any depth, `false`, `"deny"` or `"block"`: the answers that
/// refuse something in every dialect's vocabulary.
pub fn holds_refusal(v: Val) -> bool {
    let b = v.0.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = string_end(b, i + 1);
                let raw = &v.0[i..end.min(b.len())];
                if raw.len() <= 24 && matches!(&*decode_string(raw), "deny" | "block") {
                    return true;
                }
                i = end;
            }
            b'f' if b[i..].starts_with(b"false") => return true,
            _ => i += 1,
        }
    }
    false
}

fn refuses_value(v: &Value) -> bool {
    match v {
        Value::Bool(false) => true,
        Value::String(s) => s == "deny" || s == "block",
        Value::Array(a) => a.iter().any(refuses_value),
        Value::Object(o) => o.values().any(refuses_value),
        _ => false,
    }
}

fn insert_sticky(map: &mut Map<String, Value>, key: String, v: Value) {
    match map.get_mut(&key) {
        Some(old) if refuses_value(old) && !refuses_value(&v) => {}
        Some(old) => *old = v,
        None => {
            map.insert(key, v);
        }
    }
}

/// Index after the closing quote of the string whose content starts at `i` (the text's end
/// when unterminated): the one "skip a JSON string" of the engine's readers (the envelope's
/// too; only the no-match shortcut in `quick.rs` scans its own, as it also notes non-ASCII).
pub(crate) fn string_end(b: &[u8], i: usize) -> usize {
    string_close(b, i).unwrap_or(b.len())
}

/// Index after the closing quote of the string whose content starts at `i`, if it has one.
fn string_close(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        match memchr::memchr2(b'"', b'\\', b.get(i..).unwrap_or(&[])) {
            Some(j) if b[i + j] == b'\\' => i += j + 2,
            Some(j) => return Some(i + j + 1),
            None => return None,
        }
    }
}

/// A string's JSON text (quotes included) decoded: escapes resolved, a lone surrogate escape as
/// U+FFFD, an unknown escape as the text after its backslash. Borrowed when it has no escapes.
pub fn decode_string(raw: &str) -> Cow<'_, str> {
    let inner = raw.strip_prefix('"').map(|r| r.strip_suffix('"').unwrap_or(r)).unwrap_or(raw);
    if !inner.contains('\\') {
        return Cow::Borrowed(inner);
    }
    let b = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut i = 0;
    while i < b.len() {
        let Some(j) = memchr::memchr(b'\\', &b[i..]) else {
            out.push_str(&inner[i..]);
            break;
        };
        out.push_str(&inner[i..i + j]);
        i += j + 1;
        let Some(&c) = b.get(i) else { break };
        i += 1;
        match c {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => match hex4(b, i) {
                Some(hi @ 0xD800..=0xDBFF) => {
                    let lo = (b.get(i + 4) == Some(&b'\\') && b.get(i + 5) == Some(&b'u'))
                        .then(|| hex4(b, i + 6))
                        .flatten()
                        .filter(|lo| (0xDC00..=0xDFFF).contains(lo));
                    match lo {
                        Some(lo) => {
                            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                            i += 10;
                        }
                        None => {
                            out.push('\u{FFFD}');
                            i += 4;
                        }
                    }
                }
                Some(u) => {
                    out.push(char::from_u32(u).unwrap_or('\u{FFFD}'));
                    i += 4;
                }
                None => out.push('u'),
            },
            _ => {
                // Not an escape JSON has: the character itself (a whole UTF-8 sequence).
                let start = i - 1;
                let mut end = i;
                while end < b.len() && (b[end] & 0xC0) == 0x80 {
                    end += 1;
                }
                out.push_str(&inner[start..end]);
                i = end;
            }
        }
    }
    Cow::Owned(out)
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let digits = b.get(i..i + 4)?;
    digits.iter().try_fold(0u32, |acc, d| Some(acc * 16 + (*d as char).to_digit(16)?))
}

/// The scanner: validates JSON text iteratively (any depth) and finds where values end.
struct Scan<'a> {
    t: &'a str,
    b: &'a [u8],
    i: usize,
}

type At = usize;

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Scan<'a> {
        Scan { t: text, b: text.as_bytes(), i: 0 }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.i += 1;
        }
    }

    fn end(&mut self) -> Result<(), At> {
        self.ws();
        if self.i == self.b.len() {
            Ok(())
        } else {
            Err(self.i)
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), At> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.i)
        }
    }

    /// A string from its opening quote. Control characters and any escape are read.
    fn string(&mut self) -> Result<(), At> {
        self.expect(b'"')?;
        self.i = string_close(self.b, self.i).ok_or(self.b.len())?;
        Ok(())
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), At> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(self.i)
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<(), At> {
        if self.peek() == Some(b'-') {
            self.i += 1;
            if self.peek() == Some(b'I') {
                return self.literal(b"Infinity");
            }
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.i),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.i);
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.i);
            }
        }
        Ok(())
    }

    fn scalar(&mut self) -> Result<(), At> {
        match self.peek() {
            Some(b'"') => self.string(),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'N') => self.literal(b"NaN"),
            Some(b'I') => self.literal(b"Infinity"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.i),
        }
    }

    /// The object at the scanner (at its `{`), checked as [`Scan::value`] checks it, with its
    /// entries in order.
    fn members(&mut self) -> Result<Obj<'a>, At> {
        self.expect(b'{')?;
        // Most answers have a handful of keys: one allocation instead of growing 1, 2, 4, 8.
        let mut entries = Vec::with_capacity(8);
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Obj { entries });
        }
        loop {
            self.ws();
            let key_start = self.i;
            self.string()?;
            let key = decode_string(&self.t[key_start..self.i]);
            self.ws();
            self.expect(b':')?;
            self.ws();
            let start = self.i;
            self.value()?;
            entries.push((key, Val(&self.t[start..self.i])));
            self.ws();
            match self.bump() {
                Some(b',') => {}
                Some(b'}') => return Ok(Obj { entries }),
                _ => return Err(self.i.saturating_sub(1)),
            }
        }
    }

    /// An object key and its colon.
    fn key(&mut self) -> Result<(), At> {
        self.ws();
        self.string()?;
        self.ws();
        self.expect(b':')
    }

    /// One value, any depth, without recursion: `stack` holds whether each open container is an
    /// object.
    fn value(&mut self) -> Result<(), At> {
        let mut stack: Vec<bool> = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                Some(b'{') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                    } else {
                        stack.push(true);
                        self.key()?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                    } else {
                        stack.push(false);
                        continue;
                    }
                }
                _ => self.scalar()?,
            }
            // After a value: close what ends here, then the next value.
            loop {
                let Some(&object) = stack.last() else { return Ok(()) };
                self.ws();
                match self.bump() {
                    Some(b',') => {
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    Some(b'}') if object => {
                        stack.pop();
                    }
                    Some(b']') if !object => {
                        stack.pop();
                    }
                    _ => return Err(self.i.saturating_sub(1)),
                }
            }
        }
    }
}

/// Builds the value at the scanner (text already scanned), at most [`MAX_VALUE_DEPTH`] deep.
fn build(s: &mut Scan, depth: usize) -> Option<Value> {
    if depth > MAX_VALUE_DEPTH {
        return None;
    }
    s.ws();
    let text = s.t;
    match s.peek()? {
        b'{' => {
            s.i += 1;
            let mut map = Map::new();
            loop {
                s.ws();
                match s.peek()? {
                    b'}' => {
                        s.i += 1;
                        return Some(Value::Object(map));
                    }
                    b',' => s.i += 1,
                    _ => {
                        let start = s.i;
                        s.string().ok()?;
                        let key = decode_string(&text[start..s.i]).into_owned();
                        s.ws();
                        s.expect(b':').ok()?;
                        let v = build(s, depth + 1)?;
                        insert_sticky(&mut map, key, v);
                    }
                }
            }
        }
        b'[' => {
            s.i += 1;
            let mut items = Vec::new();
            loop {
                s.ws();
                match s.peek()? {
                    b']' => {
                        s.i += 1;
                        return Some(Value::Array(items));
                    }
                    b',' => s.i += 1,
                    _ => items.push(build(s, depth + 1)?),
                }
            }
        }
        _ => {
            let start = s.i;
            s.scalar().ok()?;
            let v = Val(&text[start..s.i]);
            Some(match v.kind() {
                Kind::String => Value::String(decode_string(v.0).into_owned()),
                Kind::Bool => Value::Bool(v.0 == "true"),
                Kind::Null => Value::Null,
                _ => serde_json::from_str::<serde_json::Number>(v.0).map_or(Value::Null, Value::Number),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(s: &str) -> Obj<'_> {
        object(s).unwrap()
    }

    #[test]
    fn strings_decode_tolerantly() {
        assert_eq!(decode_string(r#""plain""#), "plain");
        assert_eq!(decode_string(r#""a\"b\\c\/\n\u00e9""#), "a\"b\\c/\né");
        assert_eq!(decode_string(r#""\ud83d\ude00""#), "😀");
        assert_eq!(decode_string(r#""x\ud800y""#), "x\u{FFFD}y");
        assert_eq!(decode_string(r#""\udc00\ud800""#), "\u{FFFD}\u{FFFD}");
        assert_eq!(decode_string(r#""\ud800\u0041""#), "\u{FFFD}A");
        assert_eq!(decode_string(r#""\q\é""#), "qé");
        assert_eq!(decode_string("\"\\u12\""), "u12");
    }

    #[test]
    fn any_json_object_is_read() {
        let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
        let body = format!(
            r#"{{"x":{deep},"n":1e999,"m":-1e400,"q":NaN,"i":-Infinity,"decision":"deny","reason":"no \ud800"}}"#
        );
        let o = obj(&body);
        assert!(o.get("decision").unwrap().is("deny"));
        assert_eq!(o.get("reason").unwrap().text().as_deref(), Some("no \u{FFFD}"));
        assert_eq!(o.get("n").unwrap().kind(), Kind::Number);
        assert_eq!(o.get("q").unwrap().kind(), Kind::Null);
        assert_eq!(o.get("x").unwrap().to_value(), None, "too deep to build");
        assert_eq!(object("[1]"), Err(NotAnObject::OtherValue));
        assert_eq!(object(" \"s\" "), Err(NotAnObject::OtherValue));
        for bad in [
            "{\"a\":1} x",
            "{\"a\":1}{}",
            "{nope",
            "{\"a\":}",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "[1,]",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":\"x}",
        ] {
            assert!(matches!(object(bad), Err(NotAnObject::Invalid(_))), "{bad}");
        }
        assert!(object("{\"a\":\"raw\ttab\nline\"}").is_ok(), "control characters in strings");
        assert_eq!(text(b"\xef\xbb\xbf{}"), "{}");
        assert_eq!(text(b"{\"r\":\"\xff\"}"), "{\"r\":\"\u{FFFD}\"}");
    }

    /// `object` in one pass reads what checking the whole value and then walking its members
    /// (`value` + `as_object`, the two passes it replaced) reads: same verdict, same entries.
    #[test]
    fn one_pass_object_reads_what_value_then_members_read() {
        fn two_pass(t: &str) -> Result<Obj<'_>, bool> {
            match value(t) {
                None => Err(true),
                Some(v) => v.as_object().ok_or(false),
            }
        }
        let mut read = 0;
        let mut check = |t: &str| {
            let one = object(t).map_err(|e| matches!(e, NotAnObject::Invalid(_)));
            read += one.as_ref().is_ok_and(|o| o.entries().count() > 1) as usize;
            assert_eq!(one, two_pass(t), "{t:?}");
        };
        let seeds = [
            r#"{"decision":"deny","reason":"no \"rm\"","hookSpecificOutput":{"a":[1,2.5e3,{"b":null}]},"x":true}"#,
            " { \"a\" : [ ] , \"b\" : { } , \"c\":\"\\u00e9\" }\n",
            r#"{"event":"preToolUse","toolName":"Bash","toolArgs":"{\"command\":\"ls\"}","n":-0.5,"q":NaN}"#,
            "{}",
        ];
        let alphabet = b"{}[]:,\" \\ntfu0-1.eE\t";
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for seed in seeds {
            check(seed);
            for _ in 0..5_000 {
                let mut b = seed.as_bytes().to_vec();
                for _ in 0..1 + next() % 3 {
                    let at = (next() % (b.len() as u64 + 1)) as usize;
                    let c = alphabet[(next() % alphabet.len() as u64) as usize];
                    match next() % 3 {
                        0 if at < b.len() => b[at] = c,
                        1 if at < b.len() => {
                            b.remove(at);
                        }
                        _ => b.insert(at, c),
                    }
                }
                check(&String::from_utf8_lossy(&b));
            }
        }
        // The edits must leave many objects readable, or the comparison proves little.
        assert!(read > 2_000, "only {read} edited texts were objects with members");
    }

    #[test]
    fn repeated_keys_keep_the_refusal() {
        let o = obj(
            r#"{"decision":"deny","decision":"allow","r":"a","r":"b","h":{"d":"deny"},"h":null,"c":false,"c":true}"#,
        );
        assert!(o.get("decision").unwrap().is("deny"));
        assert!(o.get("r").unwrap().is("b"), "otherwise the last value");
        assert_eq!(o.get("h").unwrap().raw(), r#"{"d":"deny"}"#);
        assert_eq!(o.get("c").unwrap().as_bool(), Some(false));
        let o = obj(r#"{"decision":"block","decision":"deny"}"#);
        assert!(o.get_by("decision", |v| v.is("deny")).unwrap().is("deny"), "each dialect says which refusal");
        let v = value(r#"{"a":{"p":"deny","p":"allow"},"k":1,"k":2,"big":1e999}"#).unwrap().to_value().unwrap();
        assert_eq!(v, serde_json::json!({"a":{"p":"deny"},"k":2,"big":null}));
    }
}
