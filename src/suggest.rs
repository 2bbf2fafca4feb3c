//! "Did you mean …?" for misspelt keys and names.

/// The candidate closest to `word` by edit distance (case-insensitive), if it is close enough to
/// be a plausible typo: at most a third of the word's length, and at most 3 edits.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let word = word.to_lowercase();
    let limit = (word.chars().count() / 3).clamp(1, 3);
    candidates
        .iter()
        .map(|c| (levenshtein(&word, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
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
}
