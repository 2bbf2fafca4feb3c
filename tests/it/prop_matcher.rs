//! Property tests of `match` (CONTRACT §3.3) against oh_hooks::matcher::Matcher: each form
//! compared with an independent model (str::contains, a reference glob matcher, exact equality).

use oh_hooks::matcher::Matcher;
use proptest::prelude::*;

/// Characters that stress the forms: the glob star, regex metacharacters (literal outside a
/// regex), the regex delimiter, `?` (literal in globs), and multi-byte characters.
const ALPHABET: &[char] = &['a', 'b', 'B', '_', '.', '?', '[', ']', '(', '$', '^', '\\', '+', '/', 'é', '日', ' '];

fn text_from(chars: &'static [char], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(chars), 0..max).prop_map(|v| v.into_iter().collect())
}

fn text(max: usize) -> impl Strategy<Value = String> {
    text_from(ALPHABET, max)
}

fn no_star_no_slash() -> &'static [char] {
    &['a', 'b', 'B', '_', '.', '?', '[', ']', '(', '$', '^', '\\', '+', 'é', '日', ' ']
}

/// `/body/flags` is a regex when longer than 2 with a `/` after the first (CONTRACT §3.3).
fn is_regex_form(p: &str) -> bool {
    p.len() > 2 && p.starts_with('/') && p.rfind('/').is_some_and(|i| i > 0)
}

/// Reference glob: `*` is any run of characters (possibly empty), everything else literal,
/// anchored at both ends. Dynamic programming over characters, independent of the engine's
/// split-and-find.
fn glob_model(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // m[i][j]: p[..i] matches t[..j]
    let mut m = vec![vec![false; t.len() + 1]; p.len() + 1];
    m[0][0] = true;
    for i in 1..=p.len() {
        for j in 0..=t.len() {
            m[i][j] = if p[i - 1] == '*' {
                m[i - 1][j] || (j > 0 && m[i][j - 1])
            } else {
                j > 0 && m[i - 1][j - 1] && p[i - 1] == t[j - 1]
            };
        }
    }
    m[p.len()][t.len()]
}

fn matches(pattern: &str, tool: &str) -> bool {
    Matcher::parse(pattern).unwrap_or_else(|e| panic!("{pattern:?}: {e}")).matches(Some(tool))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// Any string either compiles or is a load error; a compiled matcher never panics.
    #[test]
    fn parse_and_match_never_panic(pattern in text(12), tool in text(12)) {
        if let Ok(m) = Matcher::parse(&pattern) {
            let _ = m.matches(Some(&tool));
        }
    }

    /// Without `*` and not of the `/regex/` form, a pattern is a case-sensitive substring.
    #[test]
    fn no_star_is_a_substring(pattern in text(6), pre in text(4), post in text(4), other in text(10), inside in any::<bool>()) {
        prop_assume!(!pattern.is_empty() && !pattern.contains('*') && !is_regex_form(&pattern));
        let tool = if inside { format!("{pre}{pattern}{post}") } else { other };
        prop_assume!(!tool.is_empty());
        prop_assert_eq!(matches(&pattern, &tool), tool.contains(pattern.as_str()), "pattern {:?} tool {:?}", pattern, tool);
    }

    /// Substring matching is case-sensitive.
    #[test]
    fn substring_is_case_sensitive(word in "[a-z]{1,6}") {
        let upper = word.to_uppercase();
        prop_assert!(!matches(&word, &upper));
        prop_assert!(matches(&word, &word));
    }

    /// `*` (any number of stars) matches every tool name.
    #[test]
    fn star_matches_everything(stars in 1usize..4, tool in text(16)) {
        prop_assert!(matches(&"*".repeat(stars), &tool));
    }

    /// A pattern with `*` (not of regex form) is a glob anchored at both ends: equal to the
    /// reference matcher, whatever the other characters (`?`, regex metacharacters) are.
    #[test]
    fn glob_equals_reference(pieces in prop::collection::vec(text(4), 2..5), tool in text(12), pre in text(3)) {
        let pattern = pieces.join("*");
        prop_assume!(!is_regex_form(&pattern));
        // Half the time, build a tool name from the pattern so that matches are common.
        let built: String = pieces.iter().enumerate().map(|(i, p)| if i == 0 { p.clone() } else { format!("{pre}{p}") }).collect();
        for t in [tool, built] {
            if t.is_empty() { continue; }
            prop_assert_eq!(matches(&pattern, &t), glob_model(&pattern, &t), "pattern {:?} tool {:?}", &pattern, &t);
        }
    }

    /// Anchoring: `p*` is a prefix test, `*p` a suffix test, `a*b` both without overlap.
    #[test]
    fn glob_anchoring(a in text_from(no_star_no_slash(), 5), b in text_from(no_star_no_slash(), 5), tool in text(10)) {
        prop_assume!(!tool.is_empty());
        prop_assert_eq!(matches(&format!("{a}*"), &tool), tool.starts_with(a.as_str()));
        prop_assert_eq!(matches(&format!("*{b}"), &tool), tool.ends_with(b.as_str()));
        let both = tool.len() >= a.len() + b.len() && tool.starts_with(a.as_str()) && tool.ends_with(b.as_str());
        prop_assert_eq!(matches(&format!("{a}*{b}"), &tool), both, "{:?}*{:?} vs {:?}", a, b, tool);
        // The glob is not a substring test: a tool with extra text before the prefix fails.
        if !a.is_empty() {
            let (prefix_glob, shifted) = (format!("{a}*"), format!("Z{a}"));
            prop_assert!(!matches(&prefix_glob, &shifted), "{:?} matched {:?}", prefix_glob, shifted);
        }
    }

    /// `/^x$/` with `x` escaped is exact equality; `/x/` (unanchored) is a substring test.
    #[test]
    fn anchored_regex_is_exact_match(word in text(6), tool in text(8), same in any::<bool>()) {
        prop_assume!(!word.is_empty());
        let tool = if same { word.clone() } else { tool };
        prop_assume!(!tool.is_empty());
        let escaped = regex::escape(&word);
        prop_assert_eq!(matches(&format!("/^{escaped}$/"), &tool), tool == word, "word {:?} tool {:?}", &word, &tool);
        prop_assert_eq!(matches(&format!("/{escaped}/"), &tool), tool.contains(word.as_str()));
    }

    /// The `i` flag (ASCII): case-insensitive substring; ignored flags g, y, d change nothing.
    #[test]
    fn regex_flags(word in "[a-zA-Z]{1,6}", tool in "[a-zA-Z]{1,10}") {
        let contains_ci = tool.to_ascii_lowercase().contains(&word.to_ascii_lowercase());
        prop_assert_eq!(matches(&format!("/{word}/i"), &tool), contains_ci);
        prop_assert_eq!(matches(&format!("/{word}/gyd"), &tool), tool.contains(word.as_str()));
    }

    /// No toolName (absent or "") matches every hook, whatever its matcher.
    #[test]
    fn no_tool_name_matches_all(pattern in text(10)) {
        if let Ok(m) = Matcher::parse(&pattern) {
            prop_assert!(m.matches(None));
            prop_assert!(m.matches(Some("")));
        }
    }

    /// An empty `match` matches everything.
    #[test]
    fn empty_pattern_matches_all(tool in text(10)) {
        prop_assert!(matches("", &tool));
    }

    /// Unknown regex flags are load errors, never a silent no-match.
    #[test]
    fn unknown_flags_are_errors(body in "[a-z]{1,4}", flag in "[a-zA-Z0-9]") {
        prop_assume!(!"imsugyd".contains(flag.as_str()));
        let pattern = format!("/{body}/{flag}");
        prop_assert!(Matcher::parse(&pattern).is_err(), "{} compiled", pattern);
    }
}
