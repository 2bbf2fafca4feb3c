//! The Cursor dialect (docs/dialects/cursor.md): `.cursor/hooks.json` files, Cursor's camelCase
//! events (tool-specific ones beside the generic tool events), its snake_case stdin, and its flat
//! snake_case answers read and merged by Cursor's rules. Data and pure functions only: the one
//! loader reads the files, the one command runner runs the hooks.

pub mod answer;
pub mod events;
pub mod matcher;
pub mod parse;
pub mod view;

/// The option name, the trace's `dialect` and the `oh-hooks check --cursor` flag.
pub const NAME: &str = "cursor";

use super::{Answer, Decision, Dialect, File, Hook, Parser, Place, Raw, Site, View};
use crate::envelope::tools::HostTools;
use crate::envelope::Envelope;
use crate::event::Event;
use std::time::Duration;

/// The variables Cursor sets for its hooks; the host's values of these never reach a hook.
pub const VARIABLES: &[&str] = &[
    "CURSOR_PROJECT_DIR",
    "CLAUDE_PROJECT_DIR",
    "CURSOR_VERSION",
    "CURSOR_USER_EMAIL",
    "CURSOR_TRANSCRIPT_PATH",
    "CURSOR_PLUGIN_ROOT",
];

pub struct Cursor;

impl Dialect for Cursor {
    fn name(&self) -> &'static str {
        NAME
    }

    fn title(&self) -> &'static str {
        "Cursor"
    }

    fn files(&self, place: &Place) -> Vec<File> {
        parse::files(place)
    }

    fn parser(&self) -> Box<dyn Parser> {
        Box::new(parse::CursorParser::default())
    }

    fn event_name(&self, event: Event) -> Option<&'static str> {
        events::of_engine(event).find(|e| !e.is_tool_specific()).map(|e| e.name)
    }

    fn event(&self, name: &str) -> Option<Event> {
        events::CursorEvent::by_name(name).map(|e| e.engine)
    }

    fn event_names(&self) -> Vec<&'static str> {
        events::ALL.iter().map(|e| e.name).collect()
    }

    fn event_kinds(&self, name: &str) -> &'static [crate::envelope::tools::Kind] {
        events::CursorEvent::by_name(name).map_or(&[], |e| e.kinds)
    }

    fn can_block(&self, event: Event) -> bool {
        events::waits(event)
    }

    fn variables(&self) -> &'static [&'static str] {
        VARIABLES
    }

    fn view(&self, envelope: &Envelope, site: &Site) -> View {
        view::CursorView::build(envelope, site.cwd, site.tools).to_view(envelope.event, site.project_dir)
    }

    /// A hook runs when the fire raises its Cursor event (a tool-specific one only for a tool
    /// of its kind) and its matcher matches that event's value.
    fn select(&self, _event: Event, hooks: &[&Hook], view: &View, _site: &Site) -> Vec<usize> {
        let runs = |hook: &Hook| match hook.event_name.and_then(|n| view.variant(n)) {
            Some(v) => parse::matches(hook, v.matcher_value.as_deref()),
            None => false,
        };
        (0..hooks.len()).filter(|i| runs(hooks[*i])).collect()
    }

    fn timeout(&self, hook: &Hook, _event: Event) -> Duration {
        hook.timeout.unwrap_or(parse::DEFAULT_TIMEOUT)
    }

    fn hook_vars(&self, hook: &Hook) -> Vec<(&'static str, String)> {
        hook.plugin.iter().map(|p| ("CURSOR_PLUGIN_ROOT", p.root.display().to_string())).collect()
    }

    fn read(&self, _event: Event, hook: &Hook, raw: &Raw) -> Answer {
        self.read_in(_event, hook, raw, &View::default())
    }

    fn read_in(&self, _event: Event, hook: &Hook, raw: &Raw, view: &View) -> Answer {
        let Some(event) = parse::event_of(hook) else { return Answer::default() };
        let fire = answer::Fire {
            loop_count: view.fields.get("loop_count").and_then(serde_json::Value::as_u64).unwrap_or(0),
            status: view.get_str("status").unwrap_or("completed"),
        };
        answer::read(hook, raw, fire).into_answer(event)
    }

    fn merge(&self, event: Event, answers: &[Answer]) -> Decision {
        answer::merge(event, answers)
    }

    /// Cursor's `updated_input` in the host's field names.
    fn to_host_input(
        &self,
        envelope: &Envelope,
        host_tools: &HostTools,
        input: serde_json::Value,
    ) -> serde_json::Value {
        crate::envelope::tools::rewrite_for_host(&crate::envelope::tools::CURSOR, host_tools, envelope, input)
    }
}
