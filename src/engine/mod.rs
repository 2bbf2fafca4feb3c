//! The engine: options, the current config, firing events, reloading, background hooks.
//!
//! The current config lives in an `ArcSwap`: a fire takes a snapshot with one atomic load and
//! keeps it for the whole fire, so a reload on another thread never changes a fire midway.
//!
//! The host side (docs/abi.md "Host callbacks") meets the engine here: registrations live in [`Host`], each fire
//! hands its record to the observer once all its hooks are done, and asynchronous fires run on a
//! bounded [`ThreadPool`] with a [`Cancel`] token each.

mod fire;
mod record;
mod state;

use crate::config::layers::{self, LoadFailure};
use crate::config::trust::{self, Trust};
use crate::config::watch::Watch;
use crate::config::{self, Config};
use crate::dialect::registry::REGISTRY;
use crate::dialect::Hook;
use crate::envelope;
use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::host::{self, Host, HostFunction, Observer};
use crate::options::Options;
use crate::os::cancel::Cancel;
use crate::os::spawn::EnvTemplate;
use crate::outcome::Outcome;
use crate::quick::{self, Look};
use crate::run::http::HttpClient;
use crate::run::persistent::{self, WorkerSupervisor};
use crate::sync::Unpoison;
use crate::thread_pool::{Task, ThreadPool, BACKGROUND_QUEUE, BACKGROUND_THREADS};
use arc_swap::ArcSwap;
use state::{evaluate_trust, Snapshot};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

pub struct Engine {
    inner: Arc<Inner>,
}

struct Inner {
    options: Options,
    /// The environment hooks start from ([`Inner::env`]): taken at creation, or for
    /// [`Engine::new_late_env`] when the first hook starts.
    env: OnceLock<EnvTemplate>,
    http: HttpClient,
    state: ArcSwap<Snapshot>,
    watch: Watch,
    /// Background hooks of non-blocking events and configChange: bounded (docs/reliability.md "Reliability").
    background: ThreadPool,
    /// The persistent hooks' workers: one pool per hook, kept across reloads that leave the
    /// hook as it was (same event, command and `workers`).
    workers: Mutex<HashMap<PoolKey, Arc<persistent::ProcessPool>>>,
    supervisor: Arc<WorkerSupervisor>,
    host: Host,
    /// Names this engine's pending host calls ([`host::forget_engine`]).
    id: u64,
    /// Asynchronous fires: their own bounded pool, so background hooks cannot starve them.
    pool: ThreadPool<AsyncFire>,
    /// The cancel tokens of fires not yet completed (asynchronous ones, and reserved ids of
    /// [`Engine::reserve_fire`] whether fired yet or not), by fire id.
    fires: Mutex<HashMap<u64, Slot, FireIds>>,
    next_fire: AtomicU64,
    /// Set when free begins: fires arriving from then on are refused.
    closing: AtomicBool,
    /// Background hooks' cancel token: cancelled when free's `shutdownTimeoutMs` is up; from
    /// then on background hooks not yet started are not started.
    stop: Cancel,
    /// [`Engine::inspect`]: eager workers are not started at load.
    inspect: bool,
}

/// An asynchronous fire, queued for an engine thread or running on one. The pool keeps it as it
/// is (no allocation for the job) and gives it back whole when it refuses it.
struct AsyncFire {
    inner: Arc<Inner>,
    id: u64,
    envelope: Result<String>,
    cancel: Arc<Cancel>,
    done: Box<dyn FnOnce(u64, Outcome) + Send>,
}

impl Task for AsyncFire {
    fn run(self) {
        let outcome = self.inner.complete(self.id, self.envelope.as_deref().map_err(Clone::clone), &self.cancel);
        (self.done)(self.id, outcome);
    }
}

/// A fire id `oh_hooks_cancel` accepts: its cancel token, and whether the id is a reservation
/// no fire has used yet.
struct Slot {
    cancel: Arc<Cancel>,
    reserved: bool,
}

/// Fire ids are the engine's own counter (a host can only look one up), hashed as the host's
/// call numbers are ([`host::CallHasher`]: a multiply, not SipHash): an asynchronous fire inserts
/// and removes one.
type FireIds = BuildHasherDefault<host::CallHasher>;

/// Engine threads running asynchronous fires; beyond them fires queue.
pub const ASYNC_THREADS: usize = 8;
/// Asynchronous fires queued beyond the running ones; beyond this a fire completes at once
/// with an `internal` error.
pub const ASYNC_QUEUE: usize = 4096;

/// How long an async-fire thread that ran out of work looks for the next fire before sleeping
/// (docs/performance.md "Performance": a host awaiting each fire before the next saves a thread wake-up a
/// round trip; this much of one core is the cost after the last fire of a burst).
pub const ASYNC_SPIN: std::time::Duration = std::time::Duration::from_micros(50);

static NEXT_ENGINE: AtomicU64 = AtomicU64::new(1);

/// What identifies a persistent hook's processes across reloads: the event's index, the
/// command, `workers`.
type PoolKey = (usize, String, usize);

impl Engine {
    /// Parses the options, reads and validates the config. `options_json` `None`: defaults.
    pub fn new(options_json: Option<&str>) -> Result<Engine> {
        Engine::create(options_json, false, false)
    }

    /// [`Engine::new`] for a program that owns its process and never changes its environment
    /// (the CLI): the environment hooks start from is read when the first hook starts instead
    /// of here, so a fire that runs no hook never copies it (docs/performance.md, "Round 5").
    /// A host whose threads may call `setenv` uses [`Engine::new`], which takes it at once.
    pub fn new_late_env(options_json: Option<&str>) -> Result<Engine> {
        Engine::create(options_json, false, true)
    }

    /// An engine for looking at the config only (`oh-hooks check`): read and validated as by
    /// [`Engine::new`], but nothing is started — no `persistent: "eager"` worker, so inspecting
    /// a fresh clone never runs its code (docs/reliability.md "Reliability").
    pub fn inspect(options_json: Option<&str>) -> Result<Engine> {
        Engine::create(options_json, true, false)
    }

    fn create(options_json: Option<&str>, inspect: bool, late_env: bool) -> Result<Engine> {
        let options = Options::parse(options_json)?;
        let store = if options.trusted.is_none() { trust::store_path(options.home.as_deref()) } else { None };
        let watch = Watch::new(layers::files(&options), store);
        let (trust, unread) = evaluate_trust(&options);
        let config = layers::load(&options, &trust).map_err(LoadFailure::into_error)?;
        watch.set_retry(&mut watch.lock(), unread.is_some());
        let inner = Arc::new(Inner {
            env: OnceLock::new(),
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
            fires: Mutex::new(HashMap::default()),
            next_fire: AtomicU64::new(1),
            closing: AtomicBool::new(false),
            stop: Cancel::default(),
            inspect,
        });
        if !late_env {
            // Captured once: the fire path never reads `environ` (which a host's `setenv` on
            // another thread could be changing).
            inner.env();
        }
        let pools = inner.pools_for(&config);
        inner.state.store(Arc::new(Snapshot::new(Arc::new(config), trust, unread, pools)));
        Ok(Engine { inner })
    }

    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// Fires one event. Bad input is an outcome with `error`, never a panic or an `Err`.
    /// This is the general path alone: the envelope is read by its full parse (tests compare
    /// [`Engine::fire_bytes`] against it).
    pub fn fire(&self, envelope_json: &str) -> Outcome {
        self.fire_read(envelope_json, Look::Unread)
    }

    /// What `oh_hooks_fire` does: `None` when the fire certainly runs nothing and its outcome is
    /// [`quick::ALLOWED`] (the no-match shortcut); otherwise the outcome [`Engine::fire`] gives,
    /// the envelope read from the shortcut's scan when it accepted the text (src/quick.rs), so
    /// that a fire whose hooks run does not parse it a second time.
    /// `envelope` need not be UTF-8 (text that is not is an `invalid_utf8` outcome).
    #[inline]
    pub fn fire_bytes(&self, envelope: &[u8]) -> Option<Outcome> {
        let look = self.inner.look(envelope);
        if look == Look::Nothing {
            return None;
        }
        Some(self.fire_text(envelope, look))
    }

    /// Apart from [`Engine::fire_bytes`], whose no-match answer then costs no frame for an `Outcome`.
    #[inline(never)]
    fn fire_text(&self, envelope: &[u8], look: Look) -> Outcome {
        match std::str::from_utf8(envelope) {
            Ok(json) => self.fire_read(json, look),
            Err(e) => Outcome::error(Error::new(
                ErrorCode::InvalidUtf8,
                format!("the envelope is not valid UTF-8 ({e}); expected UTF-8 JSON text"),
            )),
        }
    }

    fn fire_read(&self, envelope_json: &str, look: Look) -> Outcome {
        if self.inner.closing() {
            // Only a callback, observer or `done` of this engine can fire during its free.
            let outcome = Outcome::error(freeing_error());
            self.inner.observe_unrun(Some(envelope_json), &outcome);
            return outcome;
        }
        let (outcome, record) = self.inner.fire(envelope_json, None, look == Look::Maybe);
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
        (self.inner.look(envelope) == Look::Nothing).then_some(quick::ALLOWED)
    }

    /// Fires one event on an engine thread and hands the fire's id and outcome to `done` there,
    /// exactly once. Returns the fire's id for [`Engine::cancel`].
    /// `envelope_json` is an `Err` when the caller could not even read it (NULL, not UTF-8): the
    /// error still completes on an engine thread, like every other outcome.
    pub fn fire_async(&self, envelope_json: Result<String>, done: Box<dyn FnOnce(u64, Outcome) + Send>) -> u64 {
        let id = self.inner.next_fire.fetch_add(1, Ordering::Relaxed);
        if self.inner.closing() {
            // Refused before free returns, on the calling thread (an engine thread that free
            // waits for): queued now, it would complete after free, on a thread that could
            // hold the engine's last reference and wait for itself.
            self.inner.refuse(envelope_json.as_deref().ok(), freeing_error(), |outcome| done(id, outcome));
            return id;
        }
        let cancel = Arc::new(Cancel::default());
        self.inner.lock_fires().insert(id, Slot { cancel: cancel.clone(), reserved: false });
        let fire = AsyncFire { inner: self.inner.clone(), id, envelope: envelope_json, cancel, done };
        if let Err(fire) = self.inner.pool.submit(fire) {
            // Refused: complete it here, on the calling thread, rather than queue without bound.
            self.inner.lock_fires().remove(&id);
            let why = Error::internal(format!(
                "{} asynchronous fires are already waiting for an engine thread; this one was not started (fire fewer at once, or use oh_hooks_fire)",
                ASYNC_QUEUE
            ));
            let AsyncFire { envelope, done, .. } = fire;
            self.inner.refuse(envelope.as_deref().ok(), why, |outcome| done(id, outcome));
        }
        id
    }

    /// Cancels an asynchronous fire that has not completed: its running hooks are stopped and it
    /// completes with `cancelled`. Returns whether there was such a fire.
    pub fn cancel(&self, fire_id: u64) -> bool {
        let fires = self.inner.lock_fires();
        match fires.get(&fire_id) {
            Some(slot) => {
                slot.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// A fire id for [`Engine::fire_reserved`], which [`Engine::cancel`] accepts from now on
    /// (a cancel before the fire starts makes that fire `cancelled` without running anything).
    /// The id is held until a fire uses it or the engine is dropped.
    pub fn reserve_fire(&self) -> u64 {
        let id = self.inner.next_fire.fetch_add(1, Ordering::Relaxed);
        self.inner.lock_fires().insert(id, Slot { cancel: Arc::new(Cancel::default()), reserved: true });
        id
    }

    /// [`Engine::fire`] on the calling thread under a reserved id, so that another thread can
    /// cancel it as it would an asynchronous fire: the same outcome, record and cancellation
    /// rules as [`Engine::fire_async`], without a thread hand-off. An id that is not an unused
    /// reservation of this engine runs nothing.
    pub fn fire_reserved(&self, envelope_json: Result<&str>, fire_id: u64) -> Outcome {
        let cancel = {
            let mut fires = self.inner.lock_fires();
            match fires.get_mut(&fire_id) {
                Some(slot) if slot.reserved => {
                    slot.reserved = false;
                    slot.cancel.clone()
                }
                _ => {
                    drop(fires);
                    // The closed list of error codes has no "invalid argument": a host passing an
                    // id it did not reserve (or one already used) is a bug in the host, named.
                    let outcome = Outcome::error(Error::internal(format!(
                        "fire id {fire_id} is not an unused reservation of this engine; reserve one with oh_hooks_reserve_fire for each oh_hooks_fire_reserved"
                    )));
                    self.inner.observe_unrun(envelope_json.as_ref().ok().copied(), &outcome);
                    return outcome;
                }
            }
        };
        if self.inner.closing() {
            self.inner.lock_fires().remove(&fire_id);
            let outcome = Outcome::error(freeing_error());
            self.inner.observe_unrun(envelope_json.as_ref().ok().copied(), &outcome);
            return outcome;
        }
        self.inner.complete(fire_id, envelope_json, &cancel)
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
    /// other dialects' with their source files.
    pub fn describe(&self) -> Vec<(Event, Vec<String>)> {
        let snapshot = self.inner.state.load();
        let config = &snapshot.config;
        Event::ALL
            .iter()
            .filter(|e| !config.hooks.of(**e).is_empty() || !config.dialects.of(**e).is_empty())
            .map(|e| {
                let oh = config.hooks.of(*e).iter().map(describe_hook);
                (*e, oh.chain(config.dialects.of(*e).iter().map(Hook::describe)).collect())
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
            .any(|e| e.kind == layers::LayerKind::Project && e.origin == layers::Origin::File(file.to_path_buf()))
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
    /// The environment every hook starts from: the host's, minus the names an envelope sets,
    /// plus the options' `env` ([`EnvTemplate`]); read from the process the first time.
    fn env(&self) -> &EnvTemplate {
        self.env.get_or_init(|| {
            let reserved: Vec<&str> =
                envelope::variable_names().chain(REGISTRY.iter().flat_map(|d| d.variables().iter().copied())).collect();
            EnvTemplate::new(std::env::vars_os(), &self.options.env, &reserved, &self.options.cwd)
        })
    }

    /// [`Engine::fire_quick`]'s scan: whether nothing runs, and whether a fire may read the
    /// envelope from the scan.
    fn look(self: &Arc<Self>, envelope: &[u8]) -> Look {
        // A fire during free is `cancelled`, which the general path answers.
        if self.closing() {
            return Look::Unread;
        }
        // The same change check as the general path, first; it is due at most once per
        // interval, so the general path, if asked next, does not repeat it.
        self.reload_if_due();
        let snapshot = self.state.load();
        match snapshot.quick.look(envelope, &snapshot.config) {
            // Each fire is a record for the observer: the general path builds it.
            Look::Nothing if self.host.observing() => Look::Maybe,
            look => look,
        }
    }

    /// The body of a cancellable fire (asynchronous or reserved): fires, releases `id` and
    /// decides under that lock whether it was cancelled, gives the observer its record, and
    /// returns the outcome `done` (or the caller) gets.
    fn complete(self: &Arc<Self>, id: u64, envelope_json: Result<&str>, cancel: &Arc<Cancel>) -> Outcome {
        let fired = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &envelope_json {
            // Nothing can run: the constant, as the general path would say (src/quick.rs).
            Ok(json) => match self.look(json.as_bytes()) {
                Look::Nothing => (Outcome::allowed(Vec::new()), None),
                look => self.fire(json, Some(cancel), look == Look::Maybe),
            },
            Err(e) => (Outcome::error(e.clone()), None),
        }));
        // The outcome comes whatever happened: a panic is an `internal` outcome.
        let (outcome, record) = fired.unwrap_or_else(|_| {
            (Outcome::error(Error::internal("internal error in oh-hooks while firing; please report it")), None)
        });
        // Every fire gets its record, also one that never reached the hooks.
        let record = record.or_else(|| self.unrun_record(envelope_json.as_deref().ok()));
        // Decided under the lock `cancel` takes: a cancel that returned before this point
        // makes the outcome `cancelled`, one after it finds nothing to do.
        let cancelled = {
            let mut fires = self.lock_fires();
            fires.remove(&id);
            cancel.is_cancelled()
        };
        // A cancelled fire keeps the traces of the hooks it started: those the cancel
        // stopped say `"cancelled"`, so an audit log can name them.
        let outcome =
            if cancelled { Outcome { hooks: outcome.hooks, ..Outcome::error(cancelled_error()) } } else { outcome };
        if let Some(record) = record {
            self.foreground_done(&record, &outcome);
        }
        outcome
    }

    fn lock_fires(&self) -> MutexGuard<'_, HashMap<u64, Slot, FireIds>> {
        self.fires.lock().unpoisoned()
    }

    fn closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }
}

impl Error {
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::Internal, message)
    }
}
