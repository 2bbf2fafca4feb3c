//! The fire path's shortcut for the answer to almost every tool call: no hook can run, so the
//! outcome is the constant `{"allowed":true,"hooks":[]}` (docs/performance.md "Performance").
//!
//! The general path ([`crate::engine`]) parses the envelope with serde_json before it knows that
//! nothing matches; this module answers the same question from one pass over the text that
//! stops at nothing but `event` and `toolName`, and it only ever says "nothing runs, and the
//! general path would say exactly this" or "don't know". Every doubt is "don't know", and then
//! the general path runs as if this module did not exist, so the shortcut cannot change an
//! outcome; it can only be missed. What it leaves to the general path:
//! - text that is not a plain JSON object (every syntax error, so the error message stays the
//!   general path's), `\u` escapes anywhere, escapes in the `event` / `toolName` values (a key
//!   with escapes is none of the keys read here: decoded, it holds a quote, a backslash, a slash
//!   or a control character), a repeated `event` / `toolName` / `tool_name`, a `toolName` that is not a string,
//!   no `event`, an unknown event, a `dialect` key (an event named in a dialect's terms), nesting deeper than 64, and numbers with an exponent or more
//!   than 20 characters (see [`MAX_DEPTH`]);
//! - an engine whose outcomes carry warnings, or that has an observer (each fire is a record),
//!   or whose config files are due for their change check (the caller checks first, as the
//!   general path does);
//! - an event that has a hook that could run: one without `match`, one whose `match` accepts
//!   the tool name (or the tool name is missing or empty), or a hook of another dialect (Claude
//!   Code hooks match on fields this scan does not read).
//!
//! Which events can be answered here is decided once per config ([`Plan::new`]), so the fire
//! path costs one table lookup whatever the number of dialects; only events whose hooks are all
//! openHarness hooks with a `match` test their matchers (the same compiled matchers).

use crate::config::Config;
use crate::event::Event;
use crate::matcher::Matcher;
use std::borrow::Cow;
use std::ffi::CStr;
use std::ops::Range;
use std::sync::OnceLock;

/// The outcome of a fire that ran nothing and has nothing to warn about: byte for byte what
/// `Outcome::allowed(vec![]).to_json()` writes (pinned by a test).
pub const ALLOWED: &CStr = c"{\"allowed\":true,\"hooks\":[]}";

/// What a fire of one event may start, as far as this module is concerned.
#[derive(Debug)]
enum Can {
    /// No hook of any dialect: nothing runs.
    Nothing,
    /// Only openHarness hooks, each with a `match`: nothing runs unless one matches; with the
    /// tool names already found to match none of them.
    IfMatched(Box<Seen>),
    /// Something may run, or the outcome is not the constant: the general path decides.
    Ask,
}

/// Tool names that matched none of an event's matchers, kept at most this many (and this long).
/// A harness has a few dozen tools; the memo of a pure function (each matcher depends on the
/// tool name alone, and the memo lives as long as the config it was computed for) answers
/// exactly what evaluating the matchers again would, for a fraction of it: twenty matchers cost
/// about 2,000 instructions, a look here a few dozen.
const SEEN: usize = 32;
const SEEN_LEN: usize = 128;

/// Filled in order and never emptied, without locks: a reader stops at the first empty slot.
#[derive(Debug)]
struct Seen([OnceLock<Box<str>>; SEEN]);

impl Seen {
    #[inline(always)]
    fn contains(&self, tool: &[u8]) -> bool {
        for slot in &self.0 {
            match slot.get() {
                Some(name) if name.as_bytes() == tool => return true,
                Some(_) => {}
                None => return false,
            }
        }
        false
    }

    /// Remembers `tool`, if there is room; two threads racing for a slot: one of them wins.
    fn insert(&self, tool: &str) {
        if tool.len() <= SEEN_LEN {
            if let Some(slot) = self.0.iter().find(|s| s.get().is_none()) {
                let _ = slot.set(tool.into());
            }
        }
    }
}

/// Per event, what a fire may start under one config (with its warnings).
#[derive(Debug)]
pub struct Plan {
    can: [Can; Event::COUNT],
    /// Some event is not [`Can::Ask`].
    any: bool,
}

impl Plan {
    pub fn new(config: &Config, warnings: &[String]) -> Plan {
        let mut can: [Can; Event::COUNT] = std::array::from_fn(|_| Can::Ask);
        if warnings.is_empty() {
            for (e, c) in Event::ALL.iter().zip(can.iter_mut()) {
                let oh = config.hooks.of(*e);
                // Every dialect's hooks of the event are looked at here, at load, never per fire.
                let other_dialects = !config.dialects.of(*e).is_empty();
                *c = if config.disable_all_hooks || (oh.is_empty() && !other_dialects) {
                    Can::Nothing
                } else if !other_dialects && oh.iter().all(|h| !matches!(h.matcher, Matcher::Any)) {
                    Can::IfMatched(Box::new(Seen(std::array::from_fn(|_| OnceLock::new()))))
                } else {
                    Can::Ask
                };
            }
        }
        Plan { any: can.iter().any(|c| !matches!(c, Can::Ask)), can }
    }

    /// Whether a fire of `json` (the envelope's bytes, not yet known to be UTF-8) under `config`
    /// certainly runs nothing and answers [`ALLOWED`]. `false` means "ask the general path",
    /// not "something runs".
    pub fn runs_nothing(&self, json: &[u8], config: &Config) -> bool {
        self.look(json, config) == Look::Nothing
    }

    /// What the scan of `json` says of a fire under `config`.
    pub fn look(&self, json: &[u8], config: &Config) -> Look {
        if !self.any {
            // Every event may run something: nothing scanned yet, [`fields`] will tell.
            return Look::Maybe;
        }
        let Some(head) = scan(json) else { return Look::Unread };
        // Bytes above 0x7f occur only inside strings of text the scan accepted; text that is not
        // UTF-8 is the general path's `invalid_utf8`.
        if head.non_ascii && std::str::from_utf8(json).is_err() {
            return Look::Unread;
        }
        let Some(event) = Event::from_bytes(head.event) else {
            return Look::Unread;
        };
        match &self.can[event.index()] {
            Can::Nothing => Look::Nothing,
            Can::IfMatched(seen) => {
                // No tool name, or an empty one: every matcher matches.
                let Some(tool) = head.tool.filter(|t| !t.is_empty()) else { return Look::Maybe };
                if seen.contains(tool) {
                    return Look::Nothing;
                }
                let Ok(tool) = std::str::from_utf8(tool) else { return Look::Unread };
                if config.hooks.of(event).iter().any(|h| h.matcher.matches(Some(tool))) {
                    return Look::Maybe;
                }
                seen.insert(tool);
                Look::Nothing
            }
            Can::Ask => Look::Maybe,
        }
    }
}

/// What [`Plan::look`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// Nothing runs: the outcome is [`ALLOWED`].
    Nothing,
    /// A hook may run, and the scan may read the envelope for it ([`fields`]).
    Maybe,
    /// The scan leaves this text to the general path.
    Unread,
}

/// `event` and `toolName` (or `tool_name`) as written, quotes removed.
struct Head<'a> {
    event: &'a [u8],
    tool: Option<&'a [u8]>,
    /// Some string has a byte above 0x7f.
    non_ascii: bool,
}

/// Reads a whole JSON object, validating it strictly (a subset of what serde_json accepts), and
/// returns its `event` and tool name; `None` for anything the general path should look at.
#[inline(always)]
fn scan(b: &[u8]) -> Option<Head<'_>> {
    scan_into(b, &mut ())
}

/// [`scan`], handing every member but `event` to `sink` on the way.
#[inline(always)]
fn scan_into<'a, K: Sink>(b: &'a [u8], sink: &mut K) -> Option<Head<'a>> {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: the CPU has what `scan_avx2` is compiled for.
            return unsafe { scan_avx2(b, sink) };
        }
        scan_blocks::<false, K>(b, sink)
    }
    #[cfg(not(target_arch = "x86_64"))]
    walk(b, &mut Bytes { non_ascii: false }, sink)
}

/// Whether the CPU has what [`scan_avx2`] is compiled for: AVX2, PCLMULQDQ, BMI1 and BMI2 (every
/// CPU with AVX2 has had the BMIs, since Haswell and Excavator); without them the SSE2 build
/// runs.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("pclmulqdq")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
}

/// [`scan_blocks`] with AVX2: the walk is compiled again, so that the classification it
/// inlines uses 32-byte registers (and [`flat`]'s prefix XOR a carry-less multiplication).
/// BMI1 and BMI2 too: the masks' `x & !y` are one `andn` each, a bit cleared one `blsr`, a shift
/// by a variable one `shlx` / `shrx` (fewer instructions a block, and fewer registers).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq,bmi1,bmi2")]
unsafe fn scan_avx2<'a, K: Sink>(b: &'a [u8], sink: &mut K) -> Option<Head<'a>> {
    scan_blocks::<true, K>(b, sink)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn scan_blocks<'a, const AVX2: bool, K: Sink>(b: &'a [u8], sink: &mut K) -> Option<Head<'a>> {
    // The no-match path reads the common shape from the masks alone; anything else, and every
    // fire that wants the fields, takes the walk.
    if !K::WANTS {
        if let Some(head) = flat::<AVX2>(b) {
            return Some(head);
        }
    }
    let mut quotes =
        Quotes::<AVX2> { base: 0, bits: 0, backslash: 0, escaped_next: 0, non_ascii: false, control: false };
    let head = quotes.classify(b).and_then(|bits| {
        quotes.bits = bits;
        walk(b, &mut quotes, sink)
    });
    // Whitespace other than spaces: the byte scanner tells it from a control character
    // inside a string.
    if head.is_some() || !quotes.control {
        return head;
    }
    sink.restart();
    walk(b, &mut Bytes { non_ascii: false }, sink)
}

/// The common envelope read from the blocks' masks, not member by member (simdjson's second
/// stage, for one shape): a compact object of 64 bytes or more (a shorter one is walked), `{`
/// first and `}` last, whose values are strings, numbers, `true`, `false` or `null`, with no
/// whitespace or control character anywhere. `None` means "not this shape, or not sure": the
/// walk then reads the text as if this had not been tried, so this accepts only texts the walk
/// accepts, with the same event and tool name (`block_scanners_agree_with_the_byte_scanner` and
/// `flat_agrees_with_the_walk` compare them).
///
/// Outside strings (found from the unescaped quotes by a prefix XOR) every byte is a colon, a
/// comma, the first `{` or the last `}` (both count as commas here), or part of a scalar. What
/// may follow each byte is checked on the masks: a comma an opening quote, a colon an opening
/// quote or a scalar, a closing quote a colon or a comma, a scalar byte another or a comma; and
/// colons and commas alternate (a second prefix XOR), so that one string stands between a comma
/// and the next colon (the key) and one value between a colon and the next comma. Each scalar
/// is then read as the walk reads it, and the keys the walk looks for are found from the seven
/// bytes before each colon.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn flat<const AVX2: bool>(b: &[u8]) -> Option<Head<'_>> {
    let n = b.len();
    // A text shorter than a block is cheap to walk.
    if n < 64 || b[0] != b'{' || b[n - 1] != b'}' {
        return None;
    }
    let mut f = Flat {
        base: 0,
        first: 1,
        comma: 0,
        colon: 0,
        close: 0,
        scalar: 0,
        inside: 0,
        parity: 0,
        escaped_next: 0,
        high: 0,
        event: None,
        tool: None,
    };
    while n - f.base > 64 {
        f.block::<AVX2>(b, masks::<AVX2>(&b[f.base..f.base + 64]), !0, 0)?;
        f.base += 64;
    }
    // The last block: the text's last 64 bytes shifted to start at `base` (the bytes before it
    // were checked with the block before).
    let rest = n - f.base;
    let m = last_block::<AVX2>(b, rest);
    f.block::<AVX2>(b, m, !0u64 >> (64 - rest), 1u64 << (rest - 1))?;
    let event = plain(b, f.event?)?;
    let tool = match f.tool {
        Some(at) => Some(plain(b, at)?),
        None => None,
    };
    Some(Head { event, tool, non_ascii: f.high != 0 })
}

/// What [`flat`] carries from one block to the next.
#[cfg(target_arch = "x86_64")]
struct Flat {
    /// Where the block starts.
    base: usize,
    /// 1 for the first block, whose first byte (the `{`) counts as a comma.
    first: u64,
    /// The previous block's last byte, at bit 0: a comma, a colon, a closing quote, a scalar.
    comma: u64,
    colon: u64,
    close: u64,
    scalar: u64,
    /// All ones when the previous block ended inside a string, or after an odd number of colons
    /// and commas.
    inside: u64,
    parity: u64,
    /// 1 when the block's first byte is escaped by a backslash at the end of the one before.
    escaped_next: u64,
    /// Nonzero once a byte above 0x7f was seen.
    high: u32,
    /// Where the values of `event` and of the tool name begin.
    event: Option<usize>,
    tool: Option<usize>,
}

/// The last seven bytes before the colon of the keys the walk reads, by their first byte's two
/// low bits (`"` 2, `o` 3, `l` 0, `i` 1).
#[cfg(target_arch = "x86_64")]
const KEY_TAILS: [u64; 4] = [tail(b"l_name\""), tail(b"ialect\""), tail(b"\"event\""), tail(b"olName\"")];

#[cfg(target_arch = "x86_64")]
impl Flat {
    /// Checks the block at `self.base` whose masks are `m`: `valid` has a bit for each of its
    /// bytes in the text, and `end` the text's last byte (the `}`) when it is in this block.
    #[inline(always)]
    fn block<const AVX2: bool>(&mut self, b: &[u8], m: Masks, valid: u64, end: u64) -> Option<()> {
        if m.control != 0 {
            return None;
        }
        self.high |= m.high;
        let mut quote = m.quote;
        if m.backslash | self.escaped_next != 0 {
            quote &= !escapes::<AVX2>(b, self.base, &m, &mut self.escaped_next)?;
        }
        let inside = prefix_xor::<AVX2>(quote) ^ self.inside;
        let out = !(inside | quote) & valid;
        // The `}` is outside strings and ends the last value.
        if end & !out != 0 {
            return None;
        }
        let colon = m.colon & out;
        let comma = (m.comma & out) | self.first | end;
        self.first = 0;
        let scalar = out & !colon & !comma;
        let close = quote & !inside;
        let after_comma = comma << 1 | self.comma;
        let after_colon = colon << 1 | self.colon;
        let after_close = close << 1 | self.close;
        let after_scalar = scalar << 1 | self.scalar;
        let structural = colon | comma;
        let parity = prefix_xor::<AVX2>(structural) ^ self.parity;
        let wrong = (after_comma & !quote)
            | (after_colon & !(quote | scalar))
            | (after_close & !structural)
            | (after_scalar & !(scalar | comma))
            // Commas (with the `{`) at odd places, colons at even ones.
            | ((parity ^ comma) & structural);
        if wrong & valid != 0 {
            return None;
        }
        let n = b.len();
        let mut starts = scalar & !after_scalar;
        while starts != 0 {
            let k = starts.trailing_zeros();
            let at = self.base + k as usize;
            starts &= starts - 1;
            // A short integer ending in this block, such as a turn number: its digits.
            let len = (!(scalar >> k)).trailing_zeros() as usize;
            if k as usize + len < 64
                && len <= MAX_NUMBER
                && (b[at] != b'0' || len == 1)
                && b[at..at + len].iter().all(u8::is_ascii_digit)
            {
                continue;
            }
            let end = match b[at] {
                b't' => b.get(at..at + 4).filter(|w| *w == b"true").map(|_| at + 4),
                b'f' => b.get(at..at + 5).filter(|w| *w == b"false").map(|_| at + 5),
                b'n' => b.get(at..at + 4).filter(|w| *w == b"null").map(|_| at + 4),
                b'-' | b'0'..=b'9' => number(b, at),
                _ => None,
            }?;
            // The scalar is the whole run of scalar bytes: a comma or the last `}` follows it.
            if b[end] != b',' && end != n - 1 {
                return None;
            }
        }
        let mut colons = colon;
        while colons != 0 {
            let at = self.base + colons.trailing_zeros() as usize;
            colons &= colons - 1;
            if at < 8 {
                continue;
            }
            let word = u64::from_le_bytes(b[at - 8..at].try_into().unwrap()) >> 8;
            if word != KEY_TAILS[(word & 3) as usize] {
                continue;
            }
            // The key ends with the quote before its colon and begins after a `{` or a comma; a
            // quote after one of those is unescaped, so it is the key's opening quote.
            let key =
                |k: &[u8]| at > k.len() && b[at - k.len()..at] == *k && matches!(b[at - k.len() - 1], b'{' | b',');
            let slot = if key(b"\"event\"") {
                &mut self.event
            } else if key(b"\"toolName\"") || key(b"\"tool_name\"") {
                &mut self.tool
            } else if key(b"\"dialect\"") {
                return None;
            } else {
                continue;
            };
            if slot.replace(at + 1).is_some() {
                return None;
            }
        }
        self.comma = comma >> 63;
        self.colon = colon >> 63;
        self.close = close >> 63;
        self.scalar = scalar >> 63;
        self.inside = ((inside as i64) >> 63) as u64;
        self.parity = ((parity as i64) >> 63) as u64;
        Some(())
    }
}

/// The seven bytes of a key's end before its colon, as [`flat`] reads them.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
const fn tail(k: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < 7 {
        w |= (k[k.len() - 7 + i] as u64) << (8 * i);
        i += 1;
    }
    w
}

/// The string at `open` of a text [`flat`] validated, quotes removed, when it has no escape.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn plain(b: &[u8], open: usize) -> Option<&[u8]> {
    if b[open] != b'"' {
        return None;
    }
    let from = open + 1;
    // The first quote or backslash: a backslash is an escape; else the quote closes the string.
    let k = if from + 16 <= b.len() {
        let hits = specials(&b[from..from + 16]).0;
        if hits != 0 {
            Some(hits.trailing_zeros() as usize)
        } else {
            None
        }
    } else {
        None
    };
    let k = match k {
        Some(k) => k,
        None => b[from..].iter().position(|c| *c == b'"' || *c == b'\\')?,
    };
    (b[from + k] == b'"').then(|| &b[from..from + k])
}

/// Bit `i` set when an odd number of bits of `x` are at `i` or below.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefix_xor<const AVX2: bool>(x: u64) -> u64 {
    if AVX2 {
        // SAFETY: `AVX2` is true only below `scan_avx2`, called when the CPU has PCLMULQDQ.
        return unsafe { prefix_xor_clmul(x) };
    }
    let mut x = x;
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// [`prefix_xor`] as one carry-less multiplication by all ones.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "pclmulqdq")]
#[inline]
unsafe fn prefix_xor_clmul(x: u64) -> u64 {
    use std::arch::x86_64::*;
    _mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0)) as u64
}

/// What the walk does with each top-level member but `event`: nothing on the no-match path,
/// gathers the envelope's fields for a fire whose hooks may run ([`fields`]).
trait Sink {
    /// Whether [`Sink::member`] does anything (the walk skips what it would compute for it).
    const WANTS: bool;
    /// The member whose key is `b[key]` (between its quotes, as written; `plain`: without
    /// escapes) and whose value is `b[value]`.
    fn member(&mut self, key: Range<usize>, plain: bool, value: Range<usize>);
    /// The walk starts again from the first member.
    fn restart(&mut self);
}

impl Sink for () {
    const WANTS: bool = false;
    #[inline(always)]
    fn member(&mut self, _: Range<usize>, _: bool, _: Range<usize>) {}
    #[inline(always)]
    fn restart(&mut self) {}
}

/// An envelope the scan accepted, read for a fire whose hooks may run: what
/// `envelope::head::parse_head_for` and the envelope's full parse would read from the same text
/// (tests/it/quick_path.rs and this module's tests compare them), without reading it again.
#[derive(Debug)]
pub struct Scanned<'a> {
    pub event: Event,
    /// `toolName` (or `tool_name`), a string without escapes: the scan leaves any other to the
    /// general path.
    pub tool: Option<&'a str>,
    /// Every member but `event`, in order, its key decoded and its value's JSON text as written;
    /// a repeated key keeps its first place and its last value (as the full parse does).
    pub fields: Vec<(Cow<'a, str>, &'a str)>,
}

/// Gathers the fields into a `Vec` as the walk meets them.
struct Fields<'a> {
    text: &'a str,
    fields: Vec<(Cow<'a, str>, &'a str)>,
    /// One bit per key seen, by [`Fields::bit`]: a key whose bit is clear is not a repeat.
    seen: u64,
}

impl Fields<'_> {
    /// A bit from the key's length and its first and last bytes.
    #[inline(always)]
    fn bit(key: &str) -> u64 {
        let b = key.as_bytes();
        let (first, last) = (b.first().copied().unwrap_or(0), b.last().copied().unwrap_or(0));
        1 << ((b.len() as u32).wrapping_mul(7).wrapping_add(first as u32 * 3).wrapping_add(last as u32) & 63)
    }
}

impl Sink for Fields<'_> {
    const WANTS: bool = true;

    #[inline(always)]
    fn member(&mut self, key: Range<usize>, plain: bool, value: Range<usize>) {
        // Both spans start and end next to a quote or a structural byte, all ASCII: boundaries of
        // the (UTF-8) text.
        let raw = &self.text[key];
        let key = if plain { Cow::Borrowed(raw) } else { Cow::Owned(unescape(raw)) };
        let value = &self.text[value];
        let bit = Self::bit(&key);
        // A repeated key keeps its first place and takes the last value, as the full parse's
        // reader does; only a key whose bit was set can be one.
        if self.seen & bit != 0 {
            if let Some(slot) = self.fields.iter_mut().find(|(k, _)| *k == key) {
                slot.1 = value;
                return;
            }
        }
        self.seen |= bit;
        self.fields.push((key, value));
    }

    fn restart(&mut self) {
        self.fields.clear();
        self.seen = 0;
    }
}

/// A key's text with its escapes decoded: the scan accepts only JSON's one-character escapes
/// (never `\u`).
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            // `"`, `\\` and `/` stand for themselves.
            Some(c) => c,
            None => break,
        });
    }
    out
}

/// The envelope's event, tool name and fields, when the scan accepts `json` and its event is
/// one of the engine's; `None` leaves the text to the general path, which reads it as if this
/// had not been asked.
pub fn fields(json: &str) -> Option<Scanned<'_>> {
    let mut sink = Fields { text: json, fields: Vec::with_capacity(12), seen: 0 };
    let head = scan_into(json.as_bytes(), &mut sink)?;
    let event = Event::ALL.iter().find(|e| e.name().as_bytes() == head.event)?;
    // The tool name has no escapes (the walk checked): its bytes between the quotes are the text.
    let tool = head.tool.map(|t| {
        let at = t.as_ptr() as usize - json.as_ptr() as usize;
        &json[at..at + t.len()]
    });
    Some(Scanned { event: *event, tool, fields: sink.fields })
}

/// How the walk finds the end of a string.
trait Strings {
    /// The index of the closing quote of the string whose opening quote is at `open`; `None`
    /// when there is no string at `open`, or one JSON does not allow or that is left to the
    /// general path: no closing quote, a control character, a `\u` escape (the general path's
    /// handling of surrogates is its own) or an unknown escape.
    fn string(&mut self, b: &[u8], open: usize) -> Option<usize>;
    /// Whether a byte above 0x7f may be in a string seen so far.
    fn non_ascii(&self) -> bool;
    /// Whether the string just found, from `open` to `close`, has no backslash.
    #[inline(always)]
    fn plain(&self, b: &[u8], open: usize, close: usize) -> bool {
        !b[open..close].contains(&b'\\')
    }
}

#[inline(always)]
fn walk<'a, S: Strings, K: Sink>(b: &'a [u8], s: &mut S, sink: &mut K) -> Option<Head<'a>> {
    let mut i = ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut tool: Option<&[u8]> = None;
    let mut event = None;
    i = ws(b, i + 1);
    loop {
        let end = s.string(b, i)?;
        // A key with escapes is none of the four read here (their decoded text would hold a
        // quote, a backslash, a slash or a control character): compared as written.
        let key_at = i + 1..end;
        // (Asked now: `plain` tells only for the string just found.)
        let key_plain = K::WANTS && s.plain(b, i, end);
        let key = &b[i + 1..end];
        // Compact JSON first: no whitespace around the colon and the comma.
        i = end + 1;
        if b.get(i..i + 2) == Some(b":\"") {
            i += 1;
        } else {
            i = ws(b, i);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = ws(b, i + 1);
        }
        let start = i;
        let is_event = key == b"event";
        if is_event || key == b"toolName" || key == b"tool_name" {
            // Only a plain string is read here; anything else is the general path's to judge.
            let end = s.string(b, i)?;
            // The event and the tool name are compared as written, so escapes in them are
            // the general path's to decode.
            if !s.plain(b, i, end) {
                return None;
            }
            let value = &b[i + 1..end];
            let slot = if is_event { &mut event } else { &mut tool };
            if slot.is_some() {
                return None;
            }
            *slot = Some(value);
            i = end + 1;
            // The envelope's JSON writes `event` from its name: never a field.
            if !is_event {
                sink.member(key_at, key_plain, start..i);
            }
        } else if key == b"dialect" {
            // An event named in a dialect's terms (docs/envelope.md "Dialect event names"): the
            // general path maps it and checks it.
            return None;
        } else {
            i = if b.get(i) == Some(&b'"') { s.string(b, i)? + 1 } else { value(b, i, 1, s)? };
            sink.member(key_at, key_plain, start..i);
        }
        if b.get(i..i + 2) == Some(b",\"") {
            i += 1;
            continue;
        }
        i = ws(b, i);
        match b.get(i) {
            Some(b',') => i = ws(b, i + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    if ws(b, i + 1) != b.len() {
        return None;
    }
    Some(Head { event: event?, tool, non_ascii: s.non_ascii() })
}

/// Skips JSON whitespace (exactly these four bytes) from `i`.
#[inline]
fn ws(b: &[u8], mut i: usize) -> usize {
    // Compact JSON: no whitespace at all.
    if b.get(i).is_some_and(|c| *c > b' ') {
        return i;
    }
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// The bytes of the block at `base` that a backslash escapes (simdjson's `json_escape_scanner`:
/// a run's odd-numbered backslashes escape the byte after them), each one checked with
/// [`escape`]; `escaped_next` carries a backslash that ends the block into the next one. With
/// AVX2 the escapes were classified with the block (not the first byte, when a backslash ends
/// the block before): a closer look only when one is not plainly fine. `None` for an escape
/// JSON does not allow. One function for the walk's quotes and the flat check's.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn escapes<const AVX2: bool>(b: &[u8], base: usize, m: &Masks, escaped_next: &mut u64) -> Option<u64> {
    const ODD: u64 = 0xaaaa_aaaa_aaaa_aaaa;
    let potential = m.backslash & !*escaped_next;
    let code = (((potential << 1) | ODD).wrapping_sub(potential)) ^ ODD;
    let escaped = code ^ (m.backslash | *escaped_next);
    *escaped_next = (code & m.backslash) >> 63;
    if !AVX2 || escaped & !m.escapable != 0 {
        let mut e = escaped;
        while e != 0 {
            escape(b.get(base + e.trailing_zeros() as usize).copied())?;
            e &= e - 1;
        }
    }
    Some(escaped)
}

/// The byte after a backslash: one of JSON's escapes other than `\u`.
#[inline(always)]
fn escape(c: Option<u8>) -> Option<()> {
    match c? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(()),
        _ => None,
    }
}

/// Deeper than this is left to the general path. With 128 or more brackets anywhere in the
/// text (inside strings too), the general path reads every value through serde_json's
/// depth-limited `deserialize_any`: the same verdicts as its depth-blind skipping for values
/// nested less than this, whose numbers have no exponent and at most [`MAX_NUMBER`] characters
/// (no overflow to infinity). So the scan needs no bracket count of its own.
const MAX_DEPTH: usize = 64;
const MAX_NUMBER: usize = 20;

/// Any JSON value at `i` (no leading whitespace), nested `depth` deep; the index after it.
fn value<S: Strings>(b: &[u8], i: usize, depth: usize, s: &mut S) -> Option<usize> {
    if depth > MAX_DEPTH {
        return None;
    }
    match *b.get(i)? {
        b'"' => s.string(b, i).map(|end| end + 1),
        b'{' => {
            let mut i = ws(b, i + 1);
            if b.get(i) == Some(&b'}') {
                return Some(i + 1);
            }
            loop {
                i = ws(b, s.string(b, i)? + 1);
                if b.get(i) != Some(&b':') {
                    return None;
                }
                i = ws(b, value(b, ws(b, i + 1), depth + 1, s)?);
                match b.get(i) {
                    Some(b',') => i = ws(b, i + 1),
                    Some(b'}') => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b'[' => {
            let mut i = ws(b, i + 1);
            if b.get(i) == Some(&b']') {
                return Some(i + 1);
            }
            loop {
                i = ws(b, value(b, i, depth + 1, s)?);
                match b.get(i) {
                    Some(b',') => i = ws(b, i + 1),
                    Some(b']') => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        b't' => b.get(i..i + 4).filter(|w| *w == b"true").map(|_| i + 4),
        b'f' => b.get(i..i + 5).filter(|w| *w == b"false").map(|_| i + 5),
        b'n' => b.get(i..i + 4).filter(|w| *w == b"null").map(|_| i + 4),
        b'-' | b'0'..=b'9' => number(b, i),
        _ => None,
    }
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?` at `i`, at most [`MAX_NUMBER`] characters; the index after
/// it. An exponent is left to the general path (see [`MAX_DEPTH`]).
fn number(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    let digits = |b: &[u8], mut i: usize| -> Option<usize> {
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        (i > start).then_some(i)
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    i = match b.get(i)? {
        b'0' => i + 1,
        b'1'..=b'9' => digits(b, i)?,
        _ => return None,
    };
    if b.get(i) == Some(&b'.') {
        i = digits(b, i + 1)?;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        return None;
    }
    (i - start <= MAX_NUMBER).then_some(i)
}

/// Strings found from the text's quotes, 64 bytes at a time (the first stage of simdjson,
/// Langdale and Lemire, "Parsing Gigabytes of JSON per Second"): each block is classified
/// once, when the walk first needs a quote in it, into one bit per quote that no backslash
/// escapes; every escape is checked on the way. A control character anywhere in a block
/// stops it ([`Quotes::control`]): only the byte scanner tells whitespace between values from
/// a control character inside a string. Blocks after the last string are never classified:
/// the walk reads their bytes itself, and it accepts no backslash, control or non-ASCII byte
/// outside a string.
#[cfg(target_arch = "x86_64")]
struct Quotes<const AVX2: bool> {
    /// Where the current block starts.
    base: usize,
    /// The current block's unescaped quotes not yet passed.
    bits: u64,
    /// The current block's backslashes.
    backslash: u64,
    /// 1 when the next block's first byte is escaped by a backslash at the end of this one.
    escaped_next: u64,
    non_ascii: bool,
    /// A block had a control character: the walk stopped, and the byte scanner decides.
    control: bool,
}

#[cfg(target_arch = "x86_64")]
impl<const AVX2: bool> Quotes<AVX2> {
    /// The unescaped quotes of the block at `self.base`.
    #[inline(always)]
    fn classify(&mut self, b: &[u8]) -> Option<u64> {
        let m = self.load(b)?;
        self.unescaped(b, &m)
    }

    /// The masks of the block at `self.base`; `None` past the end of the text. Bits past the end
    /// of the text are clear (a short text is padded with spaces, which are none of the bytes
    /// classified).
    #[inline(always)]
    fn load(&self, b: &[u8]) -> Option<Masks> {
        let len = b.len();
        let rest = len.checked_sub(self.base).filter(|r| *r > 0)?;
        Some(if rest >= 64 {
            masks::<AVX2>(&b[self.base..self.base + 64])
        } else if len >= 64 {
            last_block::<AVX2>(b, rest)
        } else {
            let mut block = [b' '; 64];
            block[..rest].copy_from_slice(&b[self.base..]);
            masks::<AVX2>(&block)
        })
    }

    /// The unescaped quotes of the block at `self.base` whose masks are `m`, its escapes
    /// checked; `None` for a control character (then [`Quotes::control`]) or an escape JSON
    /// does not allow here.
    #[inline(always)]
    fn unescaped(&mut self, b: &[u8], m: &Masks) -> Option<u64> {
        if m.control != 0 {
            self.control = true;
            return None;
        }
        self.non_ascii |= m.high != 0;
        self.backslash = m.backslash;
        let mut quote = m.quote;
        if m.backslash != 0 || self.escaped_next != 0 {
            quote &= !escapes::<AVX2>(b, self.base, m, &mut self.escaped_next)?;
        }
        Some(quote)
    }
}

#[cfg(target_arch = "x86_64")]
impl<const AVX2: bool> Quotes<AVX2> {
    /// The next unescaped quote.
    #[inline(always)]
    fn next(&mut self, b: &[u8]) -> Option<usize> {
        while self.bits == 0 {
            self.base += 64;
            self.bits = self.classify(b)?;
        }
        let k = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.base + k)
    }
}

#[cfg(target_arch = "x86_64")]
impl<const AVX2: bool> Strings for Quotes<AVX2> {
    #[inline(always)]
    fn string(&mut self, b: &[u8], open: usize) -> Option<usize> {
        // The walk asks for every string in order, so its opening quote is the first quote
        // not yet passed, unless there is no unescaped quote at `open`.
        if self.next(b)? != open {
            return None;
        }
        self.next(b)
    }

    fn non_ascii(&self) -> bool {
        self.non_ascii
    }

    #[inline(always)]
    fn plain(&self, b: &[u8], open: usize, close: usize) -> bool {
        // `close` is in the current block; when `open` is too, its backslashes tell.
        match open.checked_sub(self.base) {
            Some(at) => self.backslash >> at & !(!0u64 << (close - open)) == 0,
            None => !b[open..close].contains(&b'\\'),
        }
    }
}

/// The masks of the text's last block: its last 64 bytes (`b` has at least 64), shifted so that
/// bit 0 is the first of its last `rest` bytes; the bytes before those were classified with the
/// block before. One function for the walk's blocks and the flat check's.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn last_block<const AVX2: bool>(b: &[u8], rest: usize) -> Masks {
    let m = masks::<AVX2>(&b[b.len() - 64..]);
    let shift = 64 - rest;
    Masks {
        quote: m.quote >> shift,
        backslash: m.backslash >> shift,
        escapable: m.escapable >> shift,
        colon: m.colon >> shift,
        comma: m.comma >> shift,
        ..m
    }
}

#[cfg(target_arch = "x86_64")]
struct Masks {
    quote: u64,
    backslash: u64,
    /// With AVX2, when there is a backslash: the bytes that may follow one (`"\\/bfnrt`).
    escapable: u64,
    colon: u64,
    comma: u64,
    /// Nonzero when a byte is a control character.
    control: u32,
    /// Nonzero when a byte is above 0x7f.
    high: u32,
}

/// One bit per quote and per backslash of the 64 bytes at the start of `block`, and whether
/// any of them is a control character or above 0x7f.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks<const AVX2: bool>(block: &[u8]) -> Masks {
    if AVX2 {
        // SAFETY: `AVX2` is true only below `scan_avx2`, called when the CPU has AVX2.
        return unsafe { masks_avx2(block) };
    }
    use std::arch::x86_64::*;
    assert!(block.len() >= 64);
    // SAFETY: SSE2 is part of x86_64; the loads read 64 bytes of `block`, which has them.
    unsafe {
        let p = block.as_ptr().cast::<__m128i>();
        let v = [_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)), _mm_loadu_si128(p.add(2)), _mm_loadu_si128(p.add(3))];
        let bits = |c: u8| {
            let c = _mm_set1_epi8(c as i8);
            let m = |k: usize| _mm_movemask_epi8(_mm_cmpeq_epi8(v[k], c)) as u16 as u64;
            m(0) | m(1) << 16 | m(2) << 32 | m(3) << 48
        };
        let low = _mm_set1_epi8(0x1f);
        let control = |k: usize| _mm_cmpeq_epi8(_mm_min_epu8(v[k], low), v[k]);
        let control = _mm_or_si128(_mm_or_si128(control(0), control(1)), _mm_or_si128(control(2), control(3)));
        let all = _mm_or_si128(_mm_or_si128(v[0], v[1]), _mm_or_si128(v[2], v[3]));
        Masks {
            quote: bits(b'"'),
            backslash: bits(b'\\'),
            escapable: 0,
            colon: bits(b':'),
            comma: bits(b','),
            control: _mm_movemask_epi8(control) as u32,
            high: _mm_movemask_epi8(all) as u32,
        }
    }
}

/// [`masks`] with 32-byte registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn masks_avx2(block: &[u8]) -> Masks {
    use std::arch::x86_64::*;
    assert!(block.len() >= 64);
    // SAFETY: the caller's CPU has AVX2; the loads read 64 bytes of `block`, which has them.
    unsafe {
        let p = block.as_ptr().cast::<__m256i>();
        let v = [_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))];
        let bits = |c: u8| {
            let c = _mm256_set1_epi8(c as i8);
            let m = |k: usize| _mm256_movemask_epi8(_mm256_cmpeq_epi8(v[k], c)) as u32 as u64;
            m(0) | m(1) << 32
        };
        let low = _mm256_set1_epi8(0x1f);
        let control = |k: usize| _mm256_cmpeq_epi8(_mm256_min_epu8(v[k], low), v[k]);
        let backslash = bits(b'\\');
        let mut escapable = 0;
        if backslash != 0 {
            // `"\\/bfnrt` by their two nibbles, as simdjson classifies bytes: each high nibble
            // one bit (2: `"/` 1, 5: `\\` 2, 6: `bfn` 4, 7: `rt` 8), each low nibble the bits of
            // the high nibbles it goes with (2: `"` `b` `r` 1|4|8 = 13, 4: `t`, 6: `f`, c: `\\`,
            // e: `n`, f: `/`).
            let high = _mm256_setr_epi8(
                0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0,
            );
            let low = _mm256_setr_epi8(
                0, 0, 13, 0, 8, 0, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1, 0, 0, 13, 0, 8, 0, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1,
            );
            let nibble = _mm256_set1_epi8(0x0f);
            let m = |k: usize| {
                let h = _mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi16(v[k], 4), nibble));
                let l = _mm256_shuffle_epi8(low, _mm256_and_si256(v[k], nibble));
                let none = _mm256_cmpeq_epi8(_mm256_and_si256(h, l), _mm256_setzero_si256());
                !(_mm256_movemask_epi8(none) as u32) as u64
            };
            escapable = m(0) | m(1) << 32;
        }
        Masks {
            quote: bits(b'"'),
            backslash,
            escapable,
            colon: bits(b':'),
            comma: bits(b','),
            control: _mm256_movemask_epi8(_mm256_or_si256(control(0), control(1))) as u32,
            high: _mm256_movemask_epi8(_mm256_or_si256(v[0], v[1])) as u32,
        }
    }
}

/// The byte scanner: each string read from its opening quote, 16 bytes at a time.
struct Bytes {
    non_ascii: bool,
}

impl Strings for Bytes {
    #[inline(always)]
    fn string(&mut self, b: &[u8], open: usize) -> Option<usize> {
        if b.get(open) != Some(&b'"') {
            return None;
        }
        let mut i = open + 1;
        // Strings are most of an envelope: 16 bytes at a time, visiting only the quotes,
        // backslashes and control characters.
        while i < b.len() && b.len() >= 16 {
            // The last block of the text is its last 16 bytes, shifted to start at `i`.
            let base = i.min(b.len() - 16);
            let shift = i - base;
            let (hits, high) = specials(&b[base..base + 16]);
            let mut hits = hits >> shift;
            // Bytes outside the string are counted too: outside a string a byte above 0x7f is
            // a syntax error anyway, so this only ever asks for a UTF-8 check that was not
            // needed.
            self.non_ascii |= high;
            let width = 16 - shift;
            let mut next = i + width;
            while hits != 0 {
                let k = hits.trailing_zeros() as usize;
                match b[i + k] {
                    b'"' => return Some(i + k),
                    b'\\' => {
                        escape(b.get(i + k + 1).copied())?;
                        // The escaped byte may itself be a quote or a backslash: skip both.
                        if k + 2 >= width {
                            next = i + k + 2;
                            break;
                        }
                        hits &= !0u32 << (k + 2);
                    }
                    _ => return None,
                }
            }
            i = next;
        }
        loop {
            match *b.get(i)? {
                b'"' => return Some(i),
                b'\\' => {
                    escape(b.get(i + 1).copied())?;
                    i += 2;
                }
                c if c < 0x20 => return None,
                c => {
                    self.non_ascii |= c > 0x7f;
                    i += 1;
                }
            }
        }
    }

    fn non_ascii(&self) -> bool {
        self.non_ascii
    }
}

/// One bit per byte of `block` that is a quote, a backslash or a control character, and
/// whether any byte is above 0x7f.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn specials(block: &[u8]) -> (u32, bool) {
    use std::arch::x86_64::*;
    assert!(block.len() >= 16);
    // SAFETY: SSE2 is part of x86_64; the load reads 16 bytes of `block`, which has them.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
        let hits = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control));
        (hits as u32, _mm_movemask_epi8(v) != 0)
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn specials(block: &[u8]) -> (u32, bool) {
    let mut hits = 0;
    let mut high = false;
    for (k, c) in block[..16].iter().enumerate() {
        if *c == b'"' || *c == b'\\' || *c < 0x20 {
            hits |= 1 << k;
        }
        high |= *c > 0x7f;
    }
    (hits, high)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator of numbers below `n`, from `seed`: the edits the tests make are the
    /// same on every run.
    fn below(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }
    use crate::outcome::Outcome;

    #[test]
    fn allowed_is_the_general_paths_text() {
        assert_eq!(ALLOWED.to_str().unwrap(), Outcome::allowed(vec![]).to_json());
    }

    /// The three ways to find strings (SSE2 blocks, AVX2 blocks, the byte scanner) accept the
    /// same texts and read the same event and tool name from them, whatever this CPU has (the
    /// engine runs only one of the block scanners here).
    #[test]
    fn block_scanners_agree_with_the_byte_scanner() {
        const BENCH: &str = concat!(
            r#"{"event":"preToolUse","toolName":"Bash","#,
            r#""toolArgs":"{\"command\":\"ls -la /tmp\",\"description\":\"List files\"}","#,
            r#""sessionId":"5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11","model":"claude-sonnet-4","#,
            r#""provider":"anthropic","permissionMode":"default","turnNumber":3,"cwd":"/work/project"}"#
        );
        let pieces = [
            "",
            "\"",
            "\\",
            "\\\\",
            "\\\\\\",
            "\\\"",
            "\\u0041",
            "\\n",
            "\\/",
            "\\x",
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\t",
            "\n",
            "1",
            "-",
            ".",
            "e",
            "0",
            "null",
            "true",
            "é",
            "\u{1}",
            "\u{7f}",
            "\"event\":\"preToolUse\",",
            "\"toolName\":\"Read\",",
            "\"tool_name\":\"x\",",
            "\"a\\\"b\":1,",
            "\"k\":[1,{\"a\":\"\\\\\"}],",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
        ];
        let read = |h: Option<Head>| h.map(|h| (h.event.to_vec(), h.tool.map(<[u8]>::to_vec)));
        let mut next = below(0x9e37_79b9_7f4a_7c15u64);
        let (mut accepted, mut total, mut flat_accepted) = (0, 0, 0);
        #[cfg(target_arch = "x86_64")]
        assert!(
            flat_agrees(BENCH.as_bytes(), &read(scan(BENCH.as_bytes()))),
            "the bench envelope is read from the masks"
        );
        for _ in 0..20_000 {
            let mut text = BENCH.as_bytes().to_vec();
            if next(4) == 0 {
                // Shorter texts: the last block is padded, or the text is one block.
                let cut = next(text.len());
                text.drain(1..cut.max(1));
                text.insert(1, b'"');
            }
            for _ in 0..1 + next(4) {
                let at = next(text.len() + 1);
                let end = (at + next(3)).min(text.len());
                text.splice(at..end, pieces[next(pieces.len())].bytes());
            }
            let bytes = read(walk(&text, &mut Bytes { non_ascii: false }, &mut ()));
            #[cfg(target_arch = "x86_64")]
            {
                flat_accepted += flat_agrees(&text, &bytes) as usize;
                assert_eq!(
                    read(scan_blocks::<false, ()>(&text, &mut ())),
                    bytes,
                    "SSE2: {:?}",
                    String::from_utf8_lossy(&text)
                );
                if has_avx2() {
                    // SAFETY: the CPU has what `scan_avx2` is compiled for.
                    assert_eq!(
                        read(unsafe { scan_avx2(&text, &mut ()) }),
                        bytes,
                        "AVX2: {:?}",
                        String::from_utf8_lossy(&text)
                    );
                }
            }
            accepted += bytes.is_some() as usize;
            total += 1;
        }
        assert!(accepted > total / 20, "the edits leave some texts acceptable: {accepted} of {total}");
        #[cfg(target_arch = "x86_64")]
        assert!(flat_accepted > accepted / 3, "the masks read some of them: {flat_accepted} of {accepted}");
        let _ = flat_accepted;
    }

    type Read = Option<(Vec<u8>, Option<Vec<u8>>)>;

    /// Whether [`flat`] (SSE2, and AVX2 when this CPU has it) read `text`; when it does, it read
    /// what the walk read (`walked`), and both builds say the same.
    #[cfg(target_arch = "x86_64")]
    fn flat_agrees(text: &[u8], walked: &Read) -> bool {
        let read = |h: Option<Head>| h.map(|h| (h.event.to_vec(), h.tool.map(<[u8]>::to_vec)));
        let sse2 = read(flat::<false>(text));
        assert!(sse2.is_none() || sse2 == *walked, "SSE2 masks: {:?}", String::from_utf8_lossy(text));
        if has_avx2() {
            // SAFETY: the CPU has what `flat_avx2` is compiled for.
            let avx2 = read(unsafe { flat_avx2(text) });
            assert_eq!(avx2, sse2, "AVX2 masks: {:?}", String::from_utf8_lossy(text));
        }
        sse2.is_some()
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,pclmulqdq,bmi1,bmi2")]
    unsafe fn flat_avx2(b: &[u8]) -> Option<Head<'_>> {
        flat::<true>(b)
    }

    /// Compact objects of strings and scalars, the shape [`flat`] reads, with keys that are or
    /// look like the ones it looks for, escapes and quotes at every place of a block, and values
    /// it must leave to the walk; then edited at random. Whatever it reads, the walk reads the
    /// same; and it reads every text of its shape that the walk accepts.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn flat_agrees_with_the_walk() {
        let keys = [
            "event",
            "toolName",
            "tool_name",
            "dialect",
            "a",
            "toolArgs",
            "x\\\"event",
            "\\",
            "ev\\/ent",
            "eventx",
            "xevent",
            "olName",
            "l_name",
            "ialect",
            "\\\"event",
            "sessionId",
            "",
            "tool\\_name",
            "\\\\event",
        ];
        // (value, of the shape read from the masks)
        let values = [
            ("\"preToolUse\"", true),
            ("\"Bash\"", true),
            ("\"\"", true),
            ("\"e\\\"x\"", true),
            ("\"\\\\\"", true),
            ("\"a\\/b\\n\"", true),
            ("\"é✓\"", true),
            ("3", true),
            ("-0.5", true),
            ("0", true),
            ("true", true),
            ("false", true),
            ("null", true),
            ("12345678901234567890", true),
            ("\"\\u0041\"", false),
            ("\"\\x\"", false),
            ("012", false),
            ("1e5", false),
            ("1.", false),
            ("-", false),
            ("tru", false),
            ("nulll", false),
            ("123456789012345678901", false),
            ("{}", false),
            ("[1,2]", false),
            ("{\"event\":\"x\"}", false),
            ("\"a\tb\"", false),
            (" 1", false),
        ];
        let pieces = ["", "\"", "\\", "\\\"", ",", ":", "{", "}", " ", "1", "x", "\"event\":\"preToolUse\","];
        let mut next = below(0x5851_f42d_4c95_7f2du64);
        let (mut shaped, mut read_shaped, mut edited, mut read_edited) = (0, 0, 0, 0);
        for round in 0..30_000 {
            let mut text = String::from("{");
            let mut shape = true;
            let members = 1 + next(8);
            // Most texts have one `event`, with a plain string (the walk reads nothing else).
            let event = next(members + 1);
            for k in 0..members {
                if k > 0 {
                    text.push(',');
                }
                let key = if k == event {
                    "event".to_string()
                } else if next(3) == 0 {
                    "f".repeat(next(70))
                } else {
                    keys[next(keys.len())].to_string()
                };
                let (value, ok) = if k == event && next(4) != 0 {
                    (format!("\"{}\"", ["preToolUse", "e", "postToolUse"][next(3)]), true)
                } else if next(3) == 0 {
                    (format!("\"{}{}\"", "v".repeat(next(90)), ["", "\\\"", "\\\\", "é"][next(4)]), true)
                } else {
                    let (v, ok) = values[next(values.len())];
                    (v.to_string(), ok)
                };
                shape &= ok;
                text.push_str(&format!("\"{key}\":{value}"));
            }
            text.push('}');
            let mut text = text.into_bytes();
            let edit = round % 2 == 1;
            if edit {
                for _ in 0..1 + next(2) {
                    let at = next(text.len() + 1);
                    let end = (at + next(2)).min(text.len());
                    text.splice(at..end, pieces[next(pieces.len())].bytes());
                }
            }
            let walked = {
                let read = |h: Option<Head>| h.map(|h| (h.event.to_vec(), h.tool.map(<[u8]>::to_vec)));
                read(walk(&text, &mut Bytes { non_ascii: false }, &mut ()))
            };
            let flat = flat_agrees(&text, &walked);
            if edit {
                edited += walked.is_some() as usize;
                read_edited += flat as usize;
            } else if shape && walked.is_some() && text.len() >= 64 {
                shaped += 1;
                assert!(flat, "the masks read {:?}", String::from_utf8_lossy(&text));
                read_shaped += 1;
            }
        }
        assert!(shaped > 1_000 && edited > 300, "enough texts of each kind: {shaped}, {edited}");
        assert!(read_edited > 0 && read_shaped == shaped);
    }

    #[test]
    fn scan_reads_event_and_tool_and_refuses_doubt() {
        let ok = |s: &str| scan(s.as_bytes()).map(|h| (h.event.to_vec(), h.tool.map(<[u8]>::to_vec)));
        let some = |e: &str, t: Option<&str>| Some((e.as_bytes().to_vec(), t.map(|t| t.as_bytes().to_vec())));
        assert_eq!(ok(r#"{"event":"preToolUse","toolName":"Bash"}"#), some("preToolUse", Some("Bash")));
        assert_eq!(
            ok(" {\n\"a\":[1,-2.5,0,{\"b\":null},true,false,\"x\\\"y\"],\"event\":\"e\"} \r\n"),
            some("e", None)
        );
        assert_eq!(ok(r#"{"tool_name":"Read","event":"x","o":{}}"#), some("x", Some("Read")));
        for doubt in [
            "",
            "[]",
            "{}",
            r#"{"event":"e""#,
            r#"{"event":"e"} x"#,
            r#"{"event":"e",}"#,
            r#"{"event":"e","a":01}"#,
            r#"{"event":"e","a":1.}"#,
            r#"{"event":"e","a":-}"#,
            r#"{"event":"e","a":tru}"#,
            r#"{"event":"e","a":"\u0041"}"#,
            r#"{"event":"e","a":"\x"}"#,
            "{\"event\":\"e\",\"a\":\"\t\"}",
            r#"{"event":"e","event":"e"}"#,
            r#"{"event":"e","toolName":"a","tool_name":"b"}"#,
            r#"{"event":"e","toolName":7}"#,
            r#"{"event":"e\"","toolName":"a"}"#,
            r#"{"ev\"ent":"e"}"#,
            r#"{"toolName":"Bash"}"#,
            r#"{"event":"e","a":[1,]}"#,
            r#"{"event":"e","a":{"b"}}"#,
            r#"{"event":"e","a":1e5}"#,
            r#"{"event":"e","a":123456789012345678901}"#,
            r#"{"event":"BeforeTool","dialect":"gemini"}"#,
            r#"{"dialect":"cursor","event":"preToolUse","toolName":"Read"}"#,
            r#"{"event":"preToolUse","toolName":"Read","dialect":7}"#,
        ] {
            assert!(ok(doubt).is_none(), "{doubt:?} is left to the general path");
        }
        let deep = |n| format!(r#"{{"event":"e","a":{}1{}}}"#, "[".repeat(n), "]".repeat(n));
        assert!(ok(&deep(MAX_DEPTH - 1)).is_some());
        assert!(ok(&deep(MAX_DEPTH)).is_none(), "deeper: the general path judges");
        let long = format!(r#"{{"event":"e","a":"{}\"{}","b":"{}"}}"#, "x".repeat(37), "é".repeat(20), "y".repeat(40));
        assert_eq!(ok(&long), some("e", None));
        assert!(scan(long.as_bytes()).unwrap().non_ascii);
        assert!(!scan(r#"{"event":"e","a":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#.as_bytes()).unwrap().non_ascii);
        assert!(scan("{\"event\":\"e\",\"a\":\"\u{1}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}".as_bytes()).is_none());
    }

    /// What [`fields`] reads from a text is what the general path reads from it: the head
    /// (`envelope::head::parse_head`) and the envelope's full parse, compared field by field, its
    /// JSON text and its `OH_*` variables; and every text it reads, the general path accepts.
    fn reads_as_the_general_path(text: &str) -> bool {
        use crate::envelope::{head::parse_head, Envelope};
        let Some(scanned) = fields(text) else { return false };
        let head = parse_head(text).unwrap_or_else(|e| panic!("the general path refuses {text:?}: {e:?}"));
        assert_eq!(head.event, scanned.event, "{text:?}");
        assert_eq!(head.tool.as_deref(), scanned.tool, "{text:?}");
        assert!(head.named.is_none());
        let general = Envelope::parse(text, head.event).unwrap();
        let fast = Envelope::parse_with(text, scanned.event, Some(scanned.fields)).unwrap();
        assert_eq!(fast.json, general.json, "{text:?}");
        assert_eq!(fast.fields().collect::<Vec<_>>(), general.fields().collect::<Vec<_>>(), "{text:?}");
        assert_eq!(fast.vars(), general.vars(), "{text:?}");
        true
    }

    #[test]
    fn fields_read_what_the_general_path_reads() {
        let huge = format!(r#"{{"command":"{}","n":[{}]}}"#, "x".repeat(1 << 20), "1,".repeat(50_000) + "2");
        let read = [
            r#"{"event":"preToolUse","toolName":"Bash","toolInput":{"command":"ls"}}"#.to_string(),
            // Members in an unusual order, whitespace everywhere.
            " {\n\t\"toolInput\" : { \"command\" : \"ls -la\" } ,\r\n\"toolName\":\"Bash\" , \"event\" :\"preToolUse\" } ".into(),
            r#"{"tool_input":{"command":"ls"},"tool_name":"Bash","session_id":"s","event":"preToolUse"}"#.into(),
            // Escaped keys: decoded, one of them the same key as a plain one.
            r#"{"event":"preToolUse","a\/b":1,"a/b":2,"q\"k":"v","t\tab":[],"\\":{},"\b\f\n\r\t":null}"#.into(),
            // Repeated keys: the first place, the last value.
            r#"{"event":"preToolUse","a":1,"b":2,"a":{"x":[1,2]},"toolInput":1,"tool_input":2,"toolInput":3}"#.into(),
            // Keys whose bits collide but which differ.
            r#"{"event":"preToolUse","ab":1,"ba":2,"a_b":3,"aab":4,"abb":5,"":6,"":7}"#.into(),
            // Escapes and non-ASCII inside values, an empty tool name, numbers.
            r#"{"event":"postToolUse","toolName":"","toolOutput":"é \"q\" \\ \/ ✓","turnNumber":-0.5,"x":true}"#.into(),
            format!(r#"{{"event":"preToolUse","toolName":"Bash","toolInput":{huge},"toolInputJson":{}}}"#, serde_json::Value::from(huge.clone())),
            format!(r#"{{"event":"userPromptSubmit","prompt":"{}","effort":{{"level":"high"}}}}"#, "é".repeat(5000)),
        ];
        for text in &read {
            assert!(reads_as_the_general_path(text), "the scan reads {text:?}");
        }
        // Left to the general path (which these tests of the scan cover): `\u` escapes, a
        // `dialect`, unknown events, deep nesting.
        for text in [
            r#"{"event":"preToolUse","k\u0041":1}"#.to_string(),
            r#"{"event":"BeforeTool","dialect":"gemini"}"#.into(),
            r#"{"event":"PreToolUse"}"#.into(),
            format!(r#"{{"event":"preToolUse","a":{}1{}}}"#, "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH)),
        ] {
            assert!(fields(&text).is_none(), "{text:?}");
        }
        // Random edits of a text with repeats and escaped keys: whatever the scan reads, the general
        // path reads the same.
        let base = r#"{"event":"preToolUse","toolName":"Bash","a\"b":1,"toolInput":{"command":"ls \"x\""},"a\"b":[2,{"c":null}],"tool_input":"s","cwd":"/w"}"#;
        let pieces = [
            "",
            "\"",
            "\\",
            "\\\"",
            "\\/",
            "\\n",
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\n",
            "1",
            "-",
            ".",
            "0",
            "null",
            "é",
            "\"a\\\"b\":3,",
            "\"toolInput\":7,",
            "\"x\":1,",
            "\"x\":\"x\",",
            "\"\\/x\":0,",
            "\"/x\":1,",
        ];
        let mut next = below(0x2545_f491_4f6c_dd1du64);
        let mut accepted = 0;
        for _ in 0..20_000 {
            let mut text = base.to_string();
            for _ in 0..1 + next(3) {
                let mut at = next(text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let mut end = (at + next(3)).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                text.replace_range(at..end, pieces[next(pieces.len())]);
            }
            accepted += reads_as_the_general_path(&text) as usize;
        }
        assert!(accepted > 1_000, "the edits leave some texts to read: {accepted}");
    }
}
