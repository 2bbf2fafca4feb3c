//! The operating system under the hooks, in one place: creating a hook's process, and the
//! run-time fallbacks for systems older than the calls it prefers; cancelling a fire's waits.
//! Nothing here knows what a hook, a config or a dialect is: `run/` and the engine use this
//! layer, never the other way round.
//!
//! - [`spawn`]: `posix_spawn` (or fork + exec) with an environment template built once.
//! - [`fallback`]: pidfd, eventfd and `addchdir_np` when available, their fallbacks otherwise.
//! - [`cancel`]: the token that stops an asynchronous fire's hooks.

pub mod cancel;
pub mod fallback;
pub mod spawn;
