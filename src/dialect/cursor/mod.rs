//! The Cursor dialect (README "Cursor hooks"): `.cursor/hooks.json` files, Cursor's camelCase
//! events (tool-specific ones beside the generic tool events), its snake_case stdin, and its flat
//! snake_case answers read and merged by Cursor's rules. Data and pure functions only: the one
//! loader reads the files, the one command runner runs the hooks.

pub mod answer;
pub mod events;
pub mod matcher;
pub mod parse;
pub mod tools;
pub mod view;

/// The option name, the trace's `dialect` and the `oh-hooks check --cursor` flag.
pub const NAME: &str = "cursor";
