//! "Did you mean …?" for misspelt keys and names.

/// The candidate closest to `word` by edit distance (case-insensitive), if it is close enough to
/// be a plausible typo: at most a third of the word's length, and at most 3 edits.
/// Failing that, a candidate that contains the word or is contained in it (at least 3 letters
/// shared): `trust` → `trusted`, `timeoutMs` → `defaultTimeoutMs`, `environment` → `env`, the
/// shortened and lengthened names edit distance misses.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let word = word.to_lowercase();
    let limit = (word.chars().count() / 3).clamp(1, 3);
    let by_edits = candidates
        .iter()
        .map(|c| (levenshtein(&word, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c);
    by_edits.or_else(|| {
        candidates
            .iter()
            .filter_map(|c| {
                let lower = c.to_lowercase();
                let shared = if lower.contains(&word) {
                    word.len()
                } else if word.contains(&lower) {
                    lower.len()
                } else {
                    return None;
                };
                (shared >= 3).then_some((shared, lower.len().abs_diff(word.len()), *c))
            })
            // The most letters shared, then the closest in length.
            .min_by_key(|(shared, diff, _)| (std::cmp::Reverse(*shared), *diff))
            .map(|(_, _, c)| c)
    })
}

/// A `` (did you mean `x`?)`` suffix, or nothing.
pub fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    closest(word, candidates).map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != *cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos() {
        assert_eq!(closest("matcher", &["match", "command", "timeout"]), Some("match"));
        assert_eq!(closest("jsonio", &["jsonIO", "match"]), Some("jsonIO"));
        assert_eq!(closest("defaultTimeout", &["defaultTimeoutMs", "cwd"]), Some("defaultTimeoutMs"));
        assert_eq!(closest("zzz", &["match", "command"]), None);
    }

    #[test]
    fn shortened_and_lengthened_names() {
        let options = ["cwd", "env", "trusted", "defaultTimeoutMs", "maxOutputBytes", "waitNonBlocking", "httpProxy"];
        assert_eq!(closest("trust", &options), Some("trusted"));
        assert_eq!(closest("timeoutMs", &options), Some("defaultTimeoutMs"));
        assert_eq!(closest("maxOutput", &options), Some("maxOutputBytes"));
        assert_eq!(closest("wait", &options), Some("waitNonBlocking"));
        assert_eq!(closest("proxy", &options), Some("httpProxy"));
        assert_eq!(closest("environment", &options), Some("env"));
        assert_eq!(closest("cwdir", &options), Some("cwd"));
        // Two letters in common are no evidence.
        assert_eq!(closest("tr", &options), None);
        assert_eq!(closest("xyz", &options), None);
    }
}
