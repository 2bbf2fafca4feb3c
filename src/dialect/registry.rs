//! The registry: every dialect besides openHarness's own, and what needs to know them all. It
//! names each dialect folder, so it sits above them (docs/layout.md "The layers"); the seam
//! (`dialect/mod.rs`) and the folders never import it.

use super::{claude, codex, copilot, cursor, gemini, Dialect, Handler, Hook};

/// Every dialect besides openHarness's own, in walk order (docs/config.md "Merging": each layer kind's
/// steps go openHarness, then these in this order). A new dialect is one line here.
pub static REGISTRY: &[&dyn Dialect] =
    &[&claude::Claude, &codex::Codex, &cursor::Cursor, &copilot::Copilot, &gemini::Gemini];

/// The registry entry called `name` (`"claude"`), with its position in [`REGISTRY`].
pub fn by_name(name: &str) -> Option<(usize, &'static dyn Dialect)> {
    REGISTRY.iter().copied().enumerate().find(|(_, d)| d.name() == name)
}

/// What of a hook needs its dialect.
impl Hook {
    pub fn dialect(&self) -> &'static dyn Dialect {
        REGISTRY[self.dialect]
    }

    /// One line for `oh-hooks check`.
    pub fn describe(&self) -> String {
        let mut s = match &self.handler {
            Handler::Command { command, args: None } => format!("command: {command}"),
            Handler::Command { command, args: Some(args) } => {
                format!("command: {command} (exec form) {}", serde_json::to_string(args).unwrap_or_default())
            }
            Handler::Http { url, .. } => format!("http: {url}"),
            Handler::Callback { kind, .. } => format!("{kind}: (host callback `{kind}`)"),
        };
        if let Some(m) = &self.matcher_text {
            s.push_str(&format!("  [matcher {m}]"));
        }
        if let Some(i) = &self.if_text {
            s.push_str(&format!("  [if {i}]"));
        }
        if let Some(t) = self.timeout {
            s.push_str(&format!("  [timeout {} s]", t.as_secs_f64()));
        }
        if self.is_async {
            s.push_str("  [async]");
        }
        if self.fail_closed {
            s.push_str("  [onFailure block]");
        }
        if let Some(name) = self.event_name {
            s.push_str(&format!("  [{name}]"));
        }
        if let Some(limit) = self.loop_limit {
            s.push_str(&format!("  [loop_limit {limit}]"));
        }
        s.push_str(&format!("  ({}: {})", self.dialect().name(), self.source.display()));
        s
    }
}
