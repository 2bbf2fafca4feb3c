//! The fire path: which hooks a fire runs (one list, each hook tagged with its dialect and layer
//! kind), the walk over its steps, the hooks that run together or in the background, and the
//! `configChange` fire a reload starts.
//!
//! The steps of the walk (docs/config.md "Merging", own hooks first) are one per dialect and layer kind:
//! the own layers' steps first (openHarness's, then each registered dialect's in registry
//! order), then the project layers' in the same order, so a project hook's `allow` never ends
//! the walk before the user's own hooks have run. openHarness hooks are a step of their own
//! each (docs/config.md "Merging"), their answer made a `Decision` by openHarness's precedence
//! (`dialect::openharness::merge`); a dialect's hooks of one layer kind run together and its
//! merge makes them one step. The walk takes both alike (`Walk::step`). Nothing here knows a
//! registered dialect by name: each is asked through its trait.

use super::record::Record;
use super::state::Snapshot;
use super::{cancelled_error, Inner};
use crate::config::layers::{self, LayerKind, Origin};
use crate::config::{self, HookSpec};
use crate::dialect::openharness::merge::{decides_nothing, decision as native_step};
use crate::dialect::registry::REGISTRY;
use crate::dialect::{Answer, Decision, Dialect, Hook, Site, View};
use crate::envelope::tools::HostTools;
use crate::envelope::{self, Envelope};
use crate::event::Event;
use crate::fanout::{self, Budget};
use crate::merge::{denied_by, Walk};
use crate::os::cancel::Cancel;
use crate::outcome::{Outcome, Trace, Verdict};
use crate::quick;
use crate::run::dialect::{self as dialect_run, DialectContext};
use crate::run::{self as hook, Context, Ran};
use crate::sync::Unpoison;
use crate::thread_pool::{BACKGROUND_QUEUE, BACKGROUND_THREADS};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One hook a fire runs: openHarness's (its position in the event's list) or a dialect's (its
/// position in the event's dialect list, whose entry says its dialect and layer kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    Native(usize),
    Dialect(usize),
}

/// Each registered dialect's view of one envelope, by registry position (`None`: no hook of
/// that dialect is configured for the event).
type Views = Vec<Option<Arc<View>>>;

/// Each registered dialect's hooks that ran in a fire, by registry position: their picks and
/// what each did, in job order.
type Steps = Vec<(Vec<Pick>, Vec<Ran>)>;

/// What a fire hands its background hooks.
struct Background<'a> {
    snapshot: &'a Arc<Snapshot>,
    envelope: &'a Arc<Envelope>,
    budget: &'a Arc<Budget>,
    record: Option<&'a Arc<Mutex<Record>>>,
}

/// A hook of a fire with more than [`fanout::PER_FIRE`] to run whose timeout passed before its turn.
const NO_TURN: &str = "not run: its timeout passed while it waited for a turn (at most 16 hooks of a fire run at once)";
/// A background hook still queued when free began.
const NOT_STARTED_FREE: &str = "not run: the engine was freed (oh_hooks_free) before the hook started";
/// A hook whose run panicked inside the engine.
const INTERNAL: &str = "internal error while running the hook";

impl Inner {
    /// Fires one event. Returns the outcome and, when an observer is set, the fire's record,
    /// which the caller completes with the final outcome ([`Inner::foreground_done`]).
    pub(super) fn fire(
        self: &Arc<Self>,
        json: &str,
        cancel: Option<&Arc<Cancel>>,
        scanned: bool,
    ) -> (Outcome, Option<Arc<Mutex<Record>>>) {
        self.reload_if_due();
        // A guard, not an Arc clone: no shared reference count to bounce between threads.
        let snapshot = self.state.load();
        let config = &snapshot.config;
        // The head gathers the fields for the envelope whenever the event has a hook: a second
        // parse of the text is saved when one runs. A fire of hooks that all filter by tool and
        // match nothing rarely gets here (src/quick.rs answers it first; only an observer, a
        // warning or text the scan leaves alone brings it), and then gathering costs a few
        // slices of text, not a parse.
        let has_hooks = |e: Event| {
            !config.disable_all_hooks && (!config.hooks.of(e).is_empty() || !config.dialects.of(e).is_empty())
        };
        // The no-match scan accepted the text and a hook may run (src/quick.rs): the envelope as
        // the scan read it, the same head and fields the parse below reads from the same text.
        let read = scanned.then(|| quick::fields(json)).flatten().map(|s| envelope::head::Head {
            event: s.event,
            tool: s.tool.map(Cow::Borrowed),
            fields: Some(s.fields),
            named: None,
        });
        let head = match read.map_or_else(|| envelope::head::parse_head_for(json, &has_hooks), Ok) {
            Ok(h) => h,
            Err(e) => return (Outcome::error(e), self.record(json, None)),
        };
        // A dialect's tool-specific event name needs a tool of its kind (option `tools` says
        // which); an envelope without `dialect` has nothing to check.
        if head.named.is_some() {
            if let Err(e) = envelope::head::check_named(&head, &self.options.tools) {
                return (Outcome::error(e), self.record(json, None));
            }
        }
        let event = head.event;
        if snapshot.config.disable_all_hooks {
            return (Outcome::allowed(snapshot.warnings.clone()), self.record(json, Some(event)));
        }
        let tool = head.tool.as_deref();
        let specs = snapshot.config.hooks.of(event);
        let dialect_hooks = snapshot.config.dialects.of(event);
        // The common case on every tool call: nothing matches (and an empty Vec allocates nothing).
        // The openHarness hooks that run, as the walk's picks at once (no list of positions first).
        let natives: Vec<Pick> =
            (0..specs.len()).filter(|i| specs[*i].matcher.matches(tool)).map(Pick::Native).collect();
        if natives.is_empty() && dialect_hooks.is_empty() {
            return (Outcome::allowed(snapshot.warnings.clone()), self.record(json, Some(event)));
        }
        let envelope = match Envelope::parse_with(json, event, head.fields) {
            Ok(e) => e,
            Err(e) => return (Outcome::error(e), self.record(json, None)),
        };
        let record = self.host.observing().then(|| Record::new(envelope.json.clone()));
        let cancel = cancel.map(|c| &**c);
        // Cancelled while it waited for an engine thread: nothing starts (not even background hooks).
        if cancel.is_some_and(Cancel::is_cancelled) {
            return (Outcome::error(cancelled_error()), record);
        }
        // No dialect hook for the event: no view to build (and no table of them to allocate).
        let (views, selected) =
            if dialect_hooks.is_empty() { (Vec::new(), Vec::new()) } else { self.select(dialect_hooks, &envelope) };
        if natives.is_empty() && selected.is_empty() {
            return (Outcome::allowed(snapshot.warnings.clone()), record);
        }
        let wait = self.options.wait_non_blocking;
        // `async` hooks decide nothing: they run like background hooks.
        let (later, selected): (Vec<usize>, Vec<usize>) =
            selected.into_iter().partition(|i| dialect_hooks[*i].is_async && !wait);
        let dialects: Vec<Pick> = selected.iter().map(|i| Pick::Dialect(*i)).collect();
        if event.is_blocking() && later.is_empty() {
            // Nothing of this fire outlives it (its hooks all run before `run_blocking` returns,
            // fanned out on scoped threads at most): the snapshot stays the guard, the envelope
            // and the budget on this stack. Only a fire that hands hooks to the background
            // shares them (below), since those run after it returned.
            let budget = Budget::default();
            let outcome = self.run_blocking(&snapshot, &envelope, &views, &natives, &dialects, cancel, &budget);
            return (outcome, record);
        }
        let snapshot = arc_swap::Guard::into_inner(snapshot);
        let envelope = Arc::new(envelope);
        // The fire's turns, shared by everything it runs in parallel, here and in the background.
        let budget = Arc::new(Budget::default());
        let bg = Background { snapshot: &snapshot, envelope: &envelope, budget: &budget, record: record.as_ref() };
        let mut dropped = 0;
        if !later.is_empty() {
            let later: Vec<Pick> = later.iter().map(|i| Pick::Dialect(*i)).collect();
            dropped += self.spawn_background(&bg, &views, &later);
        }
        let dialect_hooks = snapshot.config.dialects.of(event);
        let mut outcome = if event.is_blocking() {
            self.run_blocking(&snapshot, &envelope, &views, &natives, &dialects, cancel, &budget)
        } else if selected.iter().any(|i| dialect_hooks[*i].dialect().can_block(event)) {
            // A dialect's hooks may block this event: fire waits for them; openHarness hooks
            // stay non-blocking (in the background unless `waitNonBlocking`).
            let mut jobs = if wait { natives.clone() } else { Vec::new() };
            if !wait {
                dropped += self.spawn_background(&bg, &views, &natives);
            }
            jobs.extend(&dialects);
            let done = self.run_together(&snapshot, &envelope, &views, &jobs, cancel, &budget);
            let (mut walk, mut traces, steps) = gather(done, &jobs, dialect_hooks);
            let mut warnings = Vec::new();
            for (d, (picks, ran)) in steps.into_iter().enumerate().filter(|(_, (p, _))| !p.is_empty()) {
                let dialect = REGISTRY[d];
                let (answers, step_traces) = split(ran, &mut warnings);
                let decision = decide(dialect, &envelope, &self.options.tools, &answers);
                let who = || denier(dialect, dialect_hooks, &picks, &answers, &step_traces);
                let decided = walk.step(decision, who).is_break();
                traces.extend(step_traces);
                if decided {
                    break;
                }
            }
            walk.finish().into_outcome(traces, warnings_with(&snapshot.warnings, &warnings))
        } else if wait {
            let mut jobs = natives;
            jobs.extend(&dialects);
            let done = self.run_together(&snapshot, &envelope, &views, &jobs, cancel, &budget);
            let (mut walk, mut traces, steps) = gather(done, &jobs, dialect_hooks);
            let mut warnings = Vec::new();
            let (mut stop, mut messages) = (None, Vec::new());
            for (d, (_, ran)) in steps.into_iter().enumerate().filter(|(_, (p, _))| !p.is_empty()) {
                let (answers, step_traces) = split(ran, &mut warnings);
                traces.extend(step_traces);
                let (step_stop, message) = walk.gather(decide(REGISTRY[d], &envelope, &self.options.tools, &answers));
                stop = stop.or(step_stop);
                messages.extend(message);
            }
            let mut merged = walk.finish();
            merged.permission = None;
            merged.updated_input = None;
            merged.updated_prompt = None;
            merged.stop = stop;
            merged.system_messages = messages;
            merged.into_outcome(traces, warnings_with(&snapshot.warnings, &warnings))
        } else {
            let mut jobs = natives;
            jobs.extend(&dialects);
            dropped += self.spawn_background(&bg, &views, &jobs);
            Outcome::allowed(snapshot.warnings.clone())
        };
        if dropped > 0 {
            outcome.warnings.push(format!(
                "background queue full: {dropped} hook(s) of this fire dropped ({} since the engine started; at most {BACKGROUND_THREADS} run at once and {BACKGROUND_QUEUE} wait)",
                self.background.dropped()
            ));
        }
        (outcome, record)
    }

    /// The dialect hooks of this fire that run (their positions in `hooks`, in list order), and
    /// each dialect's view of the envelope: asked of each dialect with hooks for the event
    /// (matchers, `if` rules); identical handlers of one dialect run once.
    fn select(&self, hooks: &[Hook], envelope: &Envelope) -> (Views, Vec<usize>) {
        let mut views: Views = vec![None; REGISTRY.len()];
        let mut selected = Vec::new();
        for (d, dialect) in REGISTRY.iter().enumerate() {
            let mine: Vec<usize> = (0..hooks.len()).filter(|i| hooks[*i].dialect == d).collect();
            if mine.is_empty() {
                continue;
            }
            let site = self.site(d);
            let view = dialect.view(envelope, &site);
            let refs: Vec<&Hook> = mine.iter().map(|i| &hooks[*i]).collect();
            let mut seen: Vec<&str> = Vec::new();
            for i in dialect.select(envelope.event, &refs, &view, &site).into_iter().filter_map(|p| mine.get(p)) {
                if seen.contains(&hooks[*i].identity.as_str()) {
                    continue;
                }
                seen.push(&hooks[*i].identity);
                selected.push(*i);
            }
            views[d] = Some(Arc::new(view));
        }
        selected.sort_unstable();
        (views, selected)
    }

    /// Where dialect `d`'s hooks run: its project directory is its option's, else `cwd`.
    fn site(&self, d: usize) -> Site<'_> {
        Site {
            cwd: &self.options.cwd,
            home: self.options.home.as_deref(),
            project_dir: self.options.dialects[d].project_dir.as_deref().unwrap_or(&self.options.cwd),
            tools: &self.options.tools,
        }
    }

    fn context<'a>(
        &'a self,
        snapshot: &'a Snapshot,
        envelope: &'a Envelope,
        cancel: Option<&'a Cancel>,
    ) -> Context<'a> {
        Context {
            envelope,
            cwd: &self.options.cwd,
            env: self.env(),
            default_timeout: self.options.default_timeout,
            max_output_bytes: self.options.max_output_bytes,
            strict: self.options.strict,
            http: &self.http,
            pools: &snapshot.pools,
            host: &self.host,
            engine_id: self.id,
            cancel,
        }
    }

    /// Blocking events: the walk's steps (this module's header), stopping where the merge is
    /// decided. openHarness hooks run one after another; a dialect's hooks of one layer kind run
    /// together as one step. A rewrite (`updatedInput`, `updatedPrompt`) reaches the hooks after it.
    #[allow(clippy::too_many_arguments)]
    fn run_blocking(
        &self,
        snapshot: &Snapshot,
        envelope: &Envelope,
        views: &Views,
        natives: &[Pick],
        dialects: &[Pick],
        cancel: Option<&Cancel>,
        budget: &Budget,
    ) -> Outcome {
        let specs = snapshot.config.hooks.of(envelope.event);
        let hooks = snapshot.config.dialects.of(envelope.event);
        let mut current: Option<Envelope> = None;
        let mut walk = Walk::new();
        // Whether any step reached the walk: a fire whose hooks all answered nothing (a
        // callback's `{}`) is allowed with its traces, without the walk's finish.
        let mut stepped = false;
        let mut traces = Vec::with_capacity(natives.len() + dialects.len());
        let mut warnings = Vec::new();
        'walk: for kind in [LayerKind::Own, LayerKind::Project] {
            let project = kind == LayerKind::Project;
            for pick in natives {
                let Pick::Native(i) = *pick else { continue };
                if specs[i].from_project != project {
                    continue;
                }
                if cancel.is_some_and(Cancel::is_cancelled) {
                    break 'walk;
                }
                let cx = self.context(snapshot, current.as_ref().unwrap_or(envelope), cancel);
                let Ran { answer, trace, .. } = hook::run(&specs[i], &cx);
                traces.push(trace);
                // Its step would change nothing (a test in src/merge/mod.rs pins it).
                if decides_nothing(&answer) {
                    continue;
                }
                stepped = true;
                if answer.updated_input.is_some() || answer.updated_prompt.is_some() {
                    let base = current.as_ref().unwrap_or(envelope);
                    current = Some(base.rewritten(answer.updated_input.as_ref(), answer.updated_prompt.as_deref()));
                }
                let who = || traces.last().map(|t| native_denier(&specs[i], t)).unwrap_or_default();
                if walk.step(native_step(answer), who).is_break() {
                    break 'walk;
                }
            }
            // No dialect hook in this fire (the common case): no step to gather for each
            // registered dialect.
            let registered = if dialects.is_empty() { &REGISTRY[..0] } else { &REGISTRY[..] };
            for (d, dialect) in registered.iter().enumerate() {
                let step: Vec<Pick> = dialects
                    .iter()
                    .copied()
                    .filter(|p| matches!(p, Pick::Dialect(i) if hooks[*i].dialect == d && hooks[*i].from_project == project))
                    .collect();
                if step.is_empty() {
                    continue;
                }
                if cancel.is_some_and(Cancel::is_cancelled) {
                    break 'walk;
                }
                let at = current.as_ref().unwrap_or(envelope);
                // After a rewrite the step sees the rewritten envelope (its hooks were chosen
                // by the fire's own).
                let rebuilt: Views;
                let views_now = if current.is_some() {
                    rebuilt = (0..REGISTRY.len())
                        .map(|e| (e == d).then(|| Arc::new(dialect.view(at, &self.site(d)))))
                        .collect();
                    &rebuilt
                } else {
                    views
                };
                let ran = self.run_together(snapshot, at, views_now, &step, cancel, budget);
                stepped = true;
                let (answers, step_traces) = split(ran, &mut warnings);
                let decision = decide(*dialect, at, &self.options.tools, &answers);
                let rewrite = (decision.updated_input.clone(), decision.updated_prompt.clone());
                let who = || denier(*dialect, hooks, &step, &answers, &step_traces);
                let decided = walk.step(decision, who).is_break();
                traces.extend(step_traces);
                if decided {
                    break 'walk;
                }
                if let (None, None) = rewrite {
                    continue;
                }
                current = Some(at.rewritten(rewrite.0.as_ref(), rewrite.1.as_deref()));
            }
        }
        let warnings = warnings_with(&snapshot.warnings, &warnings);
        if !stepped {
            // What the untouched walk's finish gives (a test in src/merge/mod.rs pins it).
            return Outcome { hooks: traces, ..Outcome::allowed(warnings) };
        }
        walk.finish().into_outcome(traces, warnings)
    }

    /// Runs `jobs` in parallel, at most [`fanout::PER_FIRE`] of the fire at once (the calling
    /// thread is one of the runners), and returns what each did, in job order.
    fn run_together(
        &self,
        snapshot: &Snapshot,
        envelope: &Envelope,
        views: &Views,
        jobs: &[Pick],
        cancel: Option<&Cancel>,
        budget: &Budget,
    ) -> Vec<Ran> {
        let cx = self.context(snapshot, envelope, cancel);
        let specs = snapshot.config.hooks.of(envelope.event);
        let hooks = snapshot.config.dialects.of(envelope.event);
        let offset = specs.len();
        let contexts: Vec<Option<DialectContext>> =
            views.iter().map(|v| v.as_deref().map(|view| DialectContext { base: &cx, view })).collect();
        // A dialect hook that did not run: `why`, traced like one that did.
        let unrun = |i: usize, why: &str, late: bool| Ran {
            answer: Answer { failure: Some(why.into()), ..Answer::default() },
            trace: Trace {
                index: offset + i,
                kind: hooks[i].type_name(),
                dialect: Some(hooks[i].dialect().name()),
                result: Verdict::None,
                timed_out: late.then_some(true),
                error: late.then(|| why.to_string()),
                ..Trace::default()
            },
            warning: None,
        };
        let run_in = |i: usize, dcx: &DialectContext| {
            let mut ran = dialect_run::run(&hooks[i], offset + i, dcx);
            if hooks[i].is_async {
                // Waited for only because of `waitNonBlocking`: an async hook decides
                // nothing; its context and message still count.
                ran.trace.result = Verdict::None;
                ran.answer = Answer {
                    context: ran.answer.context,
                    system_message: ran.answer.system_message,
                    ..Answer::default()
                };
            }
            ran
        };
        let run = |job: &Pick| match *job {
            Pick::Native(i) => hook::run(&specs[i], &cx),
            Pick::Dialect(i) => {
                let Some(Some(dcx)) = contexts.get(hooks[i].dialect) else { return unrun(i, INTERNAL, false) };
                run_in(i, dcx)
            }
        };
        let failed = |job: &Pick| match *job {
            Pick::Native(i) => not_run(&specs[i], INTERNAL),
            Pick::Dialect(i) => unrun(i, INTERNAL, false),
        };
        // Each hook's own timeout counts from here, its wait for a turn included.
        let start = Instant::now();
        let deadline = |job: &Pick| {
            let timeout = match *job {
                Pick::Native(i) => specs[i].timeout.unwrap_or(self.options.default_timeout),
                Pick::Dialect(i) => hooks[i].dialect().timeout(&hooks[i], envelope.event),
            };
            start.checked_add(timeout)
        };
        let late = |job: &Pick| match *job {
            Pick::Native(i) => {
                let mut ran = not_run(&specs[i], NO_TURN);
                ran.trace.timed_out = Some(true);
                ran
            }
            Pick::Dialect(i) => unrun(i, NO_TURN, true),
        };
        // A dialect that runs this step's hooks one after another (its `Dialect::sequential`):
        // each of its hooks sees the view the previous one's answer left, and its timeout counts
        // from its own start. The other jobs run in parallel first.
        let sequential: Vec<usize> = (0..REGISTRY.len())
            .filter(|d| {
                let mine: Vec<&Hook> = jobs
                    .iter()
                    .filter_map(|p| match *p {
                        Pick::Dialect(i) if hooks[i].dialect == *d => Some(&hooks[i]),
                        _ => None,
                    })
                    .collect();
                !mine.is_empty() && REGISTRY[*d].sequential(envelope.event, &mine)
            })
            .collect();
        let in_sequence = |p: &Pick| matches!(*p, Pick::Dialect(i) if sequential.contains(&hooks[i].dialect));
        if sequential.is_empty() {
            return fanout::run_all(
                budget,
                fanout::Jobs { jobs, deadline: &deadline, run: &run, late: &late, failed: &failed },
            );
        }
        let parallel: Vec<Pick> = jobs.iter().copied().filter(|p| !in_sequence(p)).collect();
        let mut parallel_done = fanout::run_all(
            budget,
            fanout::Jobs { jobs: &parallel, deadline: &deadline, run: &run, late: &late, failed: &failed },
        )
        .into_iter();
        let mut in_order: Vec<Option<Ran>> = jobs.iter().map(|_| None).collect();
        for &d in &sequential {
            let Some(Some(first)) = views.get(d) else { continue };
            let mut view: Arc<View> = first.clone();
            for (at, pick) in jobs.iter().enumerate() {
                let Pick::Dialect(i) = *pick else { continue };
                if hooks[i].dialect != d {
                    continue;
                }
                let dcx = DialectContext { base: &cx, view: &view };
                let begun = Instant::now();
                let one = |job: &Pick| match *job {
                    Pick::Dialect(i) => run_in(i, &dcx),
                    Pick::Native(_) => run(job),
                };
                let own_deadline = |job: &Pick| match *job {
                    Pick::Dialect(i) => begun.checked_add(hooks[i].dialect().timeout(&hooks[i], envelope.event)),
                    Pick::Native(_) => deadline(job),
                };
                let done = fanout::run_all(
                    budget,
                    fanout::Jobs {
                        jobs: std::slice::from_ref(pick),
                        deadline: &own_deadline,
                        run: &one,
                        late: &late,
                        failed: &failed,
                    },
                )
                .pop()
                .unwrap_or_else(|| unrun(i, INTERNAL, false));
                if let Some(next) = REGISTRY[d].next_view(envelope.event, &view, &done.answer) {
                    view = Arc::new(next);
                }
                in_order[at] = Some(done);
            }
        }
        jobs.iter()
            .zip(in_order)
            .map(|(p, done)| match done {
                Some(d) => d,
                None if in_sequence(p) => failed(p),
                None => parallel_done.next().unwrap_or_else(|| failed(p)),
            })
            .collect()
    }

    /// Hooks whose fire does not wait: each is a job of the engine's bounded pool, and takes a
    /// turn of its fire's budget before it runs. Returns how many were dropped because the
    /// pool's queue was full. With a record, each job adds its trace to it (a dropped or
    /// skipped one a trace saying so), and the last to finish delivers it.
    fn spawn_background(self: &Arc<Self>, bg: &Background, views: &Views, jobs: &[Pick]) -> usize {
        let (snapshot, envelope, record) = (bg.snapshot, bg.envelope, bg.record);
        let mut dropped = 0;
        for &pick in jobs {
            let view = match pick {
                Pick::Dialect(i) => {
                    views.get(snapshot.config.dialects.of(envelope.event)[i].dialect).cloned().flatten()
                }
                Pick::Native(_) => None,
            };
            let (inner, snap, env) = (self.clone(), snapshot.clone(), envelope.clone());
            let budget = bg.budget.clone();
            let slot = record.map(|r| (r.clone(), r.lock().unpoisoned().slot()));
            let kept = slot.clone();
            let queued = Instant::now();
            let job = Box::new(move || {
                let (index, kind) = background_label(&snap, env.event, pick);
                let timeout = match pick {
                    Pick::Dialect(i) => {
                        let hook = &snap.config.dialects.of(env.event)[i];
                        hook.dialect().timeout(hook, env.event)
                    }
                    Pick::Native(i) => {
                        snap.config.hooks.of(env.event)[i].timeout.unwrap_or(inner.options.default_timeout)
                    }
                };
                // Free's time is up: what has not started does not start.
                let stopped = || inner.stop.is_cancelled();
                let turn = if stopped() { None } else { budget.turn(queued.checked_add(timeout)) };
                let ran = match turn {
                    None => {
                        let why = if stopped() { NOT_STARTED_FREE } else { NO_TURN };
                        Ran {
                            answer: Answer::default(),
                            warning: None,
                            trace: Trace {
                                index,
                                kind,
                                result: Verdict::None,
                                error: Some(why.into()),
                                ..Trace::default()
                            },
                        }
                    }
                    // Cancelled when free's shutdownTimeoutMs is up.
                    Some(_turn) => inner.run_background(&snap, &env, view.as_deref(), pick),
                };
                if let Some((record, slot)) = slot {
                    inner.background_done(&record, slot, ran);
                }
            });
            if self.background.submit(job).is_err() {
                dropped += 1;
                if let Some((record, slot)) = kept {
                    let (index, kind) = background_label(snapshot, envelope.event, pick);
                    let trace = Trace {
                        index,
                        kind,
                        result: Verdict::None,
                        error: Some("not run: the background queue was full".to_string()),
                        ..Trace::default()
                    };
                    self.background_done(&record, slot, Ran { answer: Answer::default(), trace, warning: None });
                }
            }
        }
        dropped
    }

    /// One background hook, under the engine's stop token.
    fn run_background(&self, snap: &Snapshot, env: &Envelope, view: Option<&View>, pick: Pick) -> Ran {
        let cx = self.context(snap, env, Some(&self.stop));
        match pick {
            Pick::Dialect(i) => {
                let empty = View::default();
                let dcx = DialectContext { base: &cx, view: view.unwrap_or(&empty) };
                let offset = snap.config.hooks.of(env.event).len();
                let ran = dialect_run::run(&snap.config.dialects.of(env.event)[i], offset + i, &dcx);
                // A background hook decides nothing; the record gathers only openHarness
                // hooks' context and reason (as before the two shared one type).
                Ran { answer: Answer::default(), trace: ran.trace, warning: None }
            }
            Pick::Native(i) => hook::run(&snap.config.hooks.of(env.event)[i], &cx),
        }
    }

    /// Runs the new config's `configChange` hooks in the background. The file's entry may say
    /// what the envelope's `source` is (a dialect's ConfigChange matcher may test it).
    pub(super) fn config_changed(self: &Arc<Self>, file: &Path) {
        let snapshot = self.state.load_full();
        let specs = snapshot.config.hooks.of(Event::ConfigChange);
        let hooks = snapshot.config.dialects.of(Event::ConfigChange);
        let mut fields = Map::new();
        fields.insert("filePath".to_string(), Value::String(file.display().to_string()));
        let source = layers::entries(&self.options)
            .into_iter()
            .find(|e| e.origin == Origin::File(file.to_path_buf()))
            .and_then(|e| e.change_source);
        if let Some(source) = source {
            fields.insert("source".to_string(), Value::String(source.to_string()));
        }
        // The envelope has no toolName, so every configChange hook matches.
        let mut jobs: Vec<Pick> = (0..specs.len()).map(Pick::Native).collect();
        let envelope = Envelope::from_fields(Event::ConfigChange, &fields);
        let (views, selected) = if hooks.is_empty() { (Vec::new(), Vec::new()) } else { self.select(hooks, &envelope) };
        jobs.extend(selected.into_iter().map(Pick::Dialect));
        if !jobs.is_empty() {
            let bg = Background {
                snapshot: &snapshot,
                envelope: &Arc::new(envelope),
                budget: &Arc::new(Budget::default()),
                record: None,
            };
            self.spawn_background(&bg, &views, &jobs);
        }
    }
}

/// What `run_together` did, as the walk's start: the openHarness hooks' results gathered (rule
/// 4 of docs/config.md "Merging": these events cannot block) and their traces, and the dialect hooks'
/// picks and runs by dialect (registry position), in job order.
fn gather(done: Vec<Ran>, jobs: &[Pick], hooks: &[Hook]) -> (Walk, Vec<Trace>, Steps) {
    let mut walk = Walk::new();
    let mut traces = Vec::with_capacity(done.len());
    let mut steps: Steps = REGISTRY.iter().map(|_| Default::default()).collect();
    for (ran, pick) in done.into_iter().zip(jobs) {
        match *pick {
            Pick::Native(_) => {
                walk.gather(native_step(ran.answer));
                traces.push(ran.trace);
            }
            Pick::Dialect(i) => {
                steps[hooks[i].dialect].0.push(*pick);
                steps[hooks[i].dialect].1.push(ran);
            }
        }
    }
    (walk, traces, steps)
}

/// One step's answers and traces, its warnings added to `warnings`.
fn split(ran: Vec<Ran>, warnings: &mut Vec<String>) -> (Vec<Answer>, Vec<Trace>) {
    let mut answers = Vec::with_capacity(ran.len());
    let mut traces = Vec::with_capacity(ran.len());
    for r in ran {
        warnings.extend(r.warning);
        answers.push(r.answer);
        traces.push(r.trace);
    }
    (answers, traces)
}

/// One step's decision: the dialect's merge, its rewrite in the host's names.
fn decide(dialect: &dyn Dialect, at: &Envelope, tools: &HostTools, answers: &[Answer]) -> Decision {
    let mut decision = dialect.merge(at.event, answers);
    // The one place a rewrite goes back to the host's tool names (docs/envelope.md "Host tools").
    decision.updated_input = decision.updated_input.map(|input| dialect.to_host_input(at, tools, input));
    decision
}

/// The outcome's warnings: the snapshot's, and one per dialect hook that could not run for
/// want of a host callback (the harness skips such a hook; the host should hear of it).
fn warnings_with(warnings: &[String], more: &[String]) -> Vec<String> {
    let mut all = warnings.to_vec();
    for w in more {
        if !all.contains(w) {
            all.push(w.clone());
        }
    }
    all
}

/// A background hook's trace `index` and `type`.
fn background_label(snap: &Snapshot, event: Event, pick: Pick) -> (usize, &'static str) {
    match pick {
        Pick::Dialect(i) => (snap.config.hooks.of(event).len() + i, snap.config.dialects.of(event)[i].type_name()),
        Pick::Native(i) => {
            let spec = &snap.config.hooks.of(event)[i];
            (spec.index, spec.type_name())
        }
    }
}

/// Names an openHarness hook in the reason of a deny that gave none (docs/config.md "Merging").
fn native_denier(spec: &HookSpec, trace: &Trace) -> String {
    let (kind, what) = match &spec.handler {
        config::Handler::Command(c) if spec.persistent.is_some() => ("persistent hook", c.as_str()),
        config::Handler::Command(c) => ("command hook", c.as_str()),
        config::Handler::Http(url) => ("http hook", url.as_str()),
        config::Handler::Prompt(question) => ("prompt hook", question.as_str()),
        config::Handler::Callback(name) => ("callback", name.as_str()),
    };
    denied_by(kind, what, trace)
}

/// Names the dialect hook that blocked or stopped a fire, for a reason when none was given.
/// `step`, `answers` and `traces` are parallel (the hooks that ran, in list order).
fn denier(dialect: &dyn Dialect, hooks: &[Hook], step: &[Pick], answers: &[Answer], traces: &[Trace]) -> String {
    let at = answers.iter().position(|a| a.block || a.stop.is_some()).unwrap_or(0);
    let (Some(Pick::Dialect(i)), Some(trace)) = (step.get(at), traces.get(at)) else {
        return format!("denied by a {} hook", dialect.title());
    };
    denied_by(&format!("{} hook", dialect.title()), hooks[*i].what(), trace)
}

/// The part of an openHarness hook that did not run (or failed inside the engine): `why`.
fn not_run(spec: &HookSpec, why: &str) -> Ran {
    Ran {
        answer: Answer::default(),
        warning: None,
        trace: Trace {
            index: spec.index,
            kind: spec.type_name(),
            result: Verdict::None,
            error: Some(why.to_string()),
            ..Trace::default()
        },
    }
}
