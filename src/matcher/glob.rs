//! Globs for permission rules (`*`, `**`, `**/`, `?`, everything else literal), compiled once
//! and matched by a bit-parallel position automaton: time linear in the text (a few word
//! operations per character, at most 65 words for the longest rule allowed) and a few hundred
//! bytes per rule. A `regex` costs 6-8 KB per rule even in its leanest configuration, which a
//! settings file of 13,000 rules turned into +108 MiB at load.

/// Rules longer than this are refused at load (none real comes close; it bounds the per-character
/// cost of a match).
pub const MAX_GLOB_LEN: usize = 4096;

#[derive(Debug)]
pub struct Glob {
    /// u64 words per state set; bit `i` is "the first `i` tokens matched", bit `len` accepts.
    words: usize,
    len: usize,
    /// Tokens that repeat (`*`, `**`): consuming a character keeps their state.
    loops: Vec<u64>,
    /// Tokens that take any character / any character but `/`.
    any: Vec<u64>,
    non_slash: Vec<u64>,
    /// Where `**/` starts: an entry that consumes nothing and leads into its `**` or past its
    /// `/` (the group may match nothing, but once its `**` took a character it needs the `/`).
    entries: Vec<u64>,
    /// Literal tokens, by character: `lit_chars` sorted, `lit_masks` `words` words each.
    lit_chars: Vec<char>,
    lit_masks: Vec<u64>,
    /// The states before any character.
    start: Vec<u64>,
    /// Also starts after every space (a match at any word of the text).
    at_words: bool,
}

enum Token {
    Entry,
    Lit(char),
    One,
    Star,
    AnyRun,
}

impl Glob {
    /// `star_crosses`: `*` and `?` also take `/` (`**` always does). `at_words`: the glob may
    /// start at the text's start or after any space; it always ends at the text's end.
    pub fn new(pattern: &str, star_crosses: bool, at_words: bool) -> Result<Glob, String> {
        if pattern.len() > MAX_GLOB_LEN {
            return Err(format!("the pattern is {} bytes long; expected at most {MAX_GLOB_LEN}", pattern.len()));
        }
        let mut tokens: Vec<Token> = Vec::new();
        let mut skips: Vec<usize> = Vec::new();
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '*' if chars.peek() == Some(&'*') => {
                    chars.next();
                    if chars.peek() == Some(&'/') {
                        chars.next();
                        // `**/**/` is `**/`: keep epsilon chains short.
                        let n = tokens.len();
                        if n >= 3 && skips.last() == Some(&(n - 3)) && matches!(tokens[n - 1], Token::Lit('/')) {
                            continue;
                        }
                        skips.push(tokens.len());
                        tokens.push(Token::Entry);
                        tokens.push(Token::AnyRun);
                        tokens.push(Token::Lit('/'));
                    } else {
                        match tokens.last_mut() {
                            Some(last @ Token::Star) => *last = Token::AnyRun,
                            Some(Token::AnyRun) => {}
                            _ => tokens.push(Token::AnyRun),
                        }
                    }
                }
                '*' => match tokens.last() {
                    Some(Token::Star | Token::AnyRun) => {}
                    _ => tokens.push(Token::Star),
                },
                '?' => tokens.push(Token::One),
                c => tokens.push(Token::Lit(c)),
            }
        }
        let len = tokens.len();
        let words = len / 64 + 1;
        let set = |v: &mut Vec<u64>, i: usize| v[i / 64] |= 1 << (i % 64);
        let zero = vec![0u64; words];
        let (mut loops, mut any, mut non_slash, mut entries) = (zero.clone(), zero.clone(), zero.clone(), zero.clone());
        let mut lit_chars: Vec<char> =
            tokens.iter().filter_map(|t| if let Token::Lit(c) = t { Some(*c) } else { None }).collect();
        lit_chars.sort_unstable();
        lit_chars.dedup();
        let mut lit_masks = vec![0u64; lit_chars.len() * words];
        for (i, t) in tokens.iter().enumerate() {
            match t {
                Token::Entry => {}
                Token::Lit(c) => {
                    let k = lit_chars.binary_search(c).expect("every literal is listed");
                    lit_masks[k * words + i / 64] |= 1 << (i % 64);
                }
                Token::One => set(if star_crosses { &mut any } else { &mut non_slash }, i),
                Token::Star => {
                    set(&mut loops, i);
                    set(if star_crosses { &mut any } else { &mut non_slash }, i);
                }
                Token::AnyRun => {
                    set(&mut loops, i);
                    set(&mut any, i);
                }
            }
        }
        for i in skips {
            set(&mut entries, i);
        }
        let mut glob = Glob { words, len, loops, any, non_slash, entries, lit_chars, lit_masks, start: zero, at_words };
        let mut start = vec![0u64; words];
        start[0] = 1;
        glob.close(&mut start);
        glob.start = start;
        Ok(glob)
    }

    /// Adds the states reachable without a character: past a `*`/`**`, into a `**/` or past it.
    #[allow(clippy::needless_range_loop)] // several arrays walked in step
    fn close(&self, states: &mut [u64]) {
        loop {
            let mut changed = false;
            let (mut carry1, mut carry3) = (0u64, 0u64);
            for w in 0..self.words {
                let one = states[w] & (self.loops[w] | self.entries[w]);
                let three = states[w] & self.entries[w];
                let add = (one << 1) | carry1 | (three << 3) | carry3;
                carry1 = one >> 63;
                carry3 = three >> 61;
                if add & !states[w] != 0 {
                    states[w] |= add;
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }

    #[allow(clippy::needless_range_loop)] // several arrays walked in step
    pub fn is_match(&self, text: &str) -> bool {
        let words = self.words;
        let mut states = self.start.clone();
        let mut next = vec![0u64; words];
        for c in text.chars() {
            let lits = self.lit_chars.binary_search(&c).ok().map(|k| &self.lit_masks[k * words..(k + 1) * words]);
            let mut carry = 0u64;
            let mut alive = false;
            for w in 0..words {
                let mut accepts = self.any[w] | lits.map_or(0, |l| l[w]);
                if c != '/' {
                    accepts |= self.non_slash[w];
                }
                let took = states[w] & accepts;
                let moved = took & !self.loops[w];
                next[w] = (moved << 1) | carry | (took & self.loops[w]);
                carry = moved >> 63;
                alive |= next[w] != 0;
            }
            if self.at_words && c == ' ' {
                for w in 0..words {
                    next[w] |= self.start[w];
                }
                alive = true;
            }
            // Dead states stay dead, unless a later space starts the glob again.
            if !alive && !self.at_words {
                return false;
            }
            self.close(&mut next);
            std::mem::swap(&mut states, &mut next);
        }
        states[self.len / 64] & (1 << (self.len % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same glob as a regex, the way the engine compiled it before: the reference.
    fn reference(pattern: &str, cross: bool, at_words: bool) -> regex::Regex {
        let (star, one) = if cross { (".*", ".") } else { ("[^/]*", "[^/]") };
        let mut re = String::from(if at_words { "(?s)(?:^| )" } else { "(?s)^" });
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '*' if chars.peek() == Some(&'*') => {
                    chars.next();
                    if chars.peek() == Some(&'/') {
                        chars.next();
                        re.push_str("(?:.*/)?");
                    } else {
                        re.push_str(".*");
                    }
                }
                '*' => re.push_str(star),
                '?' => re.push_str(one),
                c => re.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
            }
        }
        re.push('$');
        regex::Regex::new(&re).unwrap()
    }

    #[test]
    fn agrees_with_the_regex_translation() {
        let patterns = [
            "git push *",
            "rm *",
            "*",
            "",
            "a?c",
            "*.env",
            "src/**",
            "**/x",
            "a/**/b",
            "**/**/c",
            "a*b*c",
            "***",
            "*a*",
            "?",
            "x**y",
            "/a/*",
            "é*ü",
            "a b",
            "* --force*",
            "**",
            "a/**",
            "**/",
        ];
        let texts = [
            "",
            "a",
            "abc",
            "git push",
            "git push origin",
            "git pushx",
            "rm -rf /",
            "x rm -rf /",
            ".env",
            "a/.env",
            "src/a/b.rs",
            "src",
            "x",
            "a/x",
            "a/b/x",
            "a/b",
            "a/c/d/b",
            "c",
            "a/c",
            "aXbYc",
            "a/b/c",
            "xy",
            "x/y",
            "/a/b",
            "/a/b/c",
            "éxyü",
            "é/ü",
            "a b",
            "ls --force",
            "sudo git push --force-with-lease",
            "a/",
            "/",
        ];
        for p in patterns {
            for cross in [true, false] {
                for at_words in [false, true] {
                    let g = Glob::new(p, cross, at_words).unwrap();
                    let r = reference(p, cross, at_words);
                    for t in texts {
                        assert_eq!(
                            g.is_match(t),
                            r.is_match(t),
                            "pattern {p:?} cross {cross} words {at_words} text {t:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_regex_on_random_globs() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let pattern_chars = ['a', 'b', '/', '*', '*', '?', ' '];
        let text_chars = ['a', 'b', '/', ' ', 'é'];
        for _ in 0..4000 {
            let p: String = (0..next(9)).map(|_| pattern_chars[next(pattern_chars.len())]).collect();
            let (cross, at_words) = (next(2) == 0, next(2) == 0);
            let g = Glob::new(&p, cross, at_words).unwrap();
            let r = reference(&p, cross, at_words);
            for _ in 0..20 {
                let t: String = (0..next(10)).map(|_| text_chars[next(text_chars.len())]).collect();
                assert_eq!(g.is_match(&t), r.is_match(&t), "pattern {p:?} cross {cross} words {at_words} text {t:?}");
            }
        }
    }

    #[test]
    fn long_patterns_and_texts() {
        let p = format!("{}*{}", "a".repeat(100), "b".repeat(100));
        let g = Glob::new(&p, true, false).unwrap();
        assert!(g.is_match(&format!("{}xyz{}", "a".repeat(100), "b".repeat(100))));
        assert!(!g.is_match(&format!("{}xyz{}", "a".repeat(100), "b".repeat(99))));
        assert!(Glob::new(&"a".repeat(MAX_GLOB_LEN + 1), true, false).is_err());
        let worst = Glob::new(&"?*".repeat(MAX_GLOB_LEN / 2), true, true).unwrap();
        let text = "a ".repeat(100_000);
        let start = std::time::Instant::now();
        let _ = worst.is_match(&text);
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "{:?}", start.elapsed());
    }
}
