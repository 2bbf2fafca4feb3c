//! Workspace trust (docs/config.md "Trust and the kill switch"): openHarness's store `<home>/.oh/trusted-dirs.json`. The
//! verdict decides whether the project layers are read at all ([`super::layers`]).

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq)]
pub enum Trust {
    Trusted,
    /// The project layers are not read; the string says why.
    Untrusted(String),
}

pub fn store_path(home: Option<&Path>) -> Option<PathBuf> {
    home.map(|h| h.join(".oh").join("trusted-dirs.json"))
}

/// `forced` is the `trusted` option. Without it: no home → nothing trusted; no store file →
/// trusted; a store that does not parse or has another shape → nothing trusted; otherwise
/// `cwd`, resolved, must equal a listed directory, resolved (a parent does not cover its
/// children). `Err`: the store exists but cannot be read right now (EMFILE, EACCES...). That is
/// no verdict at all: the caller treats the project as untrusted *for now* and asks again.
pub fn evaluate(forced: Option<bool>, home: Option<&Path>, cwd: &Path) -> Result<Trust, String> {
    match forced {
        Some(true) => return Ok(Trust::Trusted),
        Some(false) => return Ok(Trust::Untrusted("untrusted: the `trusted` option is false".to_string())),
        None => {}
    }
    let Some(store) = store_path(home) else {
        return Ok(Trust::Untrusted(
            "untrusted: there is no home directory (no `home` option, no $HOME, no password-database entry), so no trust store".to_string(),
        ));
    };
    let bytes = match crate::config::read_regular_file(&store) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Trust::Trusted),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            return Ok(Trust::Untrusted(format!("untrusted: {} is not a regular file", store.display())))
        }
        Err(e) => return Err(format!("cannot read {} ({e})", store.display())),
    };
    let listed: Option<Vec<String>> = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| v.get("trusted")?.as_array()?.iter().map(|d| d.as_str().map(str::to_string)).collect());
    let Some(listed) = listed else {
        return Ok(Trust::Untrusted(format!(
            "untrusted: {} is not of the form {{\"trusted\": [\"/dir\", ...]}}, so no directory is trusted",
            store.display()
        )));
    };
    let here = resolve(cwd);
    Ok(if listed.iter().any(|d| resolve(Path::new(d)) == here) {
        Trust::Trusted
    } else {
        Trust::Untrusted(format!("untrusted: {} is not listed in {}", here.display(), store.display()))
    })
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
        assert_eq!(evaluate(None, Some(&home), &project).unwrap(), Trust::Trusted, "no file: trusted");
        std::fs::write(&store, format!("{{\"trusted\": [\"{}/\"]}}", project.display())).unwrap();
        assert_eq!(evaluate(None, Some(&home), &project).unwrap(), Trust::Trusted, "listed");
        assert!(
            matches!(evaluate(None, Some(&home), &project.join("sub")).unwrap(), Trust::Untrusted(_)),
            "child of listed"
        );
        assert!(matches!(evaluate(None, Some(&home), &home).unwrap(), Trust::Untrusted(_)), "not listed");
        assert_eq!(evaluate(Some(true), Some(&home), &home).unwrap(), Trust::Trusted, "forced");
        std::fs::write(&store, "{oops").unwrap();
        assert!(matches!(evaluate(None, Some(&home), &project).unwrap(), Trust::Untrusted(_)), "malformed");
        std::fs::write(&store, r#"{"trusted": "x"}"#).unwrap();
        assert!(matches!(evaluate(None, Some(&home), &project).unwrap(), Trust::Untrusted(_)), "wrong shape");
        assert!(matches!(evaluate(None, None, &project), Ok(Trust::Untrusted(_))), "no home: untrusted");
        std::fs::remove_dir_all(&home).unwrap();
    }
}
