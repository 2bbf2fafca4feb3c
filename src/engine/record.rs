//! The observer's record of a fire (docs/abi.md "Host callbacks"): completed by the fire itself and by
//! each of its background hooks, and handed to the observer by the last of them.

use super::Inner;
use crate::dialect::openharness::merge::decision as native_step;
use crate::envelope::{self, Envelope};
use crate::error::Error;
use crate::event::Event;
use crate::merge::Walk;
use crate::outcome::Outcome;
use crate::run::Ran;
use crate::sync::Unpoison;
use std::sync::{Arc, Mutex};

impl Inner {
    /// Completes a fire that is not started (a full queue, or a free under way): `done` gets
    /// `why`, and the observer its record, since it sees every fire.
    pub(super) fn refuse(&self, envelope_json: Option<&str>, why: Error, done: impl FnOnce(Outcome)) {
        let outcome = Outcome::error(why);
        self.observe_unrun(envelope_json, &outcome);
        done(outcome);
    }

    /// The observer's record of a fire that ran no hook.
    pub(super) fn observe_unrun(&self, envelope_json: Option<&str>, outcome: &Outcome) {
        if let Some(record) = self.unrun_record(envelope_json) {
            self.foreground_done(&record, outcome);
        }
    }

    /// A record for a fire that never reached [`Inner::fire`]'s own (when observing): the
    /// envelope when the text is one, else `null`.
    pub(super) fn unrun_record(&self, envelope_json: Option<&str>) -> Option<Arc<Mutex<Record>>> {
        // Asked before the envelope is read: every asynchronous or reserved fire that the no-match
        // shortcut answered comes here, and the head's parse is most of its cost (5,600 of 7,800
        // instructions) when no one observes.
        if !self.host.observing() {
            return None;
        }
        let event = envelope_json.and_then(|j| envelope::head::parse_head_for(j, &|_| false).ok()).map(|h| h.event);
        self.record(envelope_json.unwrap_or(""), event)
    }

    /// A fire's observer record, when an observer is set: `envelope` is the compact envelope, or
    /// `null` when the input was not an envelope at all.
    pub(super) fn record(&self, json: &str, event: Option<Event>) -> Option<Arc<Mutex<Record>>> {
        if !self.host.observing() {
            return None;
        }
        let envelope = match event.map(|e| Envelope::parse(json, e)) {
            Some(Ok(e)) => e.json,
            _ => "null".to_string(),
        };
        Some(Record::new(envelope))
    }

    /// The fire's own part is done (its outcome decided): the record goes to the observer now,
    /// or when the last of its background hooks finishes.
    pub(super) fn foreground_done(&self, record: &Mutex<Record>, outcome: &Outcome) {
        let done = {
            let mut r = record.lock().unpoisoned();
            r.outcome = Some(outcome.clone());
            r.left -= 1;
            (r.left == 0).then(|| r.take())
        };
        if let Some((envelope, outcome)) = done {
            self.observe(&envelope, &outcome);
        }
    }

    /// One background hook of a recorded fire finished (`ran`: its trace and result).
    pub(super) fn background_done(&self, record: &Mutex<Record>, slot: usize, ran: Ran) {
        let done = {
            let mut r = record.lock().unpoisoned();
            r.background[slot] = Some(ran);
            r.left -= 1;
            (r.left == 0).then(|| r.take())
        };
        if let Some((envelope, outcome)) = done {
            self.observe(&envelope, &outcome);
        }
    }

    /// Hands one fire's record to the observer, if there is one.
    fn observe(&self, envelope: &str, outcome: &Outcome) {
        if let Some(o) = self.host.observer() {
            o.observe(&format!(r#"{{"envelope":{envelope},"outcome":{}}}"#, outcome.to_json()));
        }
    }
}

/// One fire's observer record, completed by the fire itself and by each of its background
/// hooks; the last of them delivers it.
pub(crate) struct Record {
    envelope: String,
    /// The fire's own outcome, once decided.
    outcome: Option<Outcome>,
    /// Background hooks' results, in the order they were started.
    background: Vec<Option<Ran>>,
    /// Parts not yet done: the fire itself, then one per background hook.
    left: usize,
}

impl Record {
    pub(super) fn new(envelope: String) -> Arc<Mutex<Record>> {
        Arc::new(Mutex::new(Record { envelope, outcome: None, background: Vec::new(), left: 1 }))
    }

    /// A place for one more background hook.
    pub(super) fn slot(&mut self) -> usize {
        self.background.push(None);
        self.left += 1;
        self.background.len() - 1
    }

    /// The envelope and the outcome to deliver: the fire's, with the background hooks' traces
    /// after its own and, when the fire itself ran nothing, their gathered context and reason.
    fn take(&mut self) -> (String, Outcome) {
        let mut outcome = self.outcome.take().unwrap_or_else(|| Outcome::allowed(Vec::new()));
        let ran: Vec<Ran> = std::mem::take(&mut self.background).into_iter().flatten().collect();
        if !ran.is_empty() && outcome.hooks.is_empty() && outcome.error.is_none() {
            let mut walk = Walk::new();
            for r in &ran {
                walk.gather(native_step(r.answer.clone()));
            }
            let merged = walk.finish();
            outcome.additional_context = merged.context();
            outcome.reason = merged.reason;
        }
        outcome.hooks.extend(ran.into_iter().map(|r| r.trace));
        (std::mem::take(&mut self.envelope), outcome)
    }
}
