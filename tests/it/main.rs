//! The integration tests, one binary with a module per area (as ripgrep keeps them), so the
//! crate is linked into one test executable instead of one per file. Tests that change
//! process-wide state (environment variables, rlimits, signal dispositions, forced
//! fallbacks) or count the process's own children, fds, threads, memory or CPU time stay
//! their own binaries in tests/: bounds, claude_if_rules, direct_exec (also run on the fallbacks), emfile, emfile_fd0, fallbacks,
//! hardening_host, hardening_memory, hardening_process, home, http_proxy, lifecycle, persistent.

#[path = "../common/mod.rs"]
mod common;

mod answer_differential;
mod claude_conformance;
mod claude_engine;
mod claude_merge_prop;
mod cli;
mod codex_conformance;
mod copilot_conformance;
mod cursor_conformance;
mod envelope_dialect;
mod fail_closed;
mod gemini_conformance;
mod gemini_oracle;
mod hardening_bad_input;
mod header;
mod host_callbacks;
mod host_tools;
mod http;
mod http_transport;
mod one_envelope_one_reader;
mod option_lists;
mod own_hooks_first;
mod prop_matcher;
mod prop_merge;
mod quick_path;
mod read_errors;
mod reload;
mod six_dialects;
mod trust;
