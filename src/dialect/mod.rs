//! Dialects (README "Dialects"): each harness's hook files, events, stdin, running, answers and
//! merge, as data and pure functions.

pub mod gemini;
