//! Process creation: `posix_spawn(3)` with an environment array built once per engine.
//!
//! glibc's posix_spawn creates the child with `clone(CLONE_VM | CLONE_VFORK)`: no copy of a large
//! host's page tables, and exec failures (ENOENT, EACCES, ENOEXEC) come back as its return value.
//! std's `Command` takes the same path, but rebuilds the whole environment (two maps and a C
//! array of every variable) on every spawn; a hook engine spawns the same environment plus a
//! few `OH_*` variables over and over, so the template is kept as C strings and only the
//! variables of the fire are added.

use std::ffi::{c_char, c_int, CStr, CString, OsString};
use std::io;
use std::marker::PhantomData;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::fallback;
use crate::sync::Unpoison;

/// The environment every hook of an engine starts from (docs/config.md "Command hooks"): the host's at engine
/// creation minus the `OH_*` names an envelope may set, plus the options' `env`, plus `PWD`.
#[derive(Debug)]
pub struct EnvTemplate {
    /// `NAME=value` entries whose names no envelope sets.
    fixed: Vec<CString>,
    /// Options-`env` entries with a reserved `OH_*` name: in force unless the fire sets it.
    defaults: Vec<(String, CString)>,
    /// `PATH`, where directly executed hooks are looked up.
    pub path: Option<OsString>,
    /// Programs found in `PATH` lately, and when ([`EnvTemplate::found`]).
    found: Mutex<Vec<(String, PathBuf, Instant)>>,
    /// Every `PATH` entry is absolute. A relative one (`.`, or an empty entry) resolves in each
    /// hook's own `cwd`, so where a name was found for one hook says nothing about the next:
    /// such a `PATH` is walked on every spawn, as the shell does.
    path_absolute: bool,
}

/// How long a program found in `PATH` is taken from [`EnvTemplate::found`] without walking `PATH`
/// again: a program installed meanwhile in an earlier `PATH` directory is used from at most this
/// much later (a hook fired in a loop walks `PATH` once per this, not once per spawn).
pub const FOUND_FOR: Duration = Duration::from_secs(1);

/// How many program names [`EnvTemplate::remember`] keeps; past it the list starts again, so a
/// config that names ever new programs (a reloaded file) cannot grow it without bound.
const FOUND_KEPT: usize = 64;

impl EnvTemplate {
    pub fn new(
        host: impl Iterator<Item = (OsString, OsString)>,
        options_env: &[(String, String)],
        reserved: &[&str],
        cwd: &Path,
    ) -> EnvTemplate {
        let mut vars: Vec<(OsString, OsString)> = host
            .filter(|(k, _)| !k.to_str().is_some_and(|k| reserved.contains(&k)))
            .filter(|(k, _)| !options_env.iter().any(|(name, _)| k == name.as_str()))
            .collect();
        // Hooks run in `cwd`, so that is their PWD (a shell would reset an inherited PWD the
        // same way; a directly executed program would not).
        if !options_env.iter().any(|(k, _)| k == "PWD") {
            vars.retain(|(k, _)| k != "PWD");
            vars.push(("PWD".into(), cwd.as_os_str().to_owned()));
        }
        let mut defaults = Vec::new();
        for (k, v) in options_env {
            if reserved.contains(&k.as_str()) {
                defaults.push((k.clone(), entry(k.as_bytes(), v.as_bytes())));
            } else {
                vars.push((k.into(), v.into()));
            }
        }
        let path = vars.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.clone());
        let fixed = vars.iter().map(|(k, v)| entry(k.as_bytes(), v.as_bytes())).collect();
        let path_absolute = path.as_ref().is_some_and(|p| std::env::split_paths(p).all(|d| d.is_absolute()));
        EnvTemplate { fixed, defaults, path, found: Mutex::new(Vec::new()), path_absolute }
    }

    /// Where `name` was found in `PATH` less than [`FOUND_FOR`] ago, if it was. The caller
    /// starts it there (exec tells when it is gone), or checks that it still is an executable
    /// there (one `stat`), instead of walking `PATH` again (one failed `stat` per directory
    /// before it, on every spawn: ten for `true` with a PATH of thirteen directories).
    pub fn found(&self, name: &str) -> Option<PathBuf> {
        if !self.path_absolute {
            return None;
        }
        let found = self.found.lock().unpoisoned();
        let (_, path, at) = found.iter().find(|(n, _, _)| n == name)?;
        (at.elapsed() < FOUND_FOR).then(|| path.clone())
    }

    /// Drops what [`EnvTemplate::remember`] kept for `name` (it could not be started there).
    pub fn forget(&self, name: &str) {
        self.found.lock().unpoisoned().retain(|(n, _, _)| n != name);
    }

    pub fn remember(&self, name: &str, path: &Path) {
        if !self.path_absolute {
            return;
        }
        let mut found = self.found.lock().unpoisoned();
        found.retain(|(n, _, _)| n != name);
        if found.len() >= FOUND_KEPT {
            found.clear();
        }
        found.push((name.to_string(), path.to_path_buf(), Instant::now()));
    }

    /// A variable of the template (host environment and options `env`), for Claude Code's
    /// `allowedEnvVars` header interpolation.
    pub fn get(&self, name: &str) -> Option<String> {
        let prefix = format!("{name}=");
        self.fixed.iter().chain(self.defaults.iter().map(|(_, c)| c)).find_map(|entry| {
            let bytes = entry.as_bytes();
            bytes.starts_with(prefix.as_bytes()).then(|| String::from_utf8_lossy(&bytes[prefix.len()..]).into_owned())
        })
    }

    /// The environment of one spawn: the template plus this fire's variables. `Err(name)` when
    /// a value holds a NUL byte, which no environment can carry.
    pub fn with<'v>(&self, vars: &[(&'v str, String)]) -> Result<EnvBlock<'_>, &'v str> {
        // The fire's entries, `NAME=value` and a NUL each, in one buffer: one allocation, not a
        // `CString` each. A name with a NUL (none of the engine's; a dialect hook's `env` could
        // have one) cannot make an entry: an empty one stands in its place.
        // (Names are a few bytes: a plain loop, not a memchr call each.)
        let size =
            |name: &str, value: &str| if name.bytes().any(|b| b == 0) { 0 } else { name.len() + 1 + value.len() };
        let mut total = 0;
        for (name, value) in vars {
            if value.contains('\0') {
                return Err(name);
            }
            total += size(name, value) + 1;
        }
        let mut text = Vec::with_capacity(total);
        for (name, value) in vars {
            if size(name, value) > 0 {
                text.extend_from_slice(name.as_bytes());
                text.push(b'=');
                text.extend_from_slice(value.as_bytes());
            }
            text.push(0);
        }
        let mut pointers: Vec<*const c_char> =
            Vec::with_capacity(self.fixed.len() + vars.len() + self.defaults.len() + 1);
        pointers.extend(self.fixed.iter().map(|c| c.as_ptr()));
        let mut at = 0;
        for (name, value) in vars {
            pointers.push(text[at..].as_ptr().cast());
            at += size(name, value) + 1;
        }
        for (name, value) in &self.defaults {
            if !vars.iter().any(|(n, _)| n == name) {
                pointers.push(value.as_ptr());
            }
        }
        pointers.push(std::ptr::null());
        Ok(EnvBlock { _text: text, pointers, _template: PhantomData })
    }
}

fn entry(name: &[u8], value: &[u8]) -> CString {
    let mut bytes = Vec::with_capacity(name.len() + value.len() + 1);
    bytes.extend_from_slice(name);
    bytes.push(b'=');
    bytes.extend_from_slice(value);
    // Names and values come from the process environment or were checked for NUL by Options.
    CString::new(bytes).unwrap_or_default()
}

/// A NULL-terminated `envp` and the fire's strings it points into; the rest of it points into
/// the template, which it borrows.
pub struct EnvBlock<'t> {
    _text: Vec<u8>,
    pointers: Vec<*const c_char>,
    _template: PhantomData<&'t EnvTemplate>,
}

/// What to start.
pub struct Request<'a> {
    /// An absolute path, or a path relative to `cwd` (the child changes directory first).
    pub program: &'a CStr,
    pub argv: &'a [CString],
    pub env: &'a EnvBlock<'a>,
    pub cwd: &'a CStr,
    /// A pipe to the child's stdin; otherwise `/dev/null`.
    pub pipe_stdin: bool,
    /// With `pipe_stdin`: the child's whole input, when it has one. Up to [`PIPE_BUF`] bytes it
    /// is written into the pipe before the child starts and our end is closed, so the child
    /// reads it, then EOF; [`Process::stdin`] is then `None`, and nothing is left to feed or to
    /// watch (no SIGPIPE can come of it: the pipe's read end is still ours while we write).
    pub preload: &'a [u8],
    /// A pipe from the child's stdout; otherwise `/dev/null`.
    pub pipe_stdout: bool,
    /// Keep our copies of the write ends of the child's stdout and stderr pipes
    /// ([`Process::writers`]): while we hold them, the child's exit never shows as EOF on its
    /// pipes, so a caller that waits on a pidfd wakes once, when the child can be reaped, instead
    /// of once at EOF (the exiting child closes its files a moment before it becomes a zombie)
    /// and again at the exit.
    pub keep_writers: bool,
    /// With `pipe_stdin`: keep our copy of the read end of the child's stdin pipe
    /// ([`Process::stdin_reader`]). While we hold it, a write to the child's stdin can neither
    /// fail with EPIPE nor raise SIGPIPE, whatever the child does with its own copy, so a
    /// caller that keeps a process and writes to it many times needs no SIGPIPE guard (two
    /// `rt_sigprocmask` a write) around each write.
    pub keep_stdin_reader: bool,
}

/// A started child, leader of its own process group (pgid = pid). Its stderr is always piped.
pub struct Process {
    pub pid: libc::pid_t,
    pub stdin: Option<OwnedFd>,
    pub stdout: Option<OwnedFd>,
    pub stderr: OwnedFd,
    /// With [`Request::keep_writers`]: the write ends of the stdout (when piped) and stderr
    /// pipes, which the child also holds. Until they are dropped, its pipes never reach EOF.
    pub writers: [Option<OwnedFd>; 2],
    /// With [`Request::keep_stdin_reader`]: the read end of the child's stdin pipe, which the
    /// child also holds.
    pub stdin_reader: Option<OwnedFd>,
}

/// What a pipe always takes at once: POSIX's PIPE_BUF (Linux 4096, the BSDs 512), and on Linux a
/// pipe holds at least one page even when the user's pipe buffer limit is exceeded.
#[cfg(not(oh_portable))]
pub const PIPE_BUF: usize = 4096;
#[cfg(oh_portable)]
pub const PIPE_BUF: usize = 512;

pub fn spawn(req: &Request) -> io::Result<Process> {
    let stdin = req.pipe_stdin.then(pipe).transpose()?;
    let preloaded = match &stdin {
        Some((_, ours)) if !req.preload.is_empty() && req.preload.len() <= PIPE_BUF => preload(ours, req.preload),
        _ => false,
    };
    let stdout = req.pipe_stdout.then(pipe).transpose()?;
    let (stderr_read, stderr_write) = pipe()?;
    let null = dev_null();
    let mut argv: Vec<*const c_char> = req.argv.iter().map(|a| a.as_ptr()).chain([std::ptr::null()]).collect();

    let stdio = [
        stdin.as_ref().map_or(Stdio::Null(libc::O_RDONLY), |(child_end, _)| Stdio::Dup(child_end.as_raw_fd())),
        stdout.as_ref().map_or(Stdio::Null(libc::O_WRONLY), |(_, child_end)| Stdio::Dup(child_end.as_raw_fd())),
        Stdio::Dup(stderr_write.as_raw_fd()),
    ];
    let envp = req.env.pointers.as_ptr();
    let pid = match fallback::addchdir() {
        Some(addchdir) => posix_spawn(req.program, &mut argv, envp, req.cwd, stdio, null, addchdir)?,
        None => fork_exec(req.program, &argv, envp, req.cwd, stdio, null)?,
    };
    // The child's ends close here (unless the caller keeps the write ends of its outputs); ours
    // stay.
    let (stdout, stdout_write) = stdout.map_or((None, None), |(ours, child_end)| (Some(ours), Some(child_end)));
    let writers = if req.keep_writers { [stdout_write, Some(stderr_write)] } else { [None, None] };
    let (stdin, stdin_reader) = match stdin {
        Some((child_end, ours)) => {
            (Some(ours).filter(|_| !preloaded), Some(child_end).filter(|_| req.keep_stdin_reader))
        }
        None => (None, None),
    };
    Ok(Process { pid, stdin, stdout, stderr: stderr_read, writers, stdin_reader })
}

/// Writes `data` (at most [`PIPE_BUF`] bytes) into a new, empty pipe whose read end we hold: one
/// atomic write that cannot block. False when it did not go through (then nothing was written).
fn preload(fd: &OwnedFd, data: &[u8]) -> bool {
    loop {
        // SAFETY: writes from a valid slice to a pipe end we own.
        let n = unsafe { libc::write(fd.as_raw_fd(), data.as_ptr().cast(), data.len()) };
        if n >= 0 {
            return n as usize == data.len();
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return false;
        }
    }
}

/// Where a child's fd 0, 1 or 2 comes from.
#[derive(Clone, Copy)]
enum Stdio {
    /// A pipe end of ours (numbered 3 or above).
    Dup(RawFd),
    /// `/dev/null`, opened with these flags.
    Null(libc::c_int),
}

fn posix_spawn(
    program: &CStr,
    argv: &mut [*const c_char],
    envp: *const *const c_char,
    cwd: &CStr,
    stdio: [Stdio; 3],
    null: Option<RawFd>,
    addchdir: fallback::AddChdir,
) -> io::Result<libc::pid_t> {
    let actions = FileActions::new()?;
    let attrs = Attributes::new()?;
    for (to, from) in stdio.into_iter().enumerate() {
        match from {
            Stdio::Dup(fd) => actions.dup2(fd, to as RawFd)?,
            Stdio::Null(flags) => actions.null(null, to as RawFd, flags)?,
        }
    }
    // SAFETY: the actions are initialised; glibc copies the path.
    check(unsafe { addchdir(&actions.0 as *const _ as *mut _, cwd.as_ptr()) })?;

    let mut pid: libc::pid_t = 0;
    let _spawning = super::pipe::spawning();
    // SAFETY: every pointer is valid for the call: the actions and attributes are initialised,
    // argv and envp are NULL-terminated arrays of NUL-terminated strings that outlive it.
    let rc = unsafe {
        libc::posix_spawn(
            &mut pid,
            program.as_ptr(),
            &actions.0,
            &attrs.0,
            argv.as_mut_ptr() as *const *mut c_char,
            envp as *const *mut c_char,
        )
    };
    check(rc)?;
    Ok(pid)
}

/// The spawn where glibc's posix_spawn cannot change directory (before 2.29, see
/// [`super::fallback`]): the same child as [`posix_spawn`]'s, made with fork. Only async-signal-safe
/// calls run in the child, on data prepared before the fork; an exec failure comes back as the
/// error, as posix_spawn reports it, through a close-on-exec pipe.
fn fork_exec(
    program: &CStr,
    argv: &[*const c_char],
    envp: *const *const c_char,
    cwd: &CStr,
    stdio: [Stdio; 3],
    null: Option<RawFd>,
) -> io::Result<libc::pid_t> {
    let (report_read, report_write) = pipe()?;
    // Every signal blocked across the fork, so no handler of the host's runs in the child before
    // the child has put it back to the default.
    // SAFETY: sigset operations on local sets; the thread's mask is restored below.
    let old = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        old
    };
    let spawning = super::pipe::spawning();
    // SAFETY: the child runs only `child`, which calls async-signal-safe functions and never
    // returns.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: in the child of fork; every pointer was made before it.
        unsafe { child(program, argv, envp, cwd, stdio, null, report_write.as_raw_fd()) }
    }
    let forked = io::Error::last_os_error();
    drop(spawning);
    // SAFETY: restores the mask saved above.
    unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut()) };
    if pid < 0 {
        return Err(forked);
    }
    drop(report_write);
    let mut errno = [0u8; 4];
    let mut got = 0;
    while got < errno.len() {
        // SAFETY: reads into the rest of a local buffer.
        let n = unsafe { libc::read(report_read.as_raw_fd(), errno[got..].as_mut_ptr().cast(), errno.len() - got) };
        if n > 0 {
            got += n as usize;
        } else if n == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break;
        }
    }
    if got == 0 {
        return Ok(pid); // closed by the exec
    }
    // The child failed before or at exec and exits at once: reap it.
    // SAFETY: waits for our own child.
    unsafe {
        while libc::waitpid(pid, std::ptr::null_mut(), 0) < 0
            && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
        {}
    };
    Err(io::Error::from_raw_os_error(if got == 4 { i32::from_ne_bytes(errno) } else { libc::EIO }))
}

/// The child of [`fork_exec`]: what [`Attributes`] and [`FileActions`] ask posix_spawn for, then
/// the exec. On failure it writes errno to `report` and exits 127.
unsafe fn child(
    program: &CStr,
    argv: &[*const c_char],
    envp: *const *const c_char,
    cwd: &CStr,
    stdio: [Stdio; 3],
    null: Option<RawFd>,
    report: RawFd,
) -> ! {
    unsafe fn fail(report: RawFd) -> ! {
        // Reads errno (no allocation): async-signal-safe.
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO);
        libc::write(report, (&errno as *const c_int).cast(), 4);
        libc::_exit(127)
    }
    if libc::setpgid(0, 0) != 0 {
        fail(report);
    }
    for (to, from) in stdio.into_iter().enumerate() {
        let to = to as RawFd;
        let fd = match (from, null) {
            (Stdio::Dup(fd), _) | (Stdio::Null(_), Some(fd)) => fd,
            (Stdio::Null(flags), None) => match libc::open(c"/dev/null".as_ptr(), flags) {
                -1 => fail(report),
                fd => fd,
            },
        };
        if fd != to && libc::dup2(fd, to) < 0 {
            fail(report);
        }
        if matches!((from, null), (Stdio::Null(_), None)) && fd != to {
            libc::close(fd);
        }
    }
    if libc::chdir(cwd.as_ptr()) != 0 {
        fail(report);
    }
    // As glibc's posix_spawn: handlers back to the default (they are the host's code), SIGPIPE
    // and SIGTERM to the default even where ignored, then the empty mask.
    let mut action: libc::sigaction = std::mem::zeroed();
    #[cfg(not(oh_portable))]
    let last = libc::SIGRTMAX();
    // No SIGRTMAX outside Linux: past the last signal, sigaction fails and the loop moves on.
    #[cfg(oh_portable)]
    let last = 64;
    for signal in 1..=last {
        if libc::sigaction(signal, std::ptr::null(), &mut action) != 0 {
            continue;
        }
        let handled = action.sa_sigaction != libc::SIG_DFL && action.sa_sigaction != libc::SIG_IGN;
        if handled || signal == libc::SIGPIPE || signal == libc::SIGTERM {
            let mut default: libc::sigaction = std::mem::zeroed();
            default.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(signal, &default, std::ptr::null_mut());
        }
    }
    let mut empty: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut empty);
    libc::pthread_sigmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
    libc::execve(program.as_ptr(), argv.as_ptr(), envp);
    fail(report)
}

/// A close-on-exec pipe, (read end, write end), both numbered 3 or above so that the child's
/// dup2 onto 0, 1 and 2 never overwrites one of them (a host may have closed its stdio).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (r, w) = super::pipe::cloexec_pipe()?;
    Ok((above_stdio(r)?, above_stdio(w)?))
}

fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: duplicates an fd we own to a new close-on-exec fd >= 3, which we then own.
    let dup = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if dup < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    Ok(unsafe { OwnedFd::from_raw_fd(dup) })
}

/// `/dev/null`, opened once per process (close-on-exec) and shared by every spawn.
fn dev_null() -> Option<RawFd> {
    static NULL: OnceLock<Option<OwnedFd>> = OnceLock::new();
    NULL.get_or_init(|| {
        // SAFETY: open(2) of a constant path; the new fd is ours.
        let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
        (fd >= 0).then(|| above_stdio(unsafe { OwnedFd::from_raw_fd(fd) }).ok()).flatten()
    })
    .as_ref()
    .map(|fd| fd.as_raw_fd())
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}

struct FileActions(libc::posix_spawn_file_actions_t);

impl FileActions {
    fn new() -> io::Result<FileActions> {
        // SAFETY: zeroed storage initialised by posix_spawn_file_actions_init before any use.
        let mut actions = FileActions(unsafe { std::mem::zeroed() });
        check(unsafe { libc::posix_spawn_file_actions_init(&mut actions.0) })?;
        Ok(actions)
    }

    fn dup2(&self, from: RawFd, to: RawFd) -> io::Result<()> {
        // SAFETY: the actions are initialised; posix_spawn takes a const pointer to them.
        check(unsafe { libc::posix_spawn_file_actions_adddup2(&self.0 as *const _ as *mut _, from, to) })
    }

    fn null(&self, shared: Option<RawFd>, to: RawFd, flags: libc::c_int) -> io::Result<()> {
        match shared {
            Some(fd) => self.dup2(fd, to),
            // SAFETY: as above; the path is a constant C string.
            None => check(unsafe {
                libc::posix_spawn_file_actions_addopen(
                    &self.0 as *const _ as *mut _,
                    to,
                    c"/dev/null".as_ptr(),
                    flags,
                    0,
                )
            }),
        }
    }
}

impl Drop for FileActions {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(&mut self.0) };
    }
}

/// A process group of its own, an empty signal mask (a host's blocked signals, or our own
/// temporary SIGPIPE block, must not reach the hook), and SIGPIPE and SIGTERM at their default
/// action even where the host ignores them: a hook must die of a broken pipe as any program
/// does, and of the timeout's SIGTERM unless it chooses otherwise.
struct Attributes(libc::posix_spawnattr_t);

impl Attributes {
    fn new() -> io::Result<Attributes> {
        // SAFETY: zeroed storage initialised by posix_spawnattr_init; sigset operations on
        // local sets.
        unsafe {
            let mut attrs = Attributes(std::mem::zeroed());
            check(libc::posix_spawnattr_init(&mut attrs.0))?;
            let mut empty: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut empty);
            check(libc::posix_spawnattr_setsigmask(&mut attrs.0, &empty))?;
            let mut default: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut default);
            libc::sigaddset(&mut default, libc::SIGPIPE);
            libc::sigaddset(&mut default, libc::SIGTERM);
            check(libc::posix_spawnattr_setsigdefault(&mut attrs.0, &default))?;
            check(libc::posix_spawnattr_setpgroup(&mut attrs.0, 0))?;
            let flags = libc::POSIX_SPAWN_SETPGROUP | libc::POSIX_SPAWN_SETSIGMASK | libc::POSIX_SPAWN_SETSIGDEF;
            check(libc::posix_spawnattr_setflags(&mut attrs.0, flags as libc::c_short))?;
            Ok(attrs)
        }
    }
}

impl Drop for Attributes {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(&mut self.0) };
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Read;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Pipes of this process that a child would inherit (not close-on-exec): the test harness's
    /// own, if any.
    fn inheritable_pipes() -> usize {
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .flatten()
            .filter(|e| {
                let fd: RawFd = e.file_name().to_str().and_then(|n| n.parse().ok()).unwrap_or(-1);
                // SAFETY: F_GETFD only reads the flags of a number that may or may not be open.
                let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
                flags >= 0
                    && flags & libc::FD_CLOEXEC == 0
                    && std::fs::read_link(e.path()).is_ok_and(|t| t.to_string_lossy().starts_with("pipe:"))
            })
            .count()
    }

    /// Up to PIPE_BUF bytes of input go into the pipe before the child starts: nothing is left
    /// to feed (no stdin end is returned) and the child reads all of it, then EOF. Past
    /// PIPE_BUF the caller feeds it.
    #[test]
    fn a_small_input_is_in_the_pipe_before_the_child_starts() {
        let template = EnvTemplate::new(std::env::vars_os(), &[], &[], Path::new("/"));
        let env = template.with(&[]).unwrap();
        let argv = [c"cat".to_owned()];
        for len in [1, PIPE_BUF, PIPE_BUF + 1] {
            let input: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let req = Request {
                program: c"/bin/cat",
                argv: &argv,
                env: &env,
                cwd: c"/",
                pipe_stdin: true,
                preload: &input,
                pipe_stdout: true,
                keep_writers: false,
                keep_stdin_reader: false,
            };
            let child = spawn(&req).unwrap();
            let fed = child.stdin.is_some();
            assert_eq!(fed, len > PIPE_BUF, "{len} bytes: fed by the caller?");
            if let Some(stdin) = child.stdin {
                std::io::Write::write_all(&mut std::fs::File::from(stdin), &input).unwrap();
            }
            let mut echoed = Vec::new();
            std::fs::File::from(child.stdout.unwrap()).read_to_end(&mut echoed).unwrap();
            crate::os::child::reap(child.pid);
            assert_eq!(echoed, input, "{len} bytes");
        }
    }

    /// A child that exits without reading its stdin: a write to it then fails with EPIPE (and
    /// raises SIGPIPE, which the Rust test harness ignores), unless we kept the read end of its
    /// stdin pipe, when it goes into the pipe and nothing is raised.
    #[test]
    fn a_kept_stdin_reader_makes_writes_to_a_dead_child_harmless() {
        let template = EnvTemplate::new(std::env::vars_os(), &[], &[], Path::new("/"));
        let env = template.with(&[]).unwrap();
        let argv = [c"true".to_owned()];
        for keep in [false, true] {
            let req = Request {
                program: c"/bin/true",
                argv: &argv,
                env: &env,
                cwd: c"/",
                pipe_stdin: true,
                preload: &[],
                pipe_stdout: false,
                keep_writers: false,
                keep_stdin_reader: keep,
            };
            let child = spawn(&req).unwrap();
            assert_eq!(child.stdin_reader.is_some(), keep);
            let mut status = 0;
            // SAFETY: waits for our own child.
            assert_eq!(unsafe { libc::waitpid(child.pid, &mut status, 0) }, child.pid);
            let stdin = child.stdin.unwrap();
            // SAFETY: writes from a valid slice to a pipe end we own.
            let n = unsafe { libc::write(stdin.as_raw_fd(), b"x\n".as_ptr().cast(), 2) };
            let error = io::Error::last_os_error().raw_os_error();
            if keep {
                assert_eq!(n, 2, "kept reader: the write goes into the pipe");
            } else {
                assert_eq!((n, error), (-1, Some(libc::EPIPE)), "no reader left: EPIPE");
            }
        }
    }

    /// The environment of a spawn: the template's entries, then the fire's in order (a name
    /// with a NUL leaves an empty entry), then the options' defaults the fire does not set; a
    /// value with a NUL is refused by name.
    #[test]
    fn the_environment_is_the_template_then_the_fire() {
        let options = [("OH_MODEL".to_string(), "default".to_string()), ("OH_COST".to_string(), "1".to_string())];
        let host = [("HOME".into(), "/h".into()), ("OH_EVENT".into(), "host".into())];
        let template =
            EnvTemplate::new(host.into_iter(), &options, &["OH_EVENT", "OH_MODEL", "OH_COST"], Path::new("/w"));
        let vars =
            [("OH_EVENT", "preToolUse".to_string()), ("BAD\0NAME", "x".to_string()), ("OH_MODEL", String::new())];
        let block = template.with(&vars).unwrap();
        let entries: Vec<String> = block
            .pointers
            .iter()
            .take_while(|p| !p.is_null())
            // SAFETY: every pointer before the NULL is a NUL-terminated string of the block.
            .map(|p| unsafe { CStr::from_ptr(*p) }.to_str().unwrap().to_string())
            .collect();
        assert_eq!(entries, ["HOME=/h", "PWD=/w", "OH_EVENT=preToolUse", "", "OH_MODEL=", "OH_COST=1"]);
        assert_eq!(block.pointers.last(), Some(&std::ptr::null()));
        assert_eq!(template.with(&[("OH_PROMPT", "a\0b".to_string())]).err(), Some("OH_PROMPT"));
    }

    /// A hook never inherits a pipe end made for another one, even while other threads make
    /// pipes as fast as they can: pipe2(O_CLOEXEC) on Linux; in the portable build (pipe, then
    /// FD_CLOEXEC) because every spawn waits for the pipes being made. Without that lock the
    /// children here inherit such pipes in nearly every run.
    #[test]
    fn no_child_inherits_a_pipe_made_while_it_starts() {
        let baseline = inheritable_pipes();
        let template = EnvTemplate::new(std::env::vars_os(), &[], &[], Path::new("/"));
        let env = template.with(&[]).unwrap();
        let argv = [c"ls".to_owned(), c"-l".to_owned(), c"/proc/self/fd/".to_owned()];
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            for _ in 0..2 {
                s.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        drop(super::super::pipe::cloexec_pipe().unwrap());
                    }
                });
            }
            for _ in 0..200 {
                let req = Request {
                    program: c"/bin/ls",
                    argv: &argv,
                    env: &env,
                    cwd: c"/",
                    pipe_stdin: false,
                    preload: &[],
                    pipe_stdout: true,
                    keep_writers: false,
                    keep_stdin_reader: false,
                };
                let child = spawn(&req).unwrap();
                let mut listing = String::new();
                std::fs::File::from(child.stdout.unwrap()).read_to_string(&mut listing).unwrap();
                crate::os::child::reap(child.pid);
                // stdout and stderr are pipes; anything else that is one was inherited.
                let pipes = listing.lines().filter(|l| l.contains("-> pipe:")).count();
                if pipes > 2 + baseline {
                    stop.store(true, Ordering::Relaxed);
                    panic!("the hook inherited a pipe it was not given:\n{listing}");
                }
            }
            stop.store(true, Ordering::Relaxed);
        });
    }
}
