//! The host side of the engine (docs/abi.md "Host callbacks"): functions the host registers by name (callback
//! hooks, the prompt evaluator), the calls waiting for their answers, and the decision observer.
//!
//! A pending call is named to the host by a number, not a pointer: the table below maps it to
//! the waiting fire. Answering removes the entry, so a second answer, an answer after the engine
//! is gone, or an answer with a number never handed out finds nothing and is ignored: none of
//! them can touch freed memory. A call the fire stopped waiting for (timeout, cancel) stays in
//! the table until it is answered or its engine is freed, so `call` stays valid until answered.

use crate::os::cancel::{Cancel, Wake};
use crate::sync::Unpoison;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

/// A function the host registered. `call` hands it the request and the number to answer with
/// ([`answer`]); it may answer before returning or later, from any thread.
pub trait HostFunction: Send + Sync {
    fn call(&self, request: &str, call: u64);
}

/// The host's decision observer: one record per fire.
pub trait Observer: Send + Sync {
    fn observe(&self, record: &str);
}

/// What came of asking the host.
#[derive(Debug, PartialEq)]
pub enum Asked {
    /// The answer; `None` is "no decision".
    Answered(Option<Vec<u8>>),
    TimedOut,
    Cancelled,
}

/// An engine's registrations and observer.
#[derive(Default)]
pub struct Host {
    /// Looked up by every callback hook's run. The names are the host's own (a config only
    /// names them), so no SipHash: FNV-1a over a name of a few bytes costs a tenth of it.
    functions: RwLock<HashMap<String, Arc<dyn HostFunction>, std::hash::BuildHasherDefault<CallHasher>>>,
    observer: RwLock<Option<Arc<dyn Observer>>>,
    observing: AtomicBool,
}

impl Host {
    /// Adds, replaces (`Some`) or removes (`None`) a registration. The replaced one is returned
    /// to the caller, who drops it outside the lock: its release may call back into the engine.
    pub fn register(&self, name: &str, f: Option<Arc<dyn HostFunction>>) -> Option<Arc<dyn HostFunction>> {
        let mut map = self.functions.write().unpoisoned();
        match f {
            Some(f) => map.insert(name.to_string(), f),
            None => map.remove(name),
        }
    }

    pub fn function(&self, name: &str) -> Option<Arc<dyn HostFunction>> {
        self.functions.read().unpoisoned().get(name).cloned()
    }

    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.functions.read().unpoisoned().keys().cloned().collect();
        names.sort();
        names
    }

    pub fn set_observer(&self, o: Option<Arc<dyn Observer>>) -> Option<Arc<dyn Observer>> {
        let mut slot = self.observer.write().unpoisoned();
        self.observing.store(o.is_some(), Ordering::Relaxed);
        std::mem::replace(&mut *slot, o)
    }

    /// Whether an observer is set: one relaxed load, for the fire path to skip building records.
    pub fn observing(&self) -> bool {
        self.observing.load(Ordering::Relaxed)
    }

    pub fn observer(&self) -> Option<Arc<dyn Observer>> {
        self.observer.read().unpoisoned().clone()
    }

    /// Takes every registration and the observer out, for the engine's release at free.
    pub fn clear(&self) -> Registrations {
        let functions = self.functions.write().unpoisoned().drain().map(|(_, f)| f).collect();
        (functions, self.set_observer(None))
    }
}

/// What [`Host::clear`] takes out: dropping it runs the host's releases.
pub type Registrations = (Vec<Arc<dyn HostFunction>>, Option<Arc<dyn Observer>>);

#[derive(Debug)]
enum State {
    Waiting,
    Answered(Option<Vec<u8>>),
    /// The fire stopped waiting; an answer is accepted and dropped.
    Abandoned,
}

struct Pending {
    engine: u64,
    state: Mutex<State>,
    /// The fire is asleep on `ready`: only then does an answer pay for a wake-up (a futex
    /// syscall, the larger part of an answer given at once).
    sleeping: AtomicBool,
    ready: Condvar,
}

impl Wake for Pending {
    fn wake(&self) {
        // Taking the lock orders this wake-up after the waiter's check of the flag.
        drop(self.state.lock().unpoisoned());
        self.ready.notify_all();
    }
}

const SHARDS: usize = 16;

/// Hashes a call number or a fire id (the engine's fires table), or a registration's name
/// (FNV-1a). The numbers are the engine's own (a counter), never the host's, and the names the
/// host's, so SipHash's defence against chosen keys buys nothing here and costs a tenth of a
/// callback hook's fire; a multiplication spreads consecutive numbers over the table.
#[derive(Clone, Copy)]
pub(crate) struct CallHasher(u64);

impl Default for CallHasher {
    fn default() -> CallHasher {
        CallHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for CallHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type Calls = HashMap<u64, Arc<Pending>, std::hash::BuildHasherDefault<CallHasher>>;

/// Pending calls by number, sharded so that threads answering at once rarely share a lock.
type Shard = Mutex<Option<Calls>>;
static CALLS: [Shard; SHARDS] = [const { Mutex::new(None) }; SHARDS];
/// Call numbers start high and odd so that they never look like a small integer or an aligned
/// pointer a confused host might pass instead.
static NEXT_CALL: AtomicU64 = AtomicU64::new(0x0c00_0001);

fn shard(id: u64) -> MutexGuard<'static, Option<Calls>> {
    CALLS[(id as usize >> 1) % SHARDS].lock().unpoisoned()
}

/// Asks `f` and waits for its answer, at most `timeout`, or until `cancel` fires.
pub fn ask(engine: u64, f: &dyn HostFunction, request: &str, timeout: Duration, cancel: Option<&Cancel>) -> Asked {
    let id = NEXT_CALL.fetch_add(2, Ordering::Relaxed);
    let pending = Arc::new(Pending {
        engine,
        state: Mutex::new(State::Waiting),
        sleeping: AtomicBool::new(false),
        ready: Condvar::new(),
    });
    shard(id).get_or_insert_with(Calls::default).insert(id, pending.clone());
    f.call(request, id);
    // Registered after the call: an answer given inside it needs no wake-up.
    let watch = cancel.and_then(|c| c.watch(pending.clone()).map(|key| (c, key)));
    // Taken only when the answer did not come during the call (the clock costs on the fast path).
    let mut deadline: Option<Option<Instant>> = None;
    let asked = {
        let mut state = pending.state.lock().unpoisoned();
        loop {
            if let State::Answered(_) = &*state {
                let State::Answered(a) = std::mem::replace(&mut *state, State::Abandoned) else { unreachable!() };
                break Asked::Answered(a);
            }
            if cancel.is_some_and(Cancel::is_cancelled) {
                *state = State::Abandoned;
                break Asked::Cancelled;
            }
            let now = Instant::now();
            let deadline = *deadline.get_or_insert_with(|| now.checked_add(timeout));
            let left = deadline.map_or(Duration::from_secs(86_400), |d| d.saturating_duration_since(now));
            if left.is_zero() {
                *state = State::Abandoned;
                break Asked::TimedOut;
            }
            // Set and cleared under the lock that `answer` takes before reading it.
            pending.sleeping.store(true, Ordering::Relaxed);
            state = pending.ready.wait_timeout(state, left).unpoisoned().0;
            pending.sleeping.store(false, Ordering::Relaxed);
        }
    };
    if let Some((c, key)) = watch {
        c.forget(key);
    }
    asked
}

/// The host answers call `id`. The first answer counts; any later one (or one for a number that
/// is not pending) is ignored. Returns whether this answer was the first.
pub fn answer(id: u64, response: Option<Vec<u8>>) -> bool {
    let Some(pending) = shard(id).as_mut().and_then(|m| m.remove(&id)) else {
        return false;
    };
    let mut state = pending.state.lock().unpoisoned();
    if let State::Waiting = *state {
        *state = State::Answered(response);
        let sleeping = pending.sleeping.load(Ordering::Relaxed);
        drop(state);
        if sleeping {
            pending.ready.notify_all();
        }
    }
    true
}

/// Forgets the calls of a freed engine that were never answered: their answers are then ignored.
pub fn forget_engine(engine: u64) {
    for s in &CALLS {
        if let Some(map) = s.lock().unpoisoned().as_mut() {
            map.retain(|_, p| p.engine != engine);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Now(&'static str);
    impl HostFunction for Now {
        fn call(&self, _: &str, call: u64) {
            assert!(answer(call, Some(self.0.as_bytes().to_vec())));
            assert!(!answer(call, Some(b"second".to_vec())), "a second answer is ignored");
        }
    }
    struct Later(Mutex<Vec<u64>>);
    impl HostFunction for Later {
        fn call(&self, _: &str, call: u64) {
            self.0.lock().unwrap().push(call);
        }
    }

    #[test]
    fn answers_now_later_never() {
        assert_eq!(ask(1, &Now("x"), "{}", Duration::from_secs(1), None), Asked::Answered(Some(b"x".to_vec())));
        let later = Arc::new(Later(Mutex::new(Vec::new())));
        let l2 = later.clone();
        let t = std::thread::spawn(move || {
            while l2.0.lock().unwrap().is_empty() {
                std::thread::yield_now();
            }
            answer(l2.0.lock().unwrap()[0], None)
        });
        assert_eq!(ask(1, &*later, "{}", Duration::from_secs(5), None), Asked::Answered(None));
        assert!(t.join().unwrap());
        let never = Later(Mutex::new(Vec::new()));
        assert_eq!(ask(2, &never, "{}", Duration::from_millis(20), None), Asked::TimedOut);
        let late = never.0.lock().unwrap()[0];
        assert!(answer(late, Some(b"late".to_vec())), "a late answer is accepted");
        assert!(!answer(late, None), "and only once");
        assert!(!answer(12345, None), "an unknown number is ignored");
    }

    #[test]
    fn cancel_wakes_the_wait_and_freeing_forgets() {
        let never = Arc::new(Later(Mutex::new(Vec::new())));
        let cancel = Arc::new(Cancel::default());
        let c2 = cancel.clone();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            c2.cancel();
        });
        assert_eq!(ask(3, &*never, "{}", Duration::from_secs(30), Some(&cancel)), Asked::Cancelled);
        t.join().unwrap();
        forget_engine(3);
        assert!(!answer(never.0.lock().unwrap()[0], None), "the freed engine's call is gone");
    }
}
