//! The dialects (README "Dialects"): each a folder of data and pure functions.

pub mod codex;
