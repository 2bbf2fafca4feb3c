//! The committed header is what cbindgen generates from src/ffi/ (build.rs writes it into OUT_DIR
//! only), and its version macros and `oh_hooks_version()` agree with Cargo.toml.

use std::ffi::CStr;

const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/oh_hooks.h"));

/// `make header-check` runs this test. The build never touches include/oh_hooks.h, so the file in
/// the tree is what C programs, the bindings and the packages compile against: it must be exactly
/// what src/ffi/ declares.
#[test]
fn committed_header_matches_generated() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("include/oh_hooks.h");
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}; run `make header` to write it", path.display()));
    if committed != GENERATED {
        let line = committed
            .lines()
            .zip(GENERATED.lines())
            .position(|(a, b)| a != b)
            .map_or_else(|| committed.lines().count().min(GENERATED.lines().count()) + 1, |i| i + 1);
        panic!(
            "include/oh_hooks.h differs from what cbindgen generates from src/ffi/ (first difference at line \
             {line}): run `make header` and commit include/oh_hooks.h"
        );
    }
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
        // The declaration: the line outside a comment with the call shape (cbindgen wraps long
        // argument lists, so the statement may end on a later line).
        let line = GENERATED
            .lines()
            .find(|l| l.contains(&format!("{function}(")) && !l.trim_start().starts_with('*'))
            .unwrap_or_else(|| panic!("{function} is not declared"));
        let at = GENERATED.find(line).unwrap();
        let doc = &GENERATED[GENERATED[..at].rfind("/**").unwrap()..at];
        assert!(doc.contains("Thread safety"), "{function}: no thread-safety note");
        if function != "oh_hooks_version" {
            assert!(doc.contains("Ownership:"), "{function}: no ownership note");
        }
    }
}
