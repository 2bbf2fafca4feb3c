//! Config bytes -> `config::parse_file` as YAML and as JSON, and `Options::parse` (which
//! checks every option's type but reads no file). Besides "no panic, no crash, no hang":
//! - errors are `invalid_config` and name the file (and a path inside it only when known);
//! - a layer that loads has matchers that answer for any tool name;
//! - options errors are `invalid_options` (a `configPath` is never read here).
#![no_main]

use libfuzzer_sys::fuzz_target;
use oh_hooks::config::{self, layers, trust::Trust};
use oh_hooks::options::Options;
use oh_hooks::{ErrorCode, Event};
use std::path::Path;

fn check_layer(file: &str, bytes: &[u8]) {
    match config::parse_file(Path::new(file), bytes) {
        Ok(layer) => {
            let hooks = layer.hooks.unwrap_or_default();
            for event in Event::ALL {
                for spec in hooks.of(*event) {
                    for tool in [None, Some(""), Some("Bash"), Some("mcp__x__read"), Some("FileEdit")] {
                        let _ = spec.matcher.matches(tool);
                    }
                }
            }
        }
        Err(e) => {
            assert_eq!(e.code, ErrorCode::InvalidConfig, "{e}");
            assert_eq!(e.file.as_deref(), Some(file), "{e}");
            assert!(!e.message.is_empty());
            let _ = e.to_json();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check_layer("/fuzz/.oh/config.yaml", data);
    check_layer("/fuzz/config.json", data);
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = Options::parse(Some(text)) {
            assert_eq!(e.code, ErrorCode::InvalidOptions, "{e}");
        }
        // The same text as an inline config object, when it is one.
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(text) {
            let options = serde_json::json!({ "trusted": true, "config": map }).to_string();
            if let Ok(options) = Options::parse(Some(&options)) {
                if let Err(e) = layers::load(&options, &Trust::Trusted) {
                    let e = e.into_error();
                    assert_eq!(e.code, ErrorCode::InvalidConfig, "{e}");
                }
            }
        }
    }
});
