//! The engine: options, the current config, firing events, reloading, background hooks.
//!
//! The current config lives in an `ArcSwap`: a fire takes a snapshot with one atomic load and
//! keeps it for the whole fire, so a reload on another thread never changes a fire midway.
//!
//! The host side (CONTRACT §1.1) meets the engine here: registrations live in [`Host`], each fire
//! hands its record to the observer once all its hooks are done, and asynchronous fires run on a
//! bounded [`Pool`] with a [`Cancel`] token each.

use crate::config::layers::{self, Failure};
use crate::config::trust::{self, Trust};
use crate::config::watch::{Check, State, Watch};
use crate::config::{self, Config};
use crate::envelope::{self, Envelope};
use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::host::{self, Host, HostFunction, Observer};
use crate::merge::Walk;
use crate::options::Options;
use crate::outcome::{Outcome, Trace};
use crate::pool::{Pool, BACKGROUND_QUEUE, BACKGROUND_THREADS};
use crate::run::cancel::Cancel;
use crate::run::http::HttpClient;
use crate::run::persistent::{self, Launch, PoolTable, Supervisor};
use crate::run::spawn::EnvTemplate;
use crate::run::{self as hook, Context, Ran};
use arc_swap::ArcSwap;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

pub struct Engine {
    inner: Arc<Inner>,
}

struct Inner {
    options: Options,
    env: EnvTemplate,
    http: HttpClient,
    state: ArcSwap<Snapshot>,
    watch: Watch,
    /// Background hooks of non-blocking events and configChange: bounded (§3.11).
    background: Pool,
    host: Host,
    /// Names this engine's pending host calls ([`host::forget_engine`]).
    id: u64,
    /// Asynchronous fires: their own bounded pool, so background hooks cannot starve them.
    pool: Pool,
    /// The cancel tokens of asynchronous fires not yet completed, by fire id.
    fires: Mutex<HashMap<u64, Arc<Cancel>>>,
    next_fire: AtomicU64,
    /// The persistent hooks' workers: one pool per hook, kept across reloads that leave the
    /// hook as it was (same event, command and `workers`).
    workers: Mutex<HashMap<PoolKey, Arc<persistent::Pool>>>,
    supervisor: Arc<Supervisor>,
}

/// Engine threads running asynchronous fires; beyond them fires queue.
pub const ASYNC_THREADS: usize = 8;
/// Asynchronous fires queued beyond the running ones; beyond this a fire completes at once
/// with an `internal` error.
pub const ASYNC_QUEUE: usize = 4096;

static NEXT_ENGINE: AtomicU64 = AtomicU64::new(1);

/// What identifies a persistent hook's processes across reloads: the event's index, the
/// command, `workers`.
type PoolKey = (usize, String, usize);

/// What a fire works from.
struct Snapshot {
    /// Shared with the snapshot that replaces this one when a broken edit only adds a warning.
    config: Arc<Config>,
    trust: Trust,
    /// The config's own warnings, then a failed reload's, reported in every outcome.
    warnings: Vec<String>,
    /// The workers of `config`'s persistent hooks.
    pools: Arc<PoolTable>,
}

impl Snapshot {
    fn new(config: Arc<Config>, trust: Trust, extra: Option<String>, pools: Arc<PoolTable>) -> Snapshot {
        let mut warnings = config.warnings.clone();
        warnings.extend(extra);
        Snapshot { config, trust, warnings, pools }
    }
}

/// The trust verdict, or "untrusted for now" when the store cannot be read right now (then the
/// second value is the warning, and the caller must ask again at the next check).
fn evaluate_trust(options: &Options) -> (Trust, Option<String>) {
    match trust::evaluate(options.trusted, options.home.as_deref(), &options.cwd) {
        Ok(t) => (t, None),
        Err(why) => (
            Trust::Untrusted(format!("untrusted for now: {why}")),
            Some(format!("the trust store could not be read ({why}); project layers are not loaded until it can be")),
        ),
    }
}

impl Engine {
    /// Parses the options, reads and validates the config. `options_json` `None`: defaults.
    pub fn new(options_json: Option<&str>) -> Result<Engine> {
        let options = Options::parse(options_json)?;
        let store = if options.trusted.is_none() { trust::store_path(options.home.as_deref()) } else { None };
        let watch = Watch::new(layers::files(&options), store);
        let (trust, unread) = evaluate_trust(&options);
        let config = layers::load(&options, &trust).map_err(Failure::into_error)?;
        watch.lock().retry = unread.is_some();
        // Captured once: the fire path never reads `environ` (which a host's `setenv` on another
        // thread could be changing).
        let reserved: Vec<&str> = envelope::variable_names().collect();
        let env = EnvTemplate::new(std::env::vars_os(), &options.env, &reserved, &options.cwd);
        let inner = Arc::new(Inner {
            env,
            http: HttpClient::new(options.http_proxy.clone()),
            state: ArcSwap::from_pointee(Snapshot::new(
                Arc::new(Config::default()),
                trust.clone(),
                None,
                Arc::default(),
            )),
            watch,
            background: Pool::new("oh-hooks-bg", BACKGROUND_THREADS, BACKGROUND_QUEUE),
            host: Host::default(),
            id: NEXT_ENGINE.fetch_add(1, Ordering::Relaxed),
            pool: Pool::new("oh-hooks-async", ASYNC_THREADS, ASYNC_QUEUE),
            fires: Mutex::new(HashMap::new()),
            next_fire: AtomicU64::new(1),
            options,
            workers: Mutex::new(HashMap::new()),
            supervisor: Arc::new(Supervisor::new()),
        });
        let pools = inner.pools_for(&config);
        inner.state.store(Arc::new(Snapshot::new(Arc::new(config), trust, unread, pools)));
        Ok(Engine { inner })
    }

    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// Fires one event. Bad input is an outcome with `error`, never a panic or an `Err`.
    pub fn fire(&self, envelope_json: &str) -> Outcome {
        let (outcome, record) = self.inner.fire(envelope_json, None);
        if let Some(envelope) = record {
            self.inner.observe(&envelope, &outcome);
        }
        outcome
    }

    /// Fires one event on an engine thread and hands the outcome to `done` there, exactly once.
    /// Returns the fire's id for [`Engine::cancel`].
    /// `envelope_json` is an `Err` when the caller could not even read it (NULL, not UTF-8): the
    /// error still completes on an engine thread, like every other outcome.
    pub fn fire_async(&self, envelope_json: Result<String>, done: Box<dyn FnOnce(Outcome) + Send>) -> u64 {
        let id = self.inner.next_fire.fetch_add(1, Ordering::Relaxed);
        let cancel = Arc::new(Cancel::default());
        self.inner.lock_fires().insert(id, cancel.clone());
        let inner = self.inner.clone();
        // Shared with the refusal below, which needs `done` back.
        let done = Arc::new(Mutex::new(Some(done)));
        let done_job = done.clone();
        let job = Box::new(move || {
            let fired = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &envelope_json {
                Ok(json) => inner.fire(json, Some(&cancel)),
                Err(e) => (Outcome::error(e.clone()), None),
            }));
            // `done` runs whatever happened: a panic is an `internal` outcome.
            let (outcome, record) = fired.unwrap_or_else(|_| {
                (Outcome::error(Error::internal("internal error in oh-hooks while firing; please report it")), None)
            });
            // Decided under the lock `cancel` takes: a cancel that returned before this point
            // makes the outcome `cancelled`, one after it finds nothing to do.
            let cancelled = {
                let mut fires = inner.lock_fires();
                fires.remove(&id);
                cancel.is_cancelled()
            };
            let outcome = if cancelled { Outcome::error(cancelled_error()) } else { outcome };
            if let Some(envelope) = record {
                inner.observe(&envelope, &outcome);
            }
            let done = done_job.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(done) = done {
                done(outcome);
            }
        });
        if let Err(job) = self.inner.pool.submit(job) {
            // Refused: complete it here, on the calling thread, rather than queue without bound.
            drop(job);
            self.inner.lock_fires().remove(&id);
            let done = done.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(done) = done {
                done(Outcome::error(Error::internal(format!(
                    "{} asynchronous fires are already waiting for an engine thread; this one was not started (fire fewer at once, or use oh_hooks_fire)",
                    ASYNC_QUEUE
                ))));
            }
        }
        id
    }

    /// Cancels an asynchronous fire that has not completed: its running hooks are stopped and it
    /// completes with `cancelled`. Returns whether there was such a fire.
    pub fn cancel(&self, fire_id: u64) -> bool {
        let fires = self.inner.lock_fires();
        match fires.get(&fire_id) {
            Some(c) => {
                c.cancel();
                true
            }
            None => false,
        }
    }

    /// Registers (`Some`), replaces or removes (`None`) a host function. The replaced one is
    /// dropped when no call of it is still running.
    pub fn register(&self, name: &str, f: Option<Arc<dyn HostFunction>>) {
        drop(self.inner.host.register(name, f));
    }

    /// The names the host registered.
    pub fn registered(&self) -> Vec<String> {
        self.inner.host.names()
    }

    /// Sets (`Some`) or removes (`None`) the decision observer.
    pub fn observe(&self, o: Option<Arc<dyn Observer>>) {
        drop(self.inner.host.set_observer(o));
    }

    /// Re-reads the config now. On failure the old config stays and the error is returned (and
    /// reported in outcomes' `warnings` until fixed).
    pub fn reload(&self) -> Result<()> {
        self.inner.reload(true)
    }

    /// The hooks configured per event, for `oh-hooks check`.
    pub fn describe(&self) -> Vec<(Event, Vec<String>)> {
        let snapshot = self.inner.state.load();
        Event::ALL
            .iter()
            .filter(|e| !snapshot.config.hooks.of(**e).is_empty())
            .map(|e| (*e, snapshot.config.hooks.of(*e).iter().map(describe_hook).collect()))
            .collect()
    }

    /// The host functions the config names: every `callback:` hook's name, and `prompt` when a
    /// prompt hook needs the evaluator. Sorted, each once.
    pub fn callback_names(&self) -> Vec<String> {
        let snapshot = self.inner.state.load();
        let mut names: Vec<String> = Event::ALL
            .iter()
            .flat_map(|e| snapshot.config.hooks.of(*e))
            .filter_map(|spec| match &spec.handler {
                config::Handler::Callback(name) => Some(name.clone()),
                config::Handler::Prompt(_) => Some(crate::run::callback::EVALUATOR.to_string()),
                _ => None,
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }

    pub fn disable_all_hooks(&self) -> bool {
        self.inner.state.load().config.disable_all_hooks
    }

    pub fn trust(&self) -> Trust {
        self.inner.state.load().trust.clone()
    }

    /// What every outcome's `warnings` says right now.
    pub fn warnings(&self) -> Vec<String> {
        self.inner.state.load().warnings.clone()
    }

    pub fn config_files(&self) -> &[PathBuf] {
        &self.inner.watch.config_files
    }

    /// Waits for the hooks running (or queued) in the background.
    pub fn drain(&self) {
        self.inner.background.drain();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Asynchronous fires first: they may start background hooks.
        self.inner.pool.drain();
        // Background hooks next (a persistent audit hook fired just before free still runs).
        self.drain();
        // Every use of the host's functions has ended: release them here, not on whichever
        // thread happens to drop the last reference.
        drop(self.inner.host.clear());
        host::forget_engine(self.inner.id);
        // Every worker is now idle: it gets EOF on stdin and 500 ms to exit, then SIGKILL.
        let pools: Vec<Arc<persistent::Pool>> =
            self.inner.workers.lock().unwrap_or_else(PoisonError::into_inner).drain().map(|(_, p)| p).collect();
        for pool in &pools {
            pool.close();
        }
        self.inner.supervisor.shutdown();
    }
}

fn cancelled_error() -> Error {
    Error::new(ErrorCode::Cancelled, "the fire was cancelled (oh_hooks_cancel) before it completed")
}

fn describe_hook(spec: &config::HookSpec) -> String {
    let mut s = match &spec.handler {
        config::Handler::Command(c) => format!("command: {c}"),
        config::Handler::Http(u) => format!("http: {u}"),
        config::Handler::Prompt(p) => format!("prompt: {p}"),
        config::Handler::Callback(n) => format!("callback: {n}"),
    };
    if let Some(m) = &spec.match_text {
        s.push_str(&format!("  [match {m}]"));
    }
    if let Some(p) = spec.persistent {
        let workers = if p.workers == 1 { "1 worker".to_string() } else { format!("{} workers", p.workers) };
        s.push_str(&format!("  [persistent{}, {workers}]", if p.eager { " eager" } else { "" }));
    } else if spec.json_io && matches!(spec.handler, config::Handler::Command(_)) {
        s.push_str("  [jsonIO]");
    }
    if let Some(t) = spec.timeout {
        s.push_str(&format!("  [timeout {} ms]", t.as_millis()));
    }
    s
}

impl Inner {
    fn lock_fires(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Cancel>>> {
        self.fires.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands one fire's record to the observer, if there is one.
    fn observe(&self, envelope: &str, outcome: &Outcome) {
        if let Some(o) = self.host.observer() {
            o.observe(&format!(r#"{{"envelope":{envelope},"outcome":{}}}"#, outcome.to_json()));
        }
    }

    /// The envelope as the observer's record shows it: compact JSON, or `null` when the input
    /// was not an envelope at all.
    fn record_envelope(&self, json: &str, event: Option<Event>) -> Option<String> {
        if !self.host.observing() {
            return None;
        }
        Some(match event.map(|e| Envelope::parse(json, e)) {
            Some(Ok(e)) => e.json,
            _ => "null".to_string(),
        })
    }

    /// Fires one event. Returns the outcome and, when an observer is set and the record is the
    /// caller's to deliver, the envelope for it (background hooks deliver their own record).
    fn fire(self: &Arc<Self>, json: &str, cancel: Option<&Arc<Cancel>>) -> (Outcome, Option<String>) {
        if self.options.watch && !self.watch.is_empty() && self.watch.due() {
            let _ = self.reload(false);
        }
        // A guard, not an Arc clone: no shared reference count to bounce between threads.
        let snapshot = self.state.load();
        let config = &snapshot.config;
        // The head gathers the fields for the envelope when a hook of the event is sure to run
        // (one without `match`): a second parse is saved there, and nothing is spent on events
        // whose hooks all filter by tool and usually do not match.
        let sure = |e: Event| {
            !config.disable_all_hooks
                && config.hooks.of(e).iter().any(|h| matches!(h.matcher, crate::matcher::Matcher::Any))
        };
        let head = match envelope::parse_head_for(json, &sure) {
            Ok(h) => h,
            Err(e) => return (Outcome::error(e), self.record_envelope(json, None)),
        };
        let event = head.event;
        if snapshot.config.disable_all_hooks {
            return (Outcome::allowed(snapshot.warnings.clone()), self.record_envelope(json, Some(event)));
        }
        let tool = head.tool.as_deref();
        let specs = snapshot.config.hooks.of(event);
        // The common case on every tool call: nothing matches (and an empty Vec allocates nothing).
        let matching: Vec<usize> = (0..specs.len()).filter(|i| specs[*i].matcher.matches(tool)).collect();
        if matching.is_empty() {
            return (Outcome::allowed(snapshot.warnings.clone()), self.record_envelope(json, Some(event)));
        }
        let envelope = match Envelope::parse_with(json, event, head.fields) {
            Ok(e) => e,
            Err(e) => return (Outcome::error(e), self.record_envelope(json, None)),
        };
        let cancel = cancel.map(|c| &**c);
        let record = || self.host.observing().then(|| envelope.json.clone());
        if event.is_blocking() {
            let outcome = self.run_blocking(&snapshot, &envelope, &matching, cancel);
            (outcome, record())
        } else if self.options.wait_non_blocking {
            let outcome = self.run_concurrently(&snapshot, &envelope, &matching, cancel);
            (outcome, record())
        } else {
            let mut warnings = snapshot.warnings.clone();
            let dropped = self.spawn_background(arc_swap::Guard::into_inner(snapshot), Arc::new(envelope), matching);
            if dropped > 0 {
                warnings.push(format!(
                    "background queue full: {dropped} hook(s) of this fire dropped ({} since the engine started; at most {BACKGROUND_THREADS} run at once and {BACKGROUND_QUEUE} wait)",
                    self.background.dropped()
                ));
            }
            (Outcome::allowed(warnings), None)
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
            env: &self.env,
            default_timeout: self.options.default_timeout,
            max_output_bytes: self.options.max_output_bytes,
            strict: self.options.strict,
            http: &self.http,
            host: &self.host,
            engine_id: self.id,
            cancel,
            pools: &snapshot.pools,
        }
    }

    /// The pools of `config`'s persistent hooks: the registry's pool for a hook that was
    /// already there, a new one otherwise (started now when eager). Pools of hooks no longer in
    /// the config are stopped. (Trust decides which layers are in `config` at all.)
    fn pools_for(&self, config: &Config) -> Arc<PoolTable> {
        let mut table = PoolTable::default();
        let mut registry = self.workers.lock().unwrap_or_else(PoisonError::into_inner);
        let mut old = std::mem::take(&mut *registry);
        let mut eager = Vec::new();
        for event in Event::ALL {
            for spec in config.hooks.of(*event) {
                let (Some(p), config::Handler::Command(command)) = (spec.persistent, &spec.handler) else { continue };
                let key: PoolKey = (event.index(), command.clone(), p.workers);
                let pool = match registry.get(&key).or_else(|| old.get(&key)) {
                    Some(pool) => pool.clone(),
                    None => persistent::Pool::new(command, spec.argv.as_deref(), p.workers, self.supervisor.clone()),
                };
                if p.eager {
                    eager.push(pool.clone());
                }
                old.remove(&key);
                registry.insert(key, pool.clone());
                table.insert(*event, spec.index, pool);
            }
        }
        drop(registry);
        for removed in old.into_values() {
            removed.close();
        }
        let launch = Launch { cwd: &self.options.cwd, env: &self.env, cancel: None };
        for pool in eager {
            pool.start_eagerly(&launch);
        }
        Arc::new(table)
    }

    /// Blocking events: in list order, one after another, stopping where the merge is decided.
    fn run_blocking(
        &self,
        snapshot: &Snapshot,
        envelope: &Envelope,
        matching: &[usize],
        cancel: Option<&Cancel>,
    ) -> Outcome {
        let cx = self.context(snapshot, envelope, cancel);
        let specs = snapshot.config.hooks.of(envelope.event);
        let mut walk = Walk::new();
        let mut traces = Vec::with_capacity(matching.len());
        for &i in matching {
            if cancel.is_some_and(Cancel::is_cancelled) {
                break;
            }
            let Ran { result, trace } = hook::run(&specs[i], &cx);
            traces.push(trace);
            if let Some(result) = result {
                if walk.step(result).is_break() {
                    break;
                }
            }
        }
        Outcome::merged(walk.finish(), traces, snapshot.warnings.clone())
    }

    /// Non-blocking events with `waitNonBlocking`: all at once, reported in list order; their
    /// decisions are ignored, their context and first reason kept.
    fn run_concurrently(
        &self,
        snapshot: &Snapshot,
        envelope: &Envelope,
        matching: &[usize],
        cancel: Option<&Cancel>,
    ) -> Outcome {
        let cx = self.context(snapshot, envelope, cancel);
        let specs = snapshot.config.hooks.of(envelope.event);
        let ran: Vec<Ran> = std::thread::scope(|scope| {
            let handles: Vec<_> = matching[1..]
                .iter()
                .map(|&i| {
                    let (spec, cx) = (&specs[i], &cx);
                    std::thread::Builder::new()
                        .name("oh-hooks-hook".into())
                        .spawn_scoped(scope, move || hook::run(spec, cx))
                })
                .collect();
            // The first hook runs on the calling thread: one hook costs no thread at all.
            let mut ran = vec![hook::run(&specs[matching[0]], &cx)];
            for (handle, &i) in handles.into_iter().zip(&matching[1..]) {
                ran.push(match handle {
                    Ok(h) => h.join().unwrap_or_else(|_| internal_failure(&specs[i])),
                    Err(_) => hook::run(&specs[i], &cx),
                });
            }
            ran
        });
        gathered(ran, snapshot.warnings.clone())
    }

    /// Non-blocking events: each hook is a job of the engine's bounded pool; `fire` does not
    /// wait. Returns how many were dropped because the pool's queue was full. With an observer,
    /// the last hook to finish delivers the fire's record with every trace (a dropped hook's
    /// trace says so).
    fn spawn_background(
        self: &Arc<Self>,
        snapshot: Arc<Snapshot>,
        envelope: Arc<Envelope>,
        matching: Vec<usize>,
    ) -> usize {
        let record = self.host.observing().then(|| {
            Arc::new(Mutex::new(Record { ran: (0..matching.len()).map(|_| None).collect(), left: matching.len() }))
        });
        let mut dropped = 0;
        for (slot, i) in matching.into_iter().enumerate() {
            let (inner, snap, env, rec) = (self.clone(), snapshot.clone(), envelope.clone(), record.clone());
            let job = Box::new(move || {
                let cx = inner.context(&snap, &env, None);
                let ran = hook::run(&snap.config.hooks.of(env.event)[i], &cx);
                if let Some(rec) = rec {
                    inner.background_finished(&rec, slot, ran, &env, &snap);
                }
            });
            if self.background.submit(job).is_err() {
                dropped += 1;
                if let Some(rec) = &record {
                    let spec = &snapshot.config.hooks.of(envelope.event)[i];
                    let ran = Ran {
                        result: None,
                        trace: Trace {
                            index: spec.index,
                            kind: spec.type_name(),
                            result: "none",
                            error: Some("not run: the background queue was full".to_string()),
                            ..Trace::default()
                        },
                    };
                    self.background_finished(rec, slot, ran, &envelope, &snapshot);
                }
            }
        }
        dropped
    }

    fn background_finished(&self, record: &Mutex<Record>, slot: usize, ran: Ran, env: &Envelope, snap: &Snapshot) {
        let all = {
            let mut r = record.lock().unwrap_or_else(PoisonError::into_inner);
            r.ran[slot] = Some(ran);
            r.left -= 1;
            if r.left > 0 {
                return;
            }
            std::mem::take(&mut r.ran)
        };
        let ran = all.into_iter().flatten().collect();
        self.observe(&env.json, &gathered(ran, snap.warnings.clone()));
    }

    /// Looks at the files (`force`: reads them now, settled or not). A change is read once it
    /// has settled; a read that fails (other than "does not exist") changes nothing and is
    /// retried at the next check; a change that fails validation leaves the old config in force
    /// with a warning. Returns the load error.
    fn reload(self: &Arc<Self>, force: bool) -> Result<()> {
        let mut state = if force {
            self.watch.lock()
        } else {
            // Another thread is already reloading: this fire uses the current config.
            match self.watch.state.try_lock() {
                Ok(g) => g,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => return Ok(()),
            }
        };
        let now = if force {
            self.watch.fingerprints()
        } else {
            match self.watch.check(&mut state) {
                Check::Read(now) => now,
                Check::Unchanged | Check::Settling => return Ok(()),
            }
        };
        let old = self.state.load_full();
        let (trust, unread) = evaluate_trust(&self.options);
        if let Some(why) = unread {
            // No verdict: keep the old config and the old verdict, and ask again.
            return Err(self.keep(&mut state, &old, Error::new(ErrorCode::IoError, why), true));
        }
        let loaded = layers::load(&self.options, &trust);
        // A file that changed while it was read is not settled: read it again later.
        if !force && self.watch.fingerprints() != now {
            state.pending = None;
            return Ok(());
        }
        match loaded {
            Ok(config) => {
                let changed = self.watch.changed_file(&state.adopted, &now);
                state.adopted = now;
                state.pending = None;
                state.retry = false;
                let pools = self.pools_for(&config);
                self.state.store(Arc::new(Snapshot::new(Arc::new(config), trust, None, pools)));
                drop(state);
                if let Some(file) = changed {
                    self.config_changed(&file);
                }
                Ok(())
            }
            Err(Failure::Read(e)) => Err(self.keep(&mut state, &old, e, true)),
            Err(Failure::Invalid(e)) => {
                state.adopted = now;
                state.pending = None;
                Err(self.keep(&mut state, &old, e, false))
            }
        }
    }

    /// Keeps the old config and verdict after a failed reload, with a warning; `retry`: the
    /// failure was a read error, so the files are read again at the next check.
    fn keep(&self, state: &mut MutexGuard<State>, old: &Snapshot, e: Error, retry: bool) -> Error {
        state.retry = retry;
        let warning = if retry {
            format!(
                "config not reloaded, the previous one stays in force (read again at the next check): {}",
                e.message
            )
        } else {
            format!("config not reloaded, the previous one stays in force: {}", e.message)
        };
        self.state.store(Arc::new(Snapshot::new(
            old.config.clone(),
            old.trust.clone(),
            Some(warning),
            old.pools.clone(),
        )));
        e
    }

    /// Runs the new config's `configChange` hooks in the background.
    fn config_changed(self: &Arc<Self>, file: &std::path::Path) {
        let snapshot = self.state.load_full();
        let specs = snapshot.config.hooks.of(Event::ConfigChange);
        let mut fields = Map::new();
        fields.insert("filePath".to_string(), Value::String(file.display().to_string()));
        // The envelope has no toolName, so every configChange hook matches.
        let matching: Vec<usize> = (0..specs.len()).collect();
        if !matching.is_empty() {
            let envelope = Envelope::from_fields(Event::ConfigChange, &fields);
            self.spawn_background(snapshot, Arc::new(envelope), matching);
        }
    }
}

/// The traces of one fire's background hooks, filled in as they finish.
struct Record {
    ran: Vec<Option<Ran>>,
    left: usize,
}

/// Non-blocking hooks' results together: context and the first reason kept, decisions ignored.
fn gathered(ran: Vec<Ran>, warnings: Vec<String>) -> Outcome {
    let mut walk = Walk::new();
    let mut traces = Vec::with_capacity(ran.len());
    for Ran { result, trace } in ran {
        walk.gather(result.unwrap_or_default());
        traces.push(trace);
    }
    let mut merged = walk.finish();
    merged.permission = None;
    Outcome::merged(merged, traces, warnings)
}

fn internal_failure(spec: &config::HookSpec) -> Ran {
    Ran {
        result: None,
        trace: Trace {
            index: spec.index,
            kind: spec.type_name(),
            result: "none",
            error: Some("internal error while running the hook".to_string()),
            ..Trace::default()
        },
    }
}

impl Error {
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Internal, message)
    }
}
