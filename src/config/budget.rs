//! Bounds on loading one config (docs/reliability.md "Reliability", version 1.1): a config file of up to 1 MiB
//! loads in about a second and 64 MiB, whatever its content.
//!
//! The danger is expansion, not size: a YAML alias repeats a node without repeating its text,
//! so a 2 KB file can name a 1 MB string 400 times (785 MB in version 1) or a regex that
//! compiles to 12 MB 200 times (2.4 GB, the host aborted). So the parse charges a budget for
//! what it *visits* after expansion (every scalar, key and entry, ignored ones included), and
//! each distinct `match` regex is compiled once, against a per-pattern size limit and a
//! per-load total. The state lives in a thread-local for the duration of one parse: the serde
//! visitors that do the charging have no other way to reach it.

use crate::matcher::Matcher;
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Bytes of expanded content one config may produce (each scalar's length plus a fixed cost
/// per node, so that a million empty nodes count too).
pub const MAX_EXPANDED: usize = 16 << 20;
/// Cost of one node besides its text.
const NODE_COST: usize = 32;
/// Heap used by all distinct regexes of one config, as the regex engine reports it.
pub const MAX_REGEX_MEMORY: usize = 32 << 20;
/// Compiled size of one regex (`/\w{200}/`, Unicode classes repeated, is about 12 MB).
pub const MAX_REGEX_SIZE: usize = 1 << 20;
/// Wall time for one config, a backstop behind the byte budget.
pub const MAX_TIME: Duration = Duration::from_secs(2);

struct LoadBudget {
    expanded: usize,
    regex_memory: usize,
    started: Instant,
    charges: u32,
    /// Distinct `match` texts of this config, compiled once.
    matchers: HashMap<String, Matcher>,
}

thread_local! {
    static BUDGET: RefCell<Option<LoadBudget>> = const { RefCell::new(None) };
}

/// Runs one config's parse with a fresh budget.
pub fn scope<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(Option<LoadBudget>);
    impl Drop for Reset {
        fn drop(&mut self) {
            BUDGET.with(|b| *b.borrow_mut() = self.0.take());
        }
    }
    let fresh =
        LoadBudget { expanded: 0, regex_memory: 0, started: Instant::now(), charges: 0, matchers: HashMap::new() };
    // Nested scopes (none today) get their own budget and restore the outer one.
    let _reset = Reset(BUDGET.with(|b| b.borrow_mut().replace(fresh)));
    f()
}

/// Charges one node carrying `text_len` bytes of text. The error says which bound was hit.
pub fn charge(text_len: usize) -> Result<(), String> {
    BUDGET.with(|b| {
        let mut b = b.borrow_mut();
        let Some(b) = b.as_mut() else { return Ok(()) };
        b.expanded = b.expanded.saturating_add(text_len + NODE_COST);
        if b.expanded > MAX_EXPANDED {
            return Err(format!(
                "the config expands to more than {} MiB once YAML aliases are expanded (the load bound); expected a config of ordinary size, without aliases repeating large nodes",
                MAX_EXPANDED >> 20
            ));
        }
        b.charges = b.charges.wrapping_add(1);
        if b.charges % 1024 == 0 && b.started.elapsed() > MAX_TIME {
            return Err(format!(
                "the config took more than {} s to load (the load bound); expected a config of ordinary size",
                MAX_TIME.as_secs()
            ));
        }
        Ok(())
    })
}

/// The matcher for a `match` text: compiled once per config, within the regex bounds.
pub fn matcher(text: &str) -> Result<Matcher, String> {
    charge(text.len())?;
    let cached = BUDGET.with(|b| b.borrow().as_ref().and_then(|b| b.matchers.get(text).cloned()));
    if let Some(m) = cached {
        return Ok(m);
    }
    let m = Matcher::parse_limited(text, MAX_REGEX_SIZE)?;
    BUDGET.with(|b| {
        let mut b = b.borrow_mut();
        let Some(b) = b.as_mut() else { return Ok(()) };
        b.regex_memory += m.memory_usage();
        if b.regex_memory > MAX_REGEX_MEMORY {
            return Err(format!(
                "the config's regexes take more than {} MiB together (the load bound); expected fewer or simpler `/regex/` matchers",
                MAX_REGEX_MEMORY >> 20
            ));
        }
        b.matchers.insert(text.to_string(), m.clone());
        Ok(())
    })?;
    Ok(m)
}
