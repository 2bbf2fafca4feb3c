//! Generates the C header from the files of `src/ffi/` with cbindgen into OUT_DIR, and nowhere
//! else: a build never writes into the source tree (a read-only checkout, a vendored crate and a
//! packaged source tree build as they are). `include/oh_hooks.h` is the committed copy;
//! tests/header.rs (`make header-check`) fails when it differs from this one, and `make header`
//! copies this one over it.

use std::path::PathBuf;

const FFI_FILES: &[&str] = &["src/ffi/engine.rs", "src/ffi/callbacks.rs", "src/ffi/fire_async.rs", "src/ffi/text.rs"];

fn main() {
    println!("cargo:rerun-if-changed=src/ffi");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");
    soname();
    portable();
    cli_no_pie();
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml is valid");
    let version = |part: &str| std::env::var(format!("CARGO_PKG_VERSION_{part}")).expect("cargo sets the version");
    config.after_includes = Some(format!(
        "\n#define OH_HOOKS_VERSION_MAJOR {}\n#define OH_HOOKS_VERSION_MINOR {}\n#define OH_HOOKS_VERSION_PATCH {}\n#define OH_HOOKS_VERSION \"{}\"\n",
        version("MAJOR"),
        version("MINOR"),
        version("PATCH"),
        std::env::var("CARGO_PKG_VERSION").expect("cargo sets the version"),
    ));
    // The order of the files is the order of the header: version-1 functions first.
    let mut builder = cbindgen::Builder::new().with_config(config);
    for file in FFI_FILES {
        builder = builder.with_src(root.join(file));
    }
    let header = builder.generate().expect("cbindgen could not read src/ffi/");
    let mut text = Vec::new();
    header.write(&mut text);
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("oh_hooks.h");
    std::fs::write(&out, &text).expect("cannot write the header to OUT_DIR");
}

/// `oh_portable`: the OS layer's POSIX-only paths (src/os/fallback.rs), for the `portable` feature
/// and for every target but Linux, whose calls (pidfd, eventfd, pipe2, ...) they replace.
fn portable() {
    println!("cargo:rustc-check-cfg=cfg(oh_portable)");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if std::env::var_os("CARGO_FEATURE_PORTABLE").is_some() || !linux {
        println!("cargo:rustc-cfg=oh_portable");
    }
}

/// The CLI is linked as a fixed-address executable (not PIE): a shell harness starts it once per
/// tool call, and as a PIE the loader applied 18,769 relocations and copied every page of its
/// `.data.rel.ro` at each start, a third of a no-match `oh-hooks fire` (docs/decisions.md,
/// "The CLI is not a PIE"). Only the `oh-hooks` binary: the libraries stay position-independent.
/// The code is still compiled PIC (the crates are shared with the cdylib); the linker resolves
/// those relocations at link time. gcc and `zig cc` (`make dist`) both take `-no-pie`.
fn cli_no_pie() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bin=oh-hooks=-no-pie");
    }
}

/// `make dist` sets OH_HOOKS_SONAME=1 so the shipped shared library carries the SONAME
/// `liboh_hooks.so.<major>` (programs linked against it then record that name, and a later
/// compatible version can replace the file). Everyday builds leave it unset: tests and bindings
/// link `target/release/liboh_hooks.so` by that name, and no `.so.<major>` symlink sits beside it.
fn soname() {
    println!("cargo:rerun-if-env-changed=OH_HOOKS_SONAME");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let elf = !matches!(os.as_str(), "macos" | "ios" | "windows");
    if std::env::var_os("OH_HOOKS_SONAME").is_some_and(|v| v == "1") && elf {
        let major = std::env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets the version");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,liboh_hooks.so.{major}");
    }
}
