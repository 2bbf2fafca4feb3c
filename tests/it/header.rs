//! The committed header is what cbindgen generates from src/ffi/, and its version macros and
//! `oh_hooks_version()` agree with Cargo.toml.

use std::ffi::CStr;
use std::process::Command;

const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/oh_hooks.h"));

#[test]
fn committed_header_matches_generated() {
    // build.rs rewrites include/oh_hooks.h on every build, so the file on disk proves nothing:
    // compare with the committed version instead.
    let out = Command::new("git")
        .args(["show", "HEAD:include/oh_hooks.h"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git is needed to check the committed header");
    assert!(out.status.success(), "include/oh_hooks.h is not committed: {}", String::from_utf8_lossy(&out.stderr));
    let committed = String::from_utf8(out.stdout).unwrap();
    assert!(
        committed == GENERATED,
        "include/oh_hooks.h differs from what cbindgen generates: rebuild and commit the header"
    );
}

#[test]
fn version_macros_match_cargo() {
    for (name, value) in [
        ("OH_HOOKS_VERSION_MAJOR", env!("CARGO_PKG_VERSION_MAJOR")),
        ("OH_HOOKS_VERSION_MINOR", env!("CARGO_PKG_VERSION_MINOR")),
        ("OH_HOOKS_VERSION_PATCH", env!("CARGO_PKG_VERSION_PATCH")),
    ] {
        assert!(GENERATED.contains(&format!("#define {name} {value}\n")), "{name} is not {value}");
    }
    let version = unsafe { CStr::from_ptr(oh_hooks::ffi::oh_hooks_version()) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn every_export_is_documented_in_the_header() {
    for function in [
        "oh_hooks_new",
        "oh_hooks_fire",
        "oh_hooks_reload",
        "oh_hooks_free",
        "oh_hooks_string_free",
        "oh_hooks_version",
    ] {
        // The declaration: a line with the call shape that ends the statement.
        let line = GENERATED
            .lines()
            .find(|l| l.contains(&format!("{function}(")) && l.ends_with(");"))
            .unwrap_or_else(|| panic!("{function} is not declared"));
        let at = GENERATED.find(line).unwrap();
        let doc = &GENERATED[GENERATED[..at].rfind("/**").unwrap()..at];
        assert!(doc.contains("Thread safety"), "{function}: no thread-safety note");
        if function != "oh_hooks_version" {
            assert!(doc.contains("Ownership:"), "{function}: no ownership note");
        }
    }
}
