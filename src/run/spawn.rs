//! Process creation: `posix_spawn(3)` with an environment array built once per engine.
//!
//! glibc's posix_spawn creates the child with `clone(CLONE_VM | CLONE_VFORK)`: no copy of a large
//! host's page tables, and exec failures (ENOENT, EACCES, ENOEXEC) come back as its return value.
//! std's `Command` takes the same path, but rebuilds the whole environment (two maps and a C
//! array of every variable) on every spawn; a hook engine spawns the same environment plus a
//! few `OH_*` variables over and over, so the template is kept as C strings and only the
//! variables of the fire are added.

use std::ffi::{c_char, CStr, CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

/// The environment every hook of an engine starts from (CONTRACT §3.4): the host's at engine
/// creation minus the `OH_*` names an envelope may set, plus the options' `env`, plus `PWD`.
#[derive(Debug)]
pub struct EnvTemplate {
    /// `NAME=value` entries whose names no envelope sets.
    fixed: Vec<CString>,
    /// Options-`env` entries with a reserved `OH_*` name: in force unless the fire sets it.
    defaults: Vec<(String, CString)>,
    /// `PATH`, where directly executed hooks are looked up.
    pub path: Option<OsString>,
}

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
        EnvTemplate { fixed, defaults, path }
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
    pub fn with(&self, vars: &[(&'static str, String)]) -> Result<EnvBlock, &'static str> {
        let mut own = Vec::with_capacity(vars.len() + self.defaults.len());
        for (name, value) in vars {
            if value.contains('\0') {
                return Err(name);
            }
            own.push(entry(name.as_bytes(), value.as_bytes()));
        }
        for (name, value) in &self.defaults {
            if !vars.iter().any(|(n, _)| n == name) {
                own.push(value.clone());
            }
        }
        let mut pointers: Vec<*const c_char> = Vec::with_capacity(self.fixed.len() + own.len() + 1);
        pointers.extend(self.fixed.iter().chain(&own).map(|c| c.as_ptr()));
        pointers.push(std::ptr::null());
        Ok(EnvBlock { _own: own, pointers })
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

/// A NULL-terminated `envp` and the strings it points into.
pub struct EnvBlock {
    _own: Vec<CString>,
    pointers: Vec<*const c_char>,
}

/// What to start.
pub struct Request<'a> {
    /// An absolute path, or a path relative to `cwd` (the child changes directory first).
    pub program: &'a CStr,
    pub argv: &'a [CString],
    pub env: &'a EnvBlock,
    pub cwd: &'a CStr,
    /// A pipe to the child's stdin; otherwise `/dev/null`.
    pub pipe_stdin: bool,
    /// A pipe from the child's stdout; otherwise `/dev/null`.
    pub pipe_stdout: bool,
}

/// A started child, leader of its own process group (pgid = pid). Its stderr is always piped.
pub struct Process {
    pub pid: libc::pid_t,
    pub stdin: Option<OwnedFd>,
    pub stdout: Option<OwnedFd>,
    pub stderr: OwnedFd,
}

pub fn spawn(req: &Request) -> io::Result<Process> {
    let stdin = req.pipe_stdin.then(pipe).transpose()?;
    let stdout = req.pipe_stdout.then(pipe).transpose()?;
    let (stderr_read, stderr_write) = pipe()?;
    let null = dev_null();
    let mut argv: Vec<*const c_char> = req.argv.iter().map(|a| a.as_ptr()).chain([std::ptr::null()]).collect();

    let actions = FileActions::new()?;
    let attrs = Attributes::new()?;
    match &stdin {
        Some((child_end, _)) => actions.dup2(child_end.as_raw_fd(), 0)?,
        None => actions.null(null, 0, libc::O_RDONLY)?,
    }
    match &stdout {
        Some((_, child_end)) => actions.dup2(child_end.as_raw_fd(), 1)?,
        None => actions.null(null, 1, libc::O_WRONLY)?,
    }
    actions.dup2(stderr_write.as_raw_fd(), 2)?;
    actions.chdir(req.cwd)?;

    let mut pid: libc::pid_t = 0;
    // SAFETY: every pointer is valid for the call: the actions and attributes are initialised,
    // argv and envp are NULL-terminated arrays of NUL-terminated strings that outlive it.
    let rc = unsafe {
        libc::posix_spawn(
            &mut pid,
            req.program.as_ptr(),
            &actions.0,
            &attrs.0,
            argv.as_mut_ptr() as *const *mut c_char,
            req.env.pointers.as_ptr() as *const *mut c_char,
        )
    };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    // The child's ends close here; ours stay.
    Ok(Process { pid, stdin: stdin.map(|(_, ours)| ours), stdout: stdout.map(|(ours, _)| ours), stderr: stderr_read })
}

/// A close-on-exec pipe, (read end, write end), both numbered 3 or above so that the child's
/// dup2 onto 0, 1 and 2 never overwrites one of them (a host may have closed its stdio).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both fds are new and ours.
    let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
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

    fn chdir(&self, dir: &CStr) -> io::Result<()> {
        // SAFETY: as above; glibc copies the path.
        check(unsafe { libc::posix_spawn_file_actions_addchdir_np(&self.0 as *const _ as *mut _, dir.as_ptr()) })
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
