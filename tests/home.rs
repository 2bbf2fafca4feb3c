//! The home directory (CONTRACT §2, version 1.1; issue 9 item 4): `home` must be absolute; an
//! empty or relative `$HOME` falls back to the password database. Version 1 took `""`, `~` or
//! an unset `$HOME` as "no trust store", and a missing store trusts every repository. One test
//! in this file: it changes the process environment.

use oh_hooks::Engine;
use serde_json::json;
use std::path::PathBuf;

fn passwd_home() -> PathBuf {
    // SAFETY: getpwuid returns a pointer into static storage, read at once (single-threaded here).
    unsafe {
        let pw = libc::getpwuid(libc::getuid());
        assert!(!pw.is_null(), "the test user has a password-database entry");
        PathBuf::from(std::ffi::CStr::from_ptr((*pw).pw_dir).to_str().unwrap())
    }
}

#[test]
fn home_is_absolute_or_from_the_password_database() {
    for bad in ["", "~", "~/", "relative"] {
        let e =
            Engine::new(Some(&json!({ "home": bad }).to_string())).err().unwrap_or_else(|| panic!("{bad:?} accepted"));
        assert_eq!(e.code, oh_hooks::ErrorCode::InvalidOptions, "{bad:?}");
        assert_eq!(e.path.as_deref(), Some("home"));
    }
    for env in [Some(""), Some("relative/home"), Some("~"), None] {
        match env {
            Some(v) => std::env::set_var("HOME", v),
            None => std::env::remove_var("HOME"),
        }
        let e = Engine::new(None).unwrap();
        assert_eq!(e.options().home.as_deref(), Some(passwd_home().as_path()), "$HOME {env:?}");
    }
    std::env::set_var("HOME", "/somewhere/absolute");
    assert_eq!(Engine::new(None).unwrap().options().home, Some(PathBuf::from("/somewhere/absolute")));
}
