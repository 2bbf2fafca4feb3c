//! The engine: options, the current config, firing events, reloading, background hooks.
//!
//! The current config lives in an `ArcSwap`: a fire takes a snapshot with one atomic load and
//! keeps it for the whole fire, so a reload on another thread never changes a fire midway.
//!
//! The host side (README "Host callbacks") meets the engine here: registrations live in [`Host`], each fire
//! hands its record to the observer once all its hooks are done, and asynchronous fires run on a
//! bounded [`ThreadPool`] with a [`Cancel`] token each.

use crate::config::claude::ClaudeHook;
use crate::config::layers::{self, Failure};
use crate::config::trust::{self, Trust};
use crate::config::watch::{Check, State, Watch};
use crate::config::{self, Config};
use crate::envelope::claude::ClaudeInput;
use crate::envelope::{self, Envelope};
use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::fanout::{self, Budget};
use crate::host::{self, Host, HostFunction, Observer};
use crate::matcher::claude::{matcher_field, takes_if, RuleDirs};
use crate::merge::claude::merge as claude_merge;
use crate::merge::Walk;
use crate::options::Options;
use crate::os::cancel::Cancel;
use crate::os::spawn::EnvTemplate;
use crate::outcome::{Outcome, Trace};
use crate::quick;
use crate::response::claude::ClaudeAnswer;
use crate::run::claude::{self as claude_run, ClaudeContext};
use crate::run::http::HttpClient;
use crate::run::persistent::{self, Launch, ProcessPoolTable, WorkerSupervisor};
use crate::run::{self as hook, Context, Ran};
use crate::thread_pool::{ThreadPool, BACKGROUND_QUEUE, BACKGROUND_THREADS};
use arc_swap::ArcSwap;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

pub struct Engine {
    inner: Arc<Inner>,
}

struct Inner {
    options: Options,
    env: EnvTemplate,
    http: HttpClient,
    state: ArcSwap<Snapshot>,
    watch: Watch,
    /// Background hooks of non-blocking events and configChange: bounded (README "Reliability").
    background: ThreadPool,
    /// The persistent hooks' workers: one pool per hook, kept across reloads that leave the
    /// hook as it was (same event, command and `workers`).
    workers: Mutex<HashMap<PoolKey, Arc<persistent::ProcessPool>>>,
    supervisor: Arc<WorkerSupervisor>,
    host: Host,
    /// Names this engine's pending host calls ([`host::forget_engine`]).
    id: u64,
    /// Asynchronous fires: their own bounded pool, so background hooks cannot starve them.
    pool: ThreadPool,
    /// The cancel tokens of asynchronous fires not yet completed, by fire id.
    fires: Mutex<HashMap<u64, Arc<Cancel>>>,
    next_fire: AtomicU64,
    /// Set when free begins: fires arriving from then on are refused.
    closing: AtomicBool,
    /// Background hooks' cancel token: cancelled when free's `shutdownTimeoutMs` is up; from
    /// then on background hooks not yet started are not started.
    stop: Cancel,
    /// [`Engine::inspect`]: eager workers are not started at load.
    inspect: bool,
}

/// The walk's steps (README "Reliability", own hooks first): one per dialect and layer kind,
/// every dialect's own-layer hooks before any project-layer hook, so a project hook's `allow`
/// never ends the walk before the user's own hooks have run. A later dialect slots in here.
const WALK: &[(layers::Dialect, layers::Kind)] = &[
    (layers::Dialect::OpenHarness, layers::Kind::Own),
    (layers::Dialect::Claude, layers::Kind::Own),
    (layers::Dialect::OpenHarness, layers::Kind::Project),
    (layers::Dialect::Claude, layers::Kind::Project),
];

/// Engine threads running asynchronous fires; beyond them fires queue.
pub const ASYNC_THREADS: usize = 8;
/// Asynchronous fires queued beyond the running ones; beyond this a fire completes at once
/// with an `internal` error.
pub const ASYNC_QUEUE: usize = 4096;

/// How long an async-fire thread that ran out of work looks for the next fire before sleeping
/// (README "Performance": a host awaiting each fire before the next saves a thread wake-up a
/// round trip; this much of one core is the cost after the last fire of a burst).
pub const ASYNC_SPIN: std::time::Duration = std::time::Duration::from_micros(50);

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
    pools: Arc<ProcessPoolTable>,
    /// Which events' fires [`quick`] may answer.
    quick: quick::Plan,
}

impl Snapshot {
    fn new(config: Arc<Config>, trust: Trust, extra: Option<String>, pools: Arc<ProcessPoolTable>) -> Snapshot {
        let mut warnings = config.warnings.clone();
        warnings.extend(extra);
        let quick = quick::Plan::new(&config, &warnings);
        Snapshot { config, trust, warnings, pools, quick }
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
        Engine::create(options_json, false)
    }

    /// An engine for looking at the config only (`oh-hooks check`): read and validated as by
    /// [`Engine::new`], but nothing is started — no `persistent: "eager"` worker, so inspecting
    /// a fresh clone never runs its code (README "Reliability").
    pub fn inspect(options_json: Option<&str>) -> Result<Engine> {
        Engine::create(options_json, true)
    }

    fn create(options_json: Option<&str>, inspect: bool) -> Result<Engine> {
        let options = Options::parse(options_json)?;
        let store = if options.trusted.is_none() { trust::store_path(options.home.as_deref()) } else { None };
        let watch = Watch::new(layers::files(&options), store);
        let (trust, unread) = evaluate_trust(&options);
        let config = layers::load(&options, &trust).map_err(Failure::into_error)?;
        watch.set_retry(&mut watch.lock(), unread.is_some());
        // Captured once: the fire path never reads `environ` (which a host's `setenv` on another
        // thread could be changing).
        let reserved: Vec<&str> = envelope::variable_names().chain(claude_run::VARIABLES.iter().copied()).collect();
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
            background: ThreadPool::new("oh-hooks-bg", BACKGROUND_THREADS, BACKGROUND_QUEUE),
            options,
            workers: Mutex::new(HashMap::new()),
            supervisor: Arc::new(WorkerSupervisor::new()),
            host: Host::default(),
            id: NEXT_ENGINE.fetch_add(1, Ordering::Relaxed),
            pool: ThreadPool::new("oh-hooks-async", ASYNC_THREADS, ASYNC_QUEUE).spinning(ASYNC_SPIN),
            fires: Mutex::new(HashMap::new()),
            next_fire: AtomicU64::new(1),
            closing: AtomicBool::new(false),
            stop: Cancel::default(),
            inspect,
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
        if self.inner.closing() {
            // Only a callback, observer or `done` of this engine can fire during its free.
            let outcome = Outcome::error(freeing_error());
            self.inner.observe_unrun(Some(envelope_json), &outcome);
            return outcome;
        }
        let (outcome, record) = self.inner.fire(envelope_json, None);
        if let Some(record) = record {
            self.inner.foreground_done(&record, &outcome);
        }
        outcome
    }

    /// The no-match shortcut ([`quick`]): the outcome text when this fire certainly runs nothing
    /// and the general path would answer exactly [`quick::ALLOWED`]; `None` means "call
    /// [`Engine::fire`]", which then decides as if this had not been asked.
    /// `envelope` need not be UTF-8 (the shortcut checks; text that is not is left to the caller).
    pub fn fire_quick(&self, envelope: &[u8]) -> Option<&'static std::ffi::CStr> {
        self.inner.fire_quick(envelope)
    }

    /// Fires one event on an engine thread and hands the outcome to `done` there, exactly once.
    /// Returns the fire's id for [`Engine::cancel`].
    /// `envelope_json` is an `Err` when the caller could not even read it (NULL, not UTF-8): the
    /// error still completes on an engine thread, like every other outcome.
    pub fn fire_async(&self, envelope_json: Result<String>, done: Box<dyn FnOnce(Outcome) + Send>) -> u64 {
        let id = self.inner.next_fire.fetch_add(1, Ordering::Relaxed);
        if self.inner.closing() {
            // Refused before free returns, on the calling thread (an engine thread that free
            // waits for): queued now, it would complete after free, on a thread that could
            // hold the engine's last reference and wait for itself.
            self.inner.refuse(envelope_json.as_deref().ok(), freeing_error(), done);
            return id;
        }
        let cancel = Arc::new(Cancel::default());
        self.inner.lock_fires().insert(id, cancel.clone());
        let inner = self.inner.clone();
        // The refusal below needs the envelope for the observer's record (only when observing).
        let refused_envelope = self.inner.host.observing().then(|| envelope_json.as_ref().ok().cloned()).flatten();
        // Shared with the refusal below, which needs `done` back.
        let done = Arc::new(Mutex::new(Some(done)));
        let done_job = done.clone();
        let job = Box::new(move || {
            let fired = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &envelope_json {
                // Nothing can run: the constant, as the general path would say (src/quick.rs).
                Ok(json) if inner.fire_quick(json.as_bytes()).is_some() => (Outcome::allowed(Vec::new()), None),
                Ok(json) => inner.fire(json, Some(&cancel)),
                Err(e) => (Outcome::error(e.clone()), None),
            }));
            // `done` runs whatever happened: a panic is an `internal` outcome.
            let (outcome, record) = fired.unwrap_or_else(|_| {
                (Outcome::error(Error::internal("internal error in oh-hooks while firing; please report it")), None)
            });
            // Every fire gets its record, also one that never reached the hooks.
            let record = record.or_else(|| inner.unrun_record(envelope_json.as_deref().ok()));
            // Decided under the lock `cancel` takes: a cancel that returned before this point
            // makes the outcome `cancelled`, one after it finds nothing to do.
            let cancelled = {
                let mut fires = inner.lock_fires();
                fires.remove(&id);
                cancel.is_cancelled()
            };
            // A cancelled fire keeps the traces of the hooks it started: those the cancel
            // stopped say `"cancelled"`, so an audit log can name them.
            let outcome =
                if cancelled { Outcome { hooks: outcome.hooks, ..Outcome::error(cancelled_error()) } } else { outcome };
            if let Some(record) = record {
                inner.foreground_done(&record, &outcome);
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
                let why = Error::internal(format!(
                    "{} asynchronous fires are already waiting for an engine thread; this one was not started (fire fewer at once, or use oh_hooks_fire)",
                    ASYNC_QUEUE
                ));
                self.inner.refuse(refused_envelope.as_deref(), why, done);
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

    /// The hooks configured per event, for `oh-hooks check`: the openHarness ones, then the
    /// Claude Code ones with their source files.
    pub fn describe(&self) -> Vec<(Event, Vec<String>)> {
        let snapshot = self.inner.state.load();
        let config = &snapshot.config;
        Event::ALL
            .iter()
            .filter(|e| !config.hooks.of(**e).is_empty() || !config.claude.of(**e).is_empty())
            .map(|e| {
                let oh = config.hooks.of(*e).iter().map(describe_hook);
                (*e, oh.chain(config.claude.of(*e).iter().map(ClaudeHook::describe)).collect())
            })
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

    /// Whether `file` is one of the project layers, which trust gates.
    pub fn is_project_file(&self, file: &std::path::Path) -> bool {
        layers::entries(&self.inner.options)
            .iter()
            .any(|e| e.kind == layers::Kind::Project && e.origin == layers::Origin::File(file.to_path_buf()))
    }

    /// Waits for the hooks running (or queued) in the background.
    pub fn drain(&self) {
        self.inner.background.drain();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.inner.shut_down();
        // Every use of the host's functions has ended: release them here, not on whichever
        // thread happens to drop the last reference.
        drop(self.inner.host.clear());
        host::forget_engine(self.inner.id);
        self.inner.close_workers();
        self.inner.supervisor.shutdown();
    }
}

/// The outcome of a fire that arrived while its engine was being freed.
fn freeing_error() -> Error {
    Error::new(ErrorCode::Cancelled, "the engine is being freed (oh_hooks_free): fires arriving now are not started")
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
    /// [`Engine::fire_quick`].
    fn fire_quick(self: &Arc<Self>, envelope: &[u8]) -> Option<&'static std::ffi::CStr> {
        // Each fire is a record for the observer: the general path builds it.
        if self.host.observing() {
            return None;
        }
        // The same change check as the general path, first; it is due at most once per
        // interval, so the general path, if asked next, does not repeat it.
        self.reload_if_due();
        let snapshot = self.state.load();
        snapshot.quick.runs_nothing(envelope, &snapshot.config).then_some(quick::ALLOWED)
    }

    /// A fire's look at the config files, at most once per check interval.
    fn reload_if_due(self: &Arc<Self>) {
        // `watch: false` pins the files, but a verdict never reached (a trust store that could
        // not be read) is still asked for again.
        if (self.options.watch || self.watch.retrying()) && !self.watch.is_empty() && self.watch.due() {
            let _ = self.reload(false);
        }
    }

    fn lock_fires(&self) -> MutexGuard<'_, HashMap<u64, Arc<Cancel>>> {
        self.fires.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    /// Free, up to releasing the host's registrations (README "Reliability"): from now on fires
    /// are refused; asynchronous fires and background hooks, queued or running, get
    /// `shutdownTimeoutMs` to finish (an audit hook fired just before free still runs); then
    /// the ones running are cancelled (process groups killed, `done` called with `cancelled`),
    /// which ends them within the kill grace, and the queued ones are not started. When
    /// this returns no engine thread runs anything of this engine, so no `done`, callback or
    /// observer call can come later, and the last reference to the engine is the caller's.
    fn shut_down(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let deadline = Instant::now().checked_add(self.options.shutdown_timeout);
        // Asynchronous fires first: they may still add background hooks (which are skipped).
        let on_time = self.pool.drain_until(deadline) && self.background.drain_until(deadline);
        if !on_time {
            self.stop.cancel();
            let fires: Vec<Arc<Cancel>> = self.lock_fires().values().cloned().collect();
            for cancel in fires {
                cancel.cancel();
            }
            // Idle persistent workers get their grace now, alongside the cancelled hooks'.
            self.close_workers();
        }
        self.pool.drain();
        self.background.drain();
    }

    /// Stops the persistent hooks' workers: each gets EOF on stdin and 500 ms to exit, then
    /// SIGKILL (busy ones once their request ends).
    fn close_workers(&self) {
        let pools: Vec<Arc<persistent::ProcessPool>> =
            self.workers.lock().unwrap_or_else(PoisonError::into_inner).drain().map(|(_, p)| p).collect();
        for pool in &pools {
            pool.close();
        }
    }

    /// Completes a fire that is not started (a full queue, or a free under way): `done` gets
    /// `why`, and the observer its record, since it sees every fire.
    fn refuse(&self, envelope_json: Option<&str>, why: Error, done: Box<dyn FnOnce(Outcome) + Send>) {
        let outcome = Outcome::error(why);
        self.observe_unrun(envelope_json, &outcome);
        done(outcome);
    }

    /// The observer's record of a fire that ran no hook.
    fn observe_unrun(&self, envelope_json: Option<&str>, outcome: &Outcome) {
        if let Some(record) = self.unrun_record(envelope_json) {
            self.foreground_done(&record, outcome);
        }
    }

    /// A record for a fire that never reached [`Inner::fire`]'s own (when observing): the
    /// envelope when the text is one, else `null`.
    fn unrun_record(&self, envelope_json: Option<&str>) -> Option<Arc<Mutex<Record>>> {
        let event = envelope_json.and_then(|j| envelope::parse_head_for(j, &|_| false).ok()).map(|h| h.event);
        self.record(envelope_json.unwrap_or(""), event)
    }

    /// A fire's observer record, when an observer is set: `envelope` is the compact envelope, or
    /// `null` when the input was not an envelope at all.
    fn record(&self, json: &str, event: Option<Event>) -> Option<Arc<Mutex<Record>>> {
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
    fn foreground_done(&self, record: &Mutex<Record>, outcome: &Outcome) {
        let done = {
            let mut r = record.lock().unwrap_or_else(PoisonError::into_inner);
            r.outcome = Some(outcome.clone());
            r.left -= 1;
            (r.left == 0).then(|| r.take())
        };
        if let Some((envelope, outcome)) = done {
            self.observe(&envelope, &outcome);
        }
    }

    /// One background hook of a recorded fire finished (`ran`: its trace and result).
    fn background_done(&self, record: &Mutex<Record>, slot: usize, ran: Ran) {
        let done = {
            let mut r = record.lock().unwrap_or_else(PoisonError::into_inner);
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

    /// Fires one event. Returns the outcome and, when an observer is set, the fire's record,
    /// which the caller completes with the final outcome ([`Inner::foreground_done`]).
    fn fire(self: &Arc<Self>, json: &str, cancel: Option<&Arc<Cancel>>) -> (Outcome, Option<Arc<Mutex<Record>>>) {
        self.reload_if_due();
        // A guard, not an Arc clone: no shared reference count to bounce between threads.
        let snapshot = self.state.load();
        let config = &snapshot.config;
        // The head gathers the fields for the envelope when a hook of the event is sure to run
        // (one without `match`, or a Claude Code hook): a second parse is saved there, and
        // nothing is spent on events whose hooks all filter by tool and usually do not match.
        let sure = |e: Event| {
            !config.disable_all_hooks
                && (config.hooks.of(e).iter().any(|h| matches!(h.matcher, crate::matcher::Matcher::Any))
                    || !config.claude.of(e).is_empty())
        };
        let head = match envelope::parse_head_for(json, &sure) {
            Ok(h) => h,
            Err(e) => return (Outcome::error(e), self.record(json, None)),
        };
        let event = head.event;
        if snapshot.config.disable_all_hooks {
            return (Outcome::allowed(snapshot.warnings.clone()), self.record(json, Some(event)));
        }
        let tool = head.tool.as_deref();
        let specs = snapshot.config.hooks.of(event);
        let claude_hooks = snapshot.config.claude.of(event);
        // The common case on every tool call: nothing matches (and an empty Vec allocates nothing).
        let matching: Vec<usize> = (0..specs.len()).filter(|i| specs[*i].matcher.matches(tool)).collect();
        if matching.is_empty() && claude_hooks.is_empty() {
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
        let (input, claude) = if claude_hooks.is_empty() {
            (None, Vec::new())
        } else {
            let input = ClaudeInput::build(&envelope, &self.options.cwd);
            let claude = self.claude_matching(claude_hooks, &input, event);
            (Some(input), claude)
        };
        if matching.is_empty() && claude.is_empty() {
            return (Outcome::allowed(snapshot.warnings.clone()), record);
        }
        // `async` Claude Code hooks decide nothing: they run like background hooks.
        let (claude_async, claude): (Vec<usize>, Vec<usize>) =
            claude.into_iter().partition(|i| claude_hooks[*i].is_async && !self.options.wait_non_blocking);
        let snapshot = arc_swap::Guard::into_inner(snapshot);
        let envelope = Arc::new(envelope);
        let input = input.map(Arc::new);
        // The fire's turns, shared by everything it runs in parallel, here and in the background.
        let budget = Arc::new(Budget::default());
        let bg = Background { snapshot: &snapshot, envelope: &envelope, budget: &budget, record: record.as_ref() };
        let mut dropped = 0;
        if let (Some(input), false) = (&input, claude_async.is_empty()) {
            dropped += self.spawn_background(&bg, Some(input), &[], &claude_async);
        }
        let mut outcome = if event.is_blocking() {
            self.run_blocking(&snapshot, &envelope, &matching, input.as_deref(), &claude, cancel, &budget)
        } else if event.claude_can_block() && !claude.is_empty() {
            // Claude Code hooks may block this event: fire waits for them; openHarness hooks
            // stay non-blocking (in the background unless `waitNonBlocking`).
            let oh: &[usize] = if self.options.wait_non_blocking { &matching } else { &[] };
            if !self.options.wait_non_blocking {
                dropped += self.spawn_background(&bg, None, &matching, &[]);
            }
            let (ran, answers) =
                self.run_together(&snapshot, &envelope, input.as_deref(), oh, &claude, cancel, &budget);
            let mut walk = Walk::new();
            let mut traces = Vec::new();
            for Ran { result, trace } in ran {
                walk.gather(result.unwrap_or_default());
                traces.push(trace);
            }
            let (answers, claude_traces): (Vec<_>, Vec<_>) = answers.into_iter().unzip();
            let who = || claude_denier(snapshot.config.claude.of(event), &claude, &answers, &claude_traces);
            let _ = walk.claude_step(event, claude_merge(event, &answers), who);
            traces.extend(claude_traces);
            Outcome::merged(walk.finish(), traces, warnings_with(&snapshot.warnings, &answers))
        } else if self.options.wait_non_blocking {
            let (ran, answers) =
                self.run_together(&snapshot, &envelope, input.as_deref(), &matching, &claude, cancel, &budget);
            let mut walk = Walk::new();
            let mut traces = Vec::with_capacity(ran.len() + answers.len());
            for Ran { result, trace } in ran {
                walk.gather(result.unwrap_or_default());
                traces.push(trace);
            }
            let (answers, claude_traces): (Vec<_>, Vec<_>) = answers.into_iter().unzip();
            traces.extend(claude_traces);
            let (stop, system_message) = walk.claude_gather(claude_merge(event, &answers));
            let mut merged = walk.finish();
            merged.permission = None;
            merged.updated_input = None;
            merged.updated_prompt = None;
            merged.stop = stop;
            merged.system_message = system_message;
            Outcome::merged(merged, traces, warnings_with(&snapshot.warnings, &answers))
        } else {
            dropped += self.spawn_background(&bg, input.as_ref(), &matching, &claude);
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

    /// The Claude Code hooks of `event` that run for this input: matcher against the event's
    /// own field, the `if` rule against the tool call, identical handlers once.
    fn claude_matching(&self, hooks: &[ClaudeHook], input: &ClaudeInput, event: Event) -> Vec<usize> {
        let value = matcher_field(event).and_then(|f| input.matcher_value(f));
        let project = self.project_dir();
        let dirs = RuleDirs {
            cwd: input.get_str("cwd").map(std::path::Path::new).unwrap_or(&self.options.cwd),
            project: std::path::Path::new(&project),
            home: self.options.home.as_deref(),
            lines: Default::default(),
        };
        let tool = input.get_str("tool_name").unwrap_or("");
        let mut seen: Vec<&str> = Vec::new();
        let mut matching = Vec::new();
        for (i, hook) in hooks.iter().enumerate() {
            // Claude Code ignores the matcher of an event that has no matcher field.
            if matcher_field(event).is_some() && !hook.matcher.matches(value.as_deref()) {
                continue;
            }
            if let Some(rule) = &hook.if_rule {
                if !takes_if(event) || !rule.matches(tool, input.tool_input(), &dirs) {
                    continue;
                }
            }
            if seen.contains(&hook.identity.as_str()) {
                continue;
            }
            seen.push(&hook.identity);
            matching.push(i);
        }
        matching
    }

    fn project_dir(&self) -> String {
        self.options.claude_project_dir.as_ref().unwrap_or(&self.options.cwd).display().to_string()
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
            pools: &snapshot.pools,
            host: &self.host,
            engine_id: self.id,
            cancel,
        }
    }

    /// The pools of `config`'s persistent hooks: the registry's pool for a hook that was
    /// already there, a new one otherwise (started now when eager). Pools of hooks no longer in
    /// the config are stopped. (Trust decides which layers are in `config` at all.)
    fn pools_for(&self, config: &Config) -> Arc<ProcessPoolTable> {
        let mut table = ProcessPoolTable::default();
        let mut registry = self.workers.lock().unwrap_or_else(PoisonError::into_inner);
        let mut old = std::mem::take(&mut *registry);
        let mut eager = Vec::new();
        for event in Event::ALL {
            for spec in config.hooks.of(*event) {
                let (Some(p), config::Handler::Command(command)) = (spec.persistent, &spec.handler) else { continue };
                let key: PoolKey = (event.index(), command.clone(), p.workers);
                let pool = match registry.get(&key).or_else(|| old.get(&key)) {
                    Some(pool) => pool.clone(),
                    None => {
                        persistent::ProcessPool::new(command, spec.argv.as_deref(), p.workers, self.supervisor.clone())
                    }
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
        if self.inspect {
            return Arc::new(table);
        }
        let launch = Launch { cwd: &self.options.cwd, env: &self.env };
        for pool in eager {
            pool.start_eagerly(&launch);
        }
        Arc::new(table)
    }

    /// Blocking events: the walk's steps in [`WALK`] order, every dialect's own-layer hooks
    /// before any project-layer hook, stopping where the merge is decided. openHarness hooks run
    /// one after another; a dialect's hooks of one layer kind run together as one step. A
    /// rewrite (`updatedInput`, `updatedPrompt`) reaches the hooks after it.
    #[allow(clippy::too_many_arguments)]
    fn run_blocking(
        &self,
        snapshot: &Snapshot,
        envelope: &Envelope,
        matching: &[usize],
        input: Option<&ClaudeInput>,
        claude: &[usize],
        cancel: Option<&Cancel>,
        budget: &Budget,
    ) -> Outcome {
        let specs = snapshot.config.hooks.of(envelope.event);
        let claude_hooks = snapshot.config.claude.of(envelope.event);
        let mut current: Option<Envelope> = None;
        let mut walk = Walk::new();
        let mut traces = Vec::with_capacity(matching.len() + claude.len());
        let mut answers = Vec::new();
        'walk: for &(dialect, kind) in WALK {
            let project = kind == layers::Kind::Project;
            match dialect {
                layers::Dialect::OpenHarness => {
                    for &i in matching.iter().filter(|i| specs[**i].from_project == project) {
                        if cancel.is_some_and(Cancel::is_cancelled) {
                            break 'walk;
                        }
                        let cx = self.context(snapshot, current.as_ref().unwrap_or(envelope), cancel);
                        let Ran { result, trace } = hook::run(&specs[i], &cx);
                        traces.push(trace);
                        if let Some(result) = result {
                            if result.updated_input.is_some() || result.updated_prompt.is_some() {
                                let base = current.as_ref().unwrap_or(envelope);
                                current = Some(
                                    base.rewritten(result.updated_input.as_ref(), result.updated_prompt.as_deref()),
                                );
                            }
                            let who = || traces.last().map(|t| oh_denier(&specs[i], t)).unwrap_or_default();
                            if walk.step(result, who).is_break() {
                                break 'walk;
                            }
                        }
                    }
                }
                layers::Dialect::Claude => {
                    let step: Vec<usize> =
                        claude.iter().copied().filter(|i| claude_hooks[*i].from_project == project).collect();
                    if step.is_empty() {
                        continue;
                    }
                    if cancel.is_some_and(Cancel::is_cancelled) {
                        break 'walk;
                    }
                    let rebuilt;
                    let (at, input) = match (&current, input) {
                        (Some(rewritten), Some(_)) => {
                            rebuilt = ClaudeInput::build(rewritten, &self.options.cwd);
                            (rewritten, Some(&rebuilt))
                        }
                        (_, input) => (current.as_ref().unwrap_or(envelope), input),
                    };
                    let (_, ran) = self.run_together(snapshot, at, input, &[], &step, cancel, budget);
                    let (a, claude_traces): (Vec<_>, Vec<_>) = ran.into_iter().unzip();
                    let merged = claude_merge(at.event, &a);
                    let rewrite = (merged.updated_input.clone(), merged.updated_prompt.clone());
                    let who = || claude_denier(claude_hooks, &step, &a, &claude_traces);
                    let decided = walk.claude_step(at.event, merged, who).is_break();
                    traces.extend(claude_traces);
                    answers.extend(a);
                    if decided {
                        break 'walk;
                    }
                    if let (None, None) = rewrite {
                        continue;
                    }
                    current = Some(at.rewritten(rewrite.0.as_ref(), rewrite.1.as_deref()));
                }
            }
        }
        Outcome::merged(walk.finish(), traces, warnings_with(&snapshot.warnings, &answers))
    }

    /// Runs openHarness hooks `oh` and Claude Code hooks `claude` in parallel, at most
    /// [`fanout::PER_FIRE`] of the fire at once (the calling thread is one of the runners), and
    /// returns them in list order.
    #[allow(clippy::too_many_arguments)]
    fn run_together(
        &self,
        snapshot: &Snapshot,
        envelope: &Envelope,
        input: Option<&ClaudeInput>,
        oh: &[usize],
        claude: &[usize],
        cancel: Option<&Cancel>,
        budget: &Budget,
    ) -> (Vec<Ran>, Vec<(ClaudeAnswer, Trace)>) {
        let cx = self.context(snapshot, envelope, cancel);
        let specs = snapshot.config.hooks.of(envelope.event);
        let claude_hooks = snapshot.config.claude.of(envelope.event);
        let project_dir = self.project_dir();
        let empty = ClaudeInput { json: String::new(), fields: Map::new() };
        let ccx = ClaudeContext { base: &cx, input: input.unwrap_or(&empty), project_dir: &project_dir };
        let offset = specs.len();
        enum Job {
            Oh(usize),
            Claude(usize),
        }
        enum Done {
            Oh(Ran),
            Claude(ClaudeAnswer, Trace),
        }
        let jobs: Vec<Job> = oh.iter().map(|i| Job::Oh(*i)).chain(claude.iter().map(|i| Job::Claude(*i))).collect();
        let run = |job: &Job| match job {
            Job::Oh(i) => Done::Oh(hook::run(&specs[*i], &cx)),
            Job::Claude(i) => {
                let (a, mut t) = claude_run::run(&claude_hooks[*i], offset + i, &ccx);
                if claude_hooks[*i].is_async {
                    // Waited for only because of `waitNonBlocking`: an async hook decides
                    // nothing; its context and message still count.
                    t.result = "none";
                    Done::Claude(
                        ClaudeAnswer {
                            context: a.context,
                            system_message: a.system_message,
                            ..ClaudeAnswer::default()
                        },
                        t,
                    )
                } else {
                    Done::Claude(a, t)
                }
            }
        };
        let failed = |job: &Job| match job {
            Job::Oh(i) => Done::Oh(internal_failure(&specs[*i])),
            Job::Claude(i) => Done::Claude(
                ClaudeAnswer {
                    failure: Some("internal error while running the hook".into()),
                    ..ClaudeAnswer::default()
                },
                Trace {
                    index: offset + i,
                    kind: claude_hooks[*i].type_name(),
                    dialect: Some("claude"),
                    result: "none",
                    ..Trace::default()
                },
            ),
        };
        // Each hook's own timeout counts from here, its wait for a turn included.
        let start = Instant::now();
        let deadline = |job: &Job| {
            let timeout = match job {
                Job::Oh(i) => specs[*i].timeout.unwrap_or(self.options.default_timeout),
                Job::Claude(i) => claude_hooks[*i].timeout_for(envelope.event),
            };
            start.checked_add(timeout)
        };
        let late = |job: &Job| match job {
            Job::Oh(i) => {
                let mut ran = not_run(&specs[*i], NO_TURN);
                ran.trace.timed_out = Some(true);
                Done::Oh(ran)
            }
            Job::Claude(i) => Done::Claude(
                ClaudeAnswer { failure: Some(NO_TURN.into()), ..ClaudeAnswer::default() },
                Trace {
                    index: offset + i,
                    kind: claude_hooks[*i].type_name(),
                    dialect: Some("claude"),
                    result: "none",
                    timed_out: Some(true),
                    error: Some(NO_TURN.into()),
                    ..Trace::default()
                },
            ),
        };
        let done: Vec<Done> = fanout::run_all(
            budget,
            fanout::Jobs { jobs: &jobs, deadline: &deadline, run: &run, late: &late, failed: &failed },
        );
        let mut ran = Vec::new();
        let mut answers = Vec::new();
        for d in done {
            match d {
                Done::Oh(r) => ran.push(r),
                Done::Claude(a, t) => answers.push((a, t)),
            }
        }
        (ran, answers)
    }

    /// Hooks whose fire does not wait: each is a job of the engine's bounded pool, and takes a
    /// turn of its fire's budget before it runs. Returns how many were dropped because the
    /// pool's queue was full. With a record, each job adds its trace to it (a dropped or
    /// skipped one a trace saying so), and the last to finish delivers it.
    fn spawn_background(
        self: &Arc<Self>,
        bg: &Background,
        input: Option<&Arc<ClaudeInput>>,
        oh: &[usize],
        claude: &[usize],
    ) -> usize {
        let (snapshot, envelope, record) = (bg.snapshot, bg.envelope, bg.record);
        let mut dropped = 0;
        let jobs = oh.iter().map(|i| (false, *i)).chain(claude.iter().map(|i| (true, *i)));
        for (is_claude, i) in jobs {
            let (inner, snap, env, input) = (self.clone(), snapshot.clone(), envelope.clone(), input.cloned());
            let budget = bg.budget.clone();
            let slot = record.map(|r| (r.clone(), r.lock().unwrap_or_else(PoisonError::into_inner).slot()));
            let kept = slot.clone();
            let queued = Instant::now();
            let job = Box::new(move || {
                let (index, kind) = background_label(&snap, env.event, is_claude, i);
                let timeout = if is_claude {
                    snap.config.claude.of(env.event)[i].timeout_for(env.event)
                } else {
                    snap.config.hooks.of(env.event)[i].timeout.unwrap_or(inner.options.default_timeout)
                };
                // Free's time is up: what has not started does not start.
                let stopped = || inner.stop.is_cancelled();
                let turn = if stopped() { None } else { budget.turn(queued.checked_add(timeout)) };
                let ran = match turn {
                    None => {
                        let why = if stopped() { NOT_STARTED_FREE } else { NO_TURN };
                        Ran {
                            result: None,
                            trace: Trace { index, kind, result: "none", error: Some(why.into()), ..Trace::default() },
                        }
                    }
                    // Cancelled when free's shutdownTimeoutMs is up.
                    Some(_turn) => inner.run_background(&snap, &env, input.as_deref(), is_claude, i),
                };
                if let Some((record, slot)) = slot {
                    inner.background_done(&record, slot, ran);
                }
            });
            if self.background.submit(job).is_err() {
                dropped += 1;
                if let Some((record, slot)) = kept {
                    let (index, kind) = background_label(snapshot, envelope.event, is_claude, i);
                    let trace = Trace {
                        index,
                        kind,
                        result: "none",
                        error: Some("not run: the background queue was full".to_string()),
                        ..Trace::default()
                    };
                    self.background_done(&record, slot, Ran { result: None, trace });
                }
            }
        }
        dropped
    }

    /// One background hook, under the engine's stop token.
    fn run_background(
        &self,
        snap: &Snapshot,
        env: &Envelope,
        input: Option<&ClaudeInput>,
        is_claude: bool,
        i: usize,
    ) -> Ran {
        let cx = self.context(snap, env, Some(&self.stop));
        if is_claude {
            let project_dir = self.project_dir();
            let empty = ClaudeInput { json: String::new(), fields: Map::new() };
            let ccx = ClaudeContext { base: &cx, input: input.unwrap_or(&empty), project_dir: &project_dir };
            let offset = snap.config.hooks.of(env.event).len();
            let (_, trace) = claude_run::run(&snap.config.claude.of(env.event)[i], offset + i, &ccx);
            Ran { result: None, trace }
        } else {
            hook::run(&snap.config.hooks.of(env.event)[i], &cx)
        }
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
        let now = if force || (!self.options.watch && state.retry) {
            self.watch.fingerprints()
        } else if !self.options.watch {
            return Ok(());
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
                self.watch.set_retry(&mut state, false);
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
                // Trust withdrawn in the same change: the project's hooks go even so.
                let old = if matches!(trust, Trust::Untrusted(_)) && old.trust == Trust::Trusted {
                    let config = Arc::new(old.config.without_project());
                    let pools = self.pools_for(&config);
                    Arc::new(Snapshot::new(config, trust, None, pools))
                } else {
                    old
                };
                Err(self.keep(&mut state, &old, e, false))
            }
        }
    }

    /// Keeps the old config and verdict after a failed reload, with a warning; `retry`: the
    /// failure was a read error, so the files are read again at the next check.
    fn keep(&self, state: &mut MutexGuard<State>, old: &Snapshot, e: Error, retry: bool) -> Error {
        self.watch.set_retry(state, retry);
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
        let claude_hooks = snapshot.config.claude.of(Event::ConfigChange);
        let mut fields = Map::new();
        fields.insert("filePath".to_string(), Value::String(file.display().to_string()));
        // Claude Code's ConfigChange matcher tests which settings file changed.
        let source = if self.options.home.as_ref().is_some_and(|h| file == h.join(".claude/settings.json")) {
            Some("user_settings")
        } else if file == self.options.cwd.join(".claude/settings.json") {
            Some("project_settings")
        } else if file == self.options.cwd.join(".claude/settings.local.json") {
            Some("local_settings")
        } else {
            None
        };
        if let Some(source) = source {
            fields.insert("source".to_string(), Value::String(source.to_string()));
        }
        // The envelope has no toolName, so every configChange hook matches.
        let matching: Vec<usize> = (0..specs.len()).collect();
        let envelope = Envelope::from_fields(Event::ConfigChange, &fields);
        let input = (!claude_hooks.is_empty()).then(|| ClaudeInput::build(&envelope, &self.options.cwd));
        let claude =
            input.as_ref().map_or_else(Vec::new, |i| self.claude_matching(claude_hooks, i, Event::ConfigChange));
        if !matching.is_empty() || !claude.is_empty() {
            let input = input.map(Arc::new);
            let bg = Background {
                snapshot: &snapshot,
                envelope: &Arc::new(envelope),
                budget: &Arc::new(Budget::default()),
                record: None,
            };
            self.spawn_background(&bg, input.as_ref(), &matching, &claude);
        }
    }
}

/// The outcome's warnings: the snapshot's, and one per Claude Code hook that could not run for
/// want of a host callback (Claude Code skips such a hook; the harness should hear of it).
fn warnings_with(warnings: &[String], answers: &[ClaudeAnswer]) -> Vec<String> {
    let mut all = warnings.to_vec();
    for a in answers {
        if let Some(f) = a.failure.as_ref().filter(|f| f.starts_with("no host callback")) {
            if !all.contains(f) {
                all.push(f.clone());
            }
        }
    }
    all
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
    fn new(envelope: String) -> Arc<Mutex<Record>> {
        Arc::new(Mutex::new(Record { envelope, outcome: None, background: Vec::new(), left: 1 }))
    }

    /// A place for one more background hook.
    fn slot(&mut self) -> usize {
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
                walk.gather(r.result.clone().unwrap_or_default());
            }
            let merged = walk.finish();
            outcome.additional_context = merged.context;
            outcome.reason = merged.reason;
        }
        outcome.hooks.extend(ran.into_iter().map(|r| r.trace));
        (std::mem::take(&mut self.envelope), outcome)
    }
}

/// What a fire hands its background hooks.
struct Background<'a> {
    snapshot: &'a Arc<Snapshot>,
    envelope: &'a Arc<Envelope>,
    budget: &'a Arc<Budget>,
    record: Option<&'a Arc<Mutex<Record>>>,
}

/// A background hook's trace `index` and `type`.
fn background_label(snap: &Snapshot, event: Event, is_claude: bool, i: usize) -> (usize, &'static str) {
    if is_claude {
        (snap.config.hooks.of(event).len() + i, snap.config.claude.of(event)[i].type_name())
    } else {
        let spec = &snap.config.hooks.of(event)[i];
        (spec.index, spec.type_name())
    }
}

/// Names an openHarness hook in the reason of a deny that gave none (README "Merging").
fn oh_denier(spec: &config::HookSpec, trace: &Trace) -> String {
    let (kind, what) = match &spec.handler {
        config::Handler::Command(c) if spec.persistent.is_some() => ("persistent hook", c.as_str()),
        config::Handler::Command(c) => ("command hook", c.as_str()),
        config::Handler::Http(url) => ("http hook", url.as_str()),
        config::Handler::Prompt(question) => ("prompt hook", question.as_str()),
        config::Handler::Callback(name) => ("callback", name.as_str()),
    };
    crate::merge::denied_by(kind, what, trace)
}

/// Names the Claude Code hook that blocked or stopped a fire, for a reason when none was given.
/// `claude`, `answers` and `traces` are parallel (the hooks that ran, in list order).
fn claude_denier(hooks: &[ClaudeHook], claude: &[usize], answers: &[ClaudeAnswer], traces: &[Trace]) -> String {
    let at = answers.iter().position(|a| a.block || a.stop.is_some()).unwrap_or(0);
    let (Some(&i), Some(trace)) = (claude.get(at), traces.get(at)) else {
        return "denied by a Claude Code hook".to_string();
    };
    let what = match &hooks[i].handler {
        config::claude::ClaudeHandler::Command { command, .. } => command.as_str(),
        config::claude::ClaudeHandler::Http { url, .. } => url.as_str(),
        config::claude::ClaudeHandler::Callback { kind, .. } => kind,
    };
    crate::merge::denied_by("Claude Code hook", what, trace)
}

fn internal_failure(spec: &config::HookSpec) -> Ran {
    not_run(spec, "internal error while running the hook")
}

/// A hook of a fire with more than [`fanout::PER_FIRE`] to run whose timeout passed before its turn.
const NO_TURN: &str = "not run: its timeout passed while it waited for a turn (at most 16 hooks of a fire run at once)";
/// A background hook still queued when free began.
const NOT_STARTED_FREE: &str = "not run: the engine was freed (oh_hooks_free) before the hook started";

/// The part of an openHarness hook that did not run (or failed inside the engine): `why`.
fn not_run(spec: &config::HookSpec, why: &str) -> Ran {
    Ran {
        result: None,
        trace: Trace {
            index: spec.index,
            kind: spec.type_name(),
            result: "none",
            error: Some(why.to_string()),
            ..Trace::default()
        },
    }
}

impl Error {
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Internal, message)
    }
}
