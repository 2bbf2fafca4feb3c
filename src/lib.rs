//! oh-hooks: the openHarness hook engine as an embeddable library.
//!
//! The engine is plain safe Rust, one concept a module; `ffi` is the thin C ABI over it.
//!
//! - [`options`]: what `oh_hooks_new` accepts.
//! - [`config`]: reading configs: the one loader of every dialect's files, layers, trust, watching files.
//! - [`dialect`]: the other harnesses' hooks (Claude Code, …) behind one trait and a registry.
//! - [`event`]: the events and which can block.
//! - [`matcher`]: `match` filters.
//! - [`envelope`]: the fire's input, its compact JSON and `OH_*` variables.
//! - [`os`]: the operating system under the hooks: spawning, waiting, signals, pipes, cancellation.
//! - [`run`]: the ways to run one hook (command, HTTP, …) and what each outcome means.
//! - [`response`]: reading what a hook answered.
//! - [`merge`]: combining results on blocking events.
//! - [`outcome`]: the outcome JSON.
//! - [`host`]: the host's registered functions, their pending calls, the decision observer.
//! - [`fanout`]: at most 16 hooks of one fire at once.
//! - [`thread_pool`]: a bounded pool of worker threads (background hooks, asynchronous fires).
//! - [`engine`]: all of it together; reload; background hooks; asynchronous fires.
//! - [`sync`]: locks that outlive a panic.
//! - [`words`]: whether a command needs a shell.

pub mod config;
pub mod dialect;
pub mod engine;
pub mod envelope;
pub mod error;
pub mod event;
pub mod fanout;
pub mod ffi;
pub mod host;
pub mod matcher;
pub mod merge;
pub mod options;
pub mod os;
pub mod outcome;
pub mod quick;
pub mod response;
pub mod run;
pub mod suggest;
pub mod sync;
pub mod thread_pool;
pub mod words;

pub use engine::Engine;
pub use error::{Error, ErrorCode};
pub use event::Event;
pub use outcome::Outcome;
