//! Claude Code hooks (docs/dialects/claude.md "Claude Code hooks"): `~/.claude/settings.json`, the project's
//! `.claude/settings.json` and `.claude/settings.local.json`, plugins' `hooks/hooks.json`, run
//! beside openHarness hooks by Claude Code's rules.
//!
//! - [`config`]: the files and how one parses into hooks.
//! - [`events`]: Claude Code's event names and which events its hooks may block.
//! - [`view`]: Claude Code's stdin, built from the one parsed envelope.
//! - [`answer`]: reading one answer (pure).
//! - [`merge`]: Claude Code's precedence over one step's answers (pure).

pub mod answer;
pub mod config;
pub mod events;
pub mod merge;
pub mod view;

use super::{Alias, Answer, Decision, Dialect, File, Hook, Parser, Place, Raw, Site, View};
use crate::envelope::tools::HostTools;
use crate::envelope::Envelope;
use crate::event::Event;
use crate::matcher::claude::{matcher_field, takes_if, RuleDirs};
use serde_json::Value;
use std::time::Duration;

/// The variables Claude Code sets for its hooks; the host's values of these never reach a hook.
pub const VARIABLES: &[&str] = &["CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"];

pub struct Claude;

impl Dialect for Claude {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn title(&self) -> &'static str {
        "Claude Code"
    }

    fn aliases(&self) -> &'static [(&'static str, Alias)] {
        &[("claudePlugins", Alias::Plugins), ("claudeProjectDir", Alias::ProjectDir)]
    }

    fn files(&self, place: &Place) -> Vec<File> {
        config::files(place)
    }

    fn parser(&self) -> Box<dyn Parser> {
        Box::new(config::Matchers::default())
    }

    fn event_name(&self, event: Event) -> Option<&'static str> {
        events::name(event)
    }

    fn event(&self, name: &str) -> Option<Event> {
        events::event(name)
    }

    fn can_block(&self, event: Event) -> bool {
        events::can_block(event)
    }

    fn variables(&self) -> &'static [&'static str] {
        VARIABLES
    }

    fn view(&self, envelope: &Envelope, site: &Site) -> View {
        let mut view = view::build(envelope, site.cwd, site.tools);
        view.vars.push(("CLAUDE_PROJECT_DIR", site.project_dir.display().to_string()));
        view
    }

    /// The matcher against the event's own field (Claude Code ignores the matcher of an event
    /// that has none), the `if` rule against the tool call (its command parsed once per fire).
    fn select(&self, event: Event, hooks: &[&Hook], view: &View, site: &Site) -> Vec<usize> {
        let value = matcher_field(event).and_then(|f| view::matcher_value(view, f));
        let dirs = RuleDirs {
            cwd: view.get_str("cwd").map(std::path::Path::new).unwrap_or(site.cwd),
            project: site.project_dir,
            home: site.home,
            lines: Default::default(),
        };
        let tool = view.get_str("tool_name").unwrap_or("");
        let runs = |hook: &Hook| {
            if matcher_field(event).is_some() && !hook.matcher.matches(value.as_deref()) {
                return false;
            }
            match &hook.if_rule {
                Some(rule) => takes_if(event) && rule.matches(tool, view.tool_input(), &dirs),
                None => true,
            }
        };
        (0..hooks.len()).filter(|i| runs(hooks[*i])).collect()
    }

    fn timeout(&self, hook: &Hook, event: Event) -> Duration {
        config::timeout_for(hook, event)
    }

    fn hook_vars(&self, hook: &Hook) -> Vec<(&'static str, String)> {
        let Some(plugin) = &hook.plugin else { return Vec::new() };
        let mut vars = vec![("CLAUDE_PLUGIN_ROOT", plugin.root.display().to_string())];
        vars.extend(plugin.data.as_ref().map(|d| ("CLAUDE_PLUGIN_DATA", d.display().to_string())));
        vars
    }

    fn read(&self, event: Event, _hook: &Hook, raw: &Raw) -> Answer {
        answer::read_raw(event, raw)
    }

    fn merge(&self, event: Event, answers: &[Answer]) -> Decision {
        merge::merge(event, answers)
    }

    /// Claude Code's field names back to the host's (`{"command": "ls"}` → `{"cmd": "ls"}`).
    fn to_host_input(&self, envelope: &Envelope, tools: &HostTools, input: Value) -> Value {
        view::host_rewrite(envelope, tools, input)
    }
}
