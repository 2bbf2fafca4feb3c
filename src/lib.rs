//! oh-hooks: the openHarness hook engine as an embeddable library.
//!
//! The engine is plain safe Rust, one concept a module; `ffi` is the thin C ABI over it.
//!
//! - [`options`]: what `oh_hooks_new` accepts.
//! - [`config`]: config files, validation, layers.
//! - [`event`]: the 27 events and which can block.
//! - [`matcher`]: `match` filters.
//! - [`envelope`]: the fire's input, its compact JSON and `OH_*` variables.
//! - [`command`], [`http`]: running command and HTTP hooks; [`spawn`]: process creation.
//! - [`response`]: parsing what a hook answered.
//! - [`hook`]: one hook, any kind, to a result and a trace (exit-code rules, failure reasons).
//! - [`merge`]: combining results on blocking events.
//! - [`trust`]: workspace trust.
//! - [`outcome`]: the outcome JSON.
//! - [`engine`]: all of it together; reload; background hooks.

pub mod command;
pub mod config;
pub mod engine;
pub mod envelope;
pub mod error;
pub mod event;
pub mod ffi;
pub mod hook;
pub mod http;
pub mod matcher;
pub mod merge;
pub mod options;
pub mod outcome;
pub mod response;
pub mod spawn;
pub mod suggest;
pub mod trust;

pub use engine::Engine;
pub use error::{Error, ErrorCode};
pub use event::Event;
pub use outcome::Outcome;
