//! Dialects other than openHarness: each a folder of data and pure functions (README "Dialects").

pub mod copilot;
