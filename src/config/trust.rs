//! Workspace trust (CONTRACT §3.7): openHarness's store `<home>/.oh/trusted-dirs.json`.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub enum Trust {
    Trusted,
    /// Command and HTTP hooks act as absent; the string is the trace's reason.
    Untrusted(String),
}

pub fn store_path(home: Option<&Path>) -> Option<PathBuf> {
    home.map(|h| h.join(".oh").join("trusted-dirs.json"))
}

/// `forced` is the `trusted` option. Without it: no store file → trusted; a store that does not
/// parse or has another shape → nothing trusted; otherwise `cwd`, resolved, must equal a listed
/// directory, resolved (a parent does not cover its children).
pub fn evaluate(forced: Option<bool>, home: Option<&Path>, cwd: &Path) -> Trust {
    match forced {
        Some(true) => return Trust::Trusted,
        Some(false) => return Trust::Untrusted("untrusted: the `trusted` option is false".to_string()),
        None => {}
    }
    let Some(store) = store_path(home) else { return Trust::Trusted };
    let bytes = match crate::config::read_regular_file(&store) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Trust::Trusted,
        Err(e) => return Trust::Untrusted(format!("untrusted: cannot read {} ({e})", store.display())),
    };
    let listed: Option<Vec<String>> = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v.get("trusted")?.as_array()?.iter().map(|d| d.as_str().map(str::to_string)).collect());
    let Some(listed) = listed else {
        return Trust::Untrusted(format!(
            "untrusted: {} is not of the form {{\"trusted\": [\"/dir\", ...]}}, so no directory is trusted",
            store.display()
        ));
    };
    let here = resolve(cwd);
    if listed.iter().any(|d| resolve(Path::new(d)) == here) {
        Trust::Trusted
    } else {
        Trust::Untrusted(format!("untrusted: {} is not listed in {}", here.display(), store.display()))
    }
}

/// The canonical path when it exists; otherwise the path itself without a trailing slash.
fn resolve(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.components().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        let home = std::env::temp_dir().join(format!("oh-trust-{}", std::process::id()));
        let project = home.join("project");
        std::fs::create_dir_all(project.join("sub")).unwrap();
        std::fs::create_dir_all(home.join(".oh")).unwrap();
        let store = home.join(".oh/trusted-dirs.json");
        let _ = std::fs::remove_file(&store);
        assert_eq!(evaluate(None, Some(&home), &project), Trust::Trusted, "no file: trusted");
        std::fs::write(&store, format!("{{\"trusted\": [\"{}/\"]}}", project.display())).unwrap();
        assert_eq!(evaluate(None, Some(&home), &project), Trust::Trusted, "listed");
        assert!(matches!(evaluate(None, Some(&home), &project.join("sub")), Trust::Untrusted(_)), "child of listed");
        assert!(matches!(evaluate(None, Some(&home), &home), Trust::Untrusted(_)), "not listed");
        assert_eq!(evaluate(Some(true), Some(&home), &home), Trust::Trusted, "forced");
        std::fs::write(&store, "{oops").unwrap();
        assert!(matches!(evaluate(None, Some(&home), &project), Trust::Untrusted(_)), "malformed");
        std::fs::write(&store, r#"{"trusted": "x"}"#).unwrap();
        assert!(matches!(evaluate(None, Some(&home), &project), Trust::Untrusted(_)), "wrong shape");
        std::fs::remove_dir_all(&home).unwrap();
    }
}
