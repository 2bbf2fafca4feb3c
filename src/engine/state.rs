//! What a fire works from and how it changes: the config snapshot, the trust verdict, reloading
//! changed files, the persistent hooks' workers, and stopping everything at free.

use super::{Inner, PoolKey};
use crate::config::layers::{self, LoadFailure};
use crate::config::trust::{self, Trust};
use crate::config::watch::{Check, State};
use crate::config::{self, Config};
use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::options::Options;
use crate::os::cancel::Cancel;
use crate::quick;
use crate::run::persistent::{self, Launch, ProcessPoolTable};
use crate::sync::Unpoison;
use std::sync::atomic::Ordering;
use std::sync::{Arc, MutexGuard};
use std::time::Instant;

/// What a fire works from.
pub(super) struct Snapshot {
    /// Shared with the snapshot that replaces this one when a broken edit only adds a warning.
    pub(super) config: Arc<Config>,
    pub(super) trust: Trust,
    /// The config's own warnings, then a failed reload's, reported in every outcome.
    pub(super) warnings: Vec<String>,
    /// The workers of `config`'s persistent hooks.
    pub(super) pools: Arc<ProcessPoolTable>,
    /// Which events' fires [`quick`] may answer.
    pub(super) quick: quick::Plan,
}

impl Snapshot {
    pub(super) fn new(
        config: Arc<Config>,
        trust: Trust,
        extra: Option<String>,
        pools: Arc<ProcessPoolTable>,
    ) -> Snapshot {
        let mut warnings = config.warnings.clone();
        warnings.extend(extra);
        let quick = quick::Plan::new(&config, &warnings);
        Snapshot { config, trust, warnings, pools, quick }
    }
}

/// The trust verdict, or "untrusted for now" when the store cannot be read right now (then the
/// second value is the warning, and the caller must ask again at the next check).
pub(super) fn evaluate_trust(options: &Options) -> (Trust, Option<String>) {
    match trust::evaluate(options.trusted, options.home.as_deref(), &options.cwd) {
        Ok(t) => (t, None),
        Err(why) => (
            Trust::Untrusted(format!("untrusted for now: {why}")),
            Some(format!("the trust store could not be read ({why}); project layers are not loaded until it can be")),
        ),
    }
}

impl Inner {
    /// A fire's look at the config files, at most once per check interval.
    pub(super) fn reload_if_due(self: &Arc<Self>) {
        // `watch: false` pins the files, but a verdict never reached (a trust store that could
        // not be read) is still asked for again.
        if (self.options.watch || self.watch.retrying()) && !self.watch.is_empty() && self.watch.due() {
            let _ = self.reload(false);
        }
    }

    /// Free, up to releasing the host's registrations (docs/reliability.md "Reliability"): from now on fires
    /// are refused; asynchronous fires and background hooks, queued or running, get
    /// `shutdownTimeoutMs` to finish (an audit hook fired just before free still runs); then
    /// the ones running are cancelled (process groups killed, `done` called with `cancelled`),
    /// which ends them within the kill grace, and the queued ones are not started. When
    /// this returns no engine thread runs anything of this engine, so no `done`, callback or
    /// observer call can come later, and the last reference to the engine is the caller's.
    pub(super) fn shut_down(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let deadline = Instant::now().checked_add(self.options.shutdown_timeout);
        // Asynchronous fires first: they may still add background hooks (which are skipped).
        let on_time = self.pool.drain_until(deadline) && self.background.drain_until(deadline);
        if !on_time {
            self.stop.cancel();
            let fires: Vec<Arc<Cancel>> = self.lock_fires().values().map(|slot| slot.cancel.clone()).collect();
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
    pub(super) fn close_workers(&self) {
        let pools: Vec<Arc<persistent::ProcessPool>> =
            self.workers.lock().unpoisoned().drain().map(|(_, p)| p).collect();
        for pool in &pools {
            pool.close();
        }
    }

    /// The pools of `config`'s persistent hooks: the registry's pool for a hook that was
    /// already there, a new one otherwise (started now when eager). Pools of hooks no longer in
    /// the config are stopped. (Trust decides which layers are in `config` at all.)
    pub(super) fn pools_for(&self, config: &Config) -> Arc<ProcessPoolTable> {
        let mut table = ProcessPoolTable::default();
        let mut registry = self.workers.lock().unpoisoned();
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
        // Nothing to start: the environment is not needed (an engine that reads it late,
        // [`super::Engine::new_late_env`], then still has not read it).
        if self.inspect || eager.is_empty() {
            return Arc::new(table);
        }
        let launch = Launch { cwd: &self.options.cwd, env: self.env() };
        for pool in eager {
            pool.start_eagerly(&launch);
        }
        Arc::new(table)
    }

    /// Looks at the files (`force`: reads them now, settled or not). A change is read once it
    /// has settled; a read that fails (other than "does not exist") changes nothing and is
    /// retried at the next check; a change that fails validation leaves the old config in force
    /// with a warning. Returns the load error.
    pub(super) fn reload(self: &Arc<Self>, force: bool) -> Result<()> {
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
            Err(LoadFailure::Read(e)) => Err(self.keep(&mut state, &old, e, true)),
            Err(LoadFailure::Invalid(e)) => {
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
}
