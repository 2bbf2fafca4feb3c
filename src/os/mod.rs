//! The operating system under the hooks, in one place: creating a hook's process, waiting for
//! it, signalling its group, its pipes, the SIGPIPE guard, waking a `poll`, cancelling a fire's
//! waits, and the run-time fallbacks for systems older than the calls it prefers. Nothing here
//! knows what a hook, a config or a dialect is: `run/` and the engine use this layer, never the
//! other way round (no module here imports from outside `os`).
//!
//! - [`spawn`]: `posix_spawn` (or fork + exec) with an environment template built once.
//! - [`child`]: exit status, reaping, waiting (pidfd), signals to a process group.
//! - [`pipe`]: draining a child's output and writing its input without blocking.
//! - [`sigpipe`]: the SIGPIPE guard around writes to a child.
//! - [`wake`]: an fd that wakes a `poll` loop.
//! - [`cancel`]: the token that stops an asynchronous fire's hooks.
//! - [`fallback`]: pidfd, eventfd and `addchdir_np` when available, their fallbacks otherwise.

pub mod cancel;
pub mod child;
pub mod fallback;
pub mod pipe;
pub mod sigpipe;
pub mod spawn;
pub mod wake;
