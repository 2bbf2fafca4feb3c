//! Running one command hook (docs/config.md "Command hooks"): spawn, feed stdin, drain stdout/stderr, enforce the
//! timeout on the whole process group, reap.
//!
//! Everything happens on the calling thread in one `poll(2)` loop over the pipes and a pidfd
//! for the child, so a hook costs no extra thread. Processes are created by [`crate::os::spawn`]
//! (posix_spawn: a vfork-style clone, no copy of a large host's page tables).

use crate::os::cancel::Cancel;
pub use crate::os::child::Exit;
use crate::os::child::{group_alive, pidfd_open, reap, signal_group, try_reap, Reaped};
use crate::os::pipe::{drain, set_nonblocking};
use crate::os::sigpipe::SigpipeBlock;
use crate::os::spawn::{self, EnvTemplate, Process, Request};
pub use crate::words::plain_words;
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Without a pidfd (kernels before 5.3, valgrind, `OH_HOOKS_FORCE_FALLBACK=pidfd`, out of fds)
/// the loop looks for the exit (`waitpid`) this often, and whenever a pipe wakes it.
pub const EXIT_POLL: Duration = Duration::from_millis(5);
/// SIGKILL follows SIGTERM after this long if anything in the group is still alive.
pub const KILL_GRACE: Duration = Duration::from_millis(500);
/// After the shell exits, what it printed is read for at most this much longer.
pub const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(100);
/// The trace keeps this much of stderr.
pub const STDERR_KEPT: usize = 4096;

/// One run's inputs.
pub struct Spawn<'a> {
    pub command: &'a str,
    /// The command split into a program and plain words, when it has no shell syntax at all
    /// ([`plain_words`]): then it is executed directly, without `/bin/sh`.
    pub argv: Option<&'a [String]>,
    /// Claude Code's exec form: `argv` is the program and its arguments, never re-split; a
    /// program that cannot be found is a failure (there is no shell to report it).
    pub exec_form: bool,
    pub cwd: &'a Path,
    /// The engine's environment template (and its `PATH`, where `argv[0]` is looked up).
    pub env: &'a EnvTemplate,
    /// This envelope's `OH_*` variables.
    /// A dialect hook's own `env` too (names the hook's file gives).
    pub vars: &'a [(&'a str, String)],
    /// jsonIO: the envelope, then EOF. `None`: stdin is `/dev/null` (EOF at once).
    pub stdin: Option<&'a [u8]>,
    /// jsonIO: keep stdout (up to `max_stdout`). Otherwise stdout is `/dev/null`, which drains
    /// and discards without a pipe to watch.
    pub capture_stdout: bool,
    pub max_stdout: usize,
    pub timeout: Duration,
    /// An asynchronous fire's token: cancelling it stops the hook as a timeout does.
    pub cancel: Option<&'a Cancel>,
}

#[derive(Debug, Default)]
pub struct Finished {
    /// `None` when the hook never started or its status could not be read (see `error`).
    pub exit: Option<Exit>,
    pub timed_out: bool,
    pub stdout: Vec<u8>,
    pub stdout_overflow: bool,
    pub stderr: Vec<u8>,
    pub error: Option<String>,
    /// The program was executed directly, without `/bin/sh`.
    pub direct: bool,
}

impl Finished {
    pub fn succeeded(&self) -> bool {
        !self.timed_out && self.exit == Some(Exit::Code(0))
    }

    fn failed(error: String) -> Finished {
        Finished { error: Some(error), ..Finished::default() }
    }
}

pub fn run(spawn: &Spawn) -> Finished {
    let start = Instant::now();
    if spawn.exec_form {
        let found = spawn.argv.and_then(|w| find_program(w.first()?, spawn.env, spawn.cwd));
        if found.is_none() {
            let program = spawn.argv.and_then(|w| w.first()).map_or("", String::as_str);
            return Finished::failed(format!(
                "cannot run `{program}`: no executable of that name in PATH or at that path (exec form has no shell)"
            ));
        }
    }
    let (stdin, capture) = (spawn.stdin, spawn.capture_stdout);
    let started =
        start_process(spawn.command, spawn.argv, spawn.cwd, spawn.env, spawn.vars, stdin, capture, true, false);
    let (process, is_direct) = match started {
        Ok(p) => p,
        Err(e) => return Finished::failed(e),
    };
    let mut finished = ChildLoop::new(process, spawn, start).run();
    finished.direct = is_direct;
    finished
}

/// Starts a command hook's process (docs/config.md "Command hooks"): directly when the command is plain words and the
/// program is found, else `/bin/sh -c`. Returns the process and whether it was started directly,
/// or an error message for the trace. `keep_writers`, `keep_stdin_reader`: see
/// [`Request::keep_writers`], [`Request::keep_stdin_reader`].
#[allow(clippy::too_many_arguments)]
pub fn start_process(
    command: &str,
    words: Option<&[String]>,
    cwd: &Path,
    template: &EnvTemplate,
    vars: &[(&str, String)],
    stdin: Option<&[u8]>,
    pipe_stdout: bool,
    keep_writers: bool,
    keep_stdin_reader: bool,
) -> Result<(Process, bool), String> {
    let (pipe_stdin, preload) = (stdin.is_some(), stdin.unwrap_or_default());
    let env = template.with(vars).map_err(|var| {
        format!("{var} contains a NUL byte, which an environment variable cannot hold; the hook was not started")
    })?;
    let Ok(cwd_c) = CString::new(cwd.as_os_str().as_bytes()) else {
        return Err("the working directory contains a NUL byte".to_string());
    };
    let start_program = |program: &CStr, argv: &[CString]| {
        spawn::spawn(&Request {
            program,
            argv,
            env: &env,
            cwd: &cwd_c,
            pipe_stdin,
            preload,
            pipe_stdout,
            keep_writers,
            keep_stdin_reader,
        })
    };
    // Direct when possible; on any doubt (program not found, not executable, a script without
    // `#!` that only a shell would run) the shell runs it, so every error is the shell's own.
    let direct = words.and_then(|words| {
        let argv: Vec<CString> = words.iter().map(|w| CString::new(w.as_str())).collect::<Result<_, _>>().ok()?;
        // Where `PATH` found the program lately is started without a `stat` first: exec checks
        // it anyway. When it fails there (gone, no longer executable: ENOENT, EACCES...) the
        // path is forgotten and `PATH` walked again, as a failed `stat` did; a script without
        // `#!` (ENOEXEC) goes to the shell at once, as before.
        if let Some(remembered) = template.found(&words[0]) {
            let program = CString::new(remembered.into_os_string().into_vec()).ok()?;
            match start_program(&program, &argv) {
                Ok(p) => return Some(p),
                Err(e) if e.raw_os_error() == Some(libc::ENOEXEC) => return None,
                Err(_) => template.forget(&words[0]),
            }
        }
        let program = find_program(&words[0], template, cwd)?;
        let program = CString::new(program.into_os_string().into_vec()).ok()?;
        start_program(&program, &argv).ok()
    });
    if let Some(p) = direct {
        return Ok((p, true));
    }
    let Ok(command) = CString::new(command) else {
        return Err("the command contains a NUL byte".to_string());
    };
    let argv = [c"/bin/sh".to_owned(), c"-c".to_owned(), command];
    match start_program(c"/bin/sh", &argv) {
        Ok(p) => Ok((p, false)),
        Err(e) => Err(format!("cannot start `/bin/sh -c` in {}: {e}", cwd.display())),
    }
}

/// The shell's lookup: a name with a `/` is a path; otherwise the first executable regular
/// file in `PATH` (an empty entry is the current directory). Returns the path as the shell would
/// pass it to execve — relative ones stay relative and resolve in `cwd`, where the child starts —
/// so the program sees the same `$0`.
///
/// A name found in an absolute `PATH` directory is remembered by the engine for
/// [`spawn::FOUND_FOR`]. Meanwhile [`start_process`] starts it without looking (exec checks it)
/// and this lookup (the exec form's check) with one `stat`; when it is no longer an executable
/// there, `PATH` is walked again. So a program installed in an earlier `PATH` directory is used
/// from at most a second later (docs/decisions.md, "Commands without shell syntax run without
/// `/bin/sh`").
fn find_program(name: &str, template: &EnvTemplate, cwd: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable =
        |p: &Path| std::fs::metadata(cwd.join(p)).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
    let path = template.path.as_deref()?;
    if name.contains('/') {
        let p = PathBuf::from(name);
        return executable(&p).then_some(p);
    }
    if let Some(p) = template.found(name) {
        if executable(&p) {
            return Some(p);
        }
    }
    let found = std::env::split_paths(path)
        .map(|dir| if dir.as_os_str().is_empty() { PathBuf::from(".").join(name) } else { dir.join(name) })
        .find(|p| executable(p))?;
    // A relative directory resolves in `cwd`, which another hook's may not be.
    if found.is_absolute() {
        template.remember(name, &found);
    }
    Some(found)
}

/// Watches one child until it is reaped.
struct ChildLoop<'a> {
    pid: libc::pid_t,
    pgid: i32,
    /// Readable once the child can be reaped. Opened at the start: the loop then sleeps once for
    /// a hook that writes nothing, as `waitpid` would (see `writers`).
    pidfd: Option<OwnedFd>,
    /// Our copies of the write ends of the child's stdout and stderr, held while the pidfd
    /// watches it ([`Request::keep_writers`]): its pipes' EOF, which comes a moment before the
    /// child can be reaped, would wake the loop once more (in 66–79 % of a `true` hook's fires,
    /// measured with `perf stat` at load average 10, the `waitpid` right after that EOF still
    /// found the child running, and the loop slept again on a pidfd). Dropped once it is reaped,
    /// when the pipes are read to EOF; without a pidfd, dropped at once (the EOF is then what
    /// wakes the loop early).
    writers: [Option<OwnedFd>; 2],
    stdin: Option<OwnedFd>,
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
    input: &'a [u8],
    written: usize,
    max_stdout: usize,
    deadline: Instant,
    cancel: Option<&'a Cancel>,
    cancel_fd: Option<RawFd>,
    /// While there is stdin to feed (an envelope too large to preload, see [`spawn::Request`]).
    sigpipe: Option<SigpipeBlock>,
    out: Finished,
}

impl<'a> ChildLoop<'a> {
    fn new(process: Process, spawn: &Spawn<'a>, start: Instant) -> ChildLoop<'a> {
        let own = |fd: Option<OwnedFd>| fd.inspect(|fd| set_nonblocking(fd.as_raw_fd()));
        let input = spawn.stdin.unwrap_or(&[]);
        let sigpipe = (process.stdin.is_some() && !input.is_empty()).then(SigpipeBlock::tracked);
        let pidfd = pidfd_open(process.pid);
        let writers = if pidfd.is_some() { process.writers } else { [None, None] };
        ChildLoop {
            pid: process.pid,
            pgid: process.pid,
            pidfd,
            writers,
            stdin: own(process.stdin),
            stdout: own(process.stdout),
            stderr: own(Some(process.stderr)),
            input,
            written: 0,
            max_stdout: spawn.max_stdout,
            deadline: start.checked_add(spawn.timeout).unwrap_or_else(|| start + Duration::from_secs(86_400)),
            cancel: spawn.cancel,
            cancel_fd: spawn.cancel.and_then(Cancel::fd),
            sigpipe,
            out: Finished::default(),
        }
    }

    fn run(mut self) -> Finished {
        if self.input.is_empty() {
            self.stdin = None;
        }
        let mut kill_at: Option<Instant> = None;
        let mut killed = false;
        let mut exited: Option<Instant> = None;
        let mut cancelled = false;
        loop {
            let now = Instant::now();
            if exited.is_none() && !self.out.timed_out && self.cancel.is_some_and(Cancel::is_cancelled) {
                // Stopped as on a timeout (`timed_out` is the loop's "stopping" state).
                cancelled = true;
                self.out.timed_out = true;
                signal_group(self.pgid, libc::SIGTERM);
                kill_at = Some(now + KILL_GRACE);
            }
            if exited.is_none() && !self.out.timed_out && now >= self.deadline {
                signal_group(self.pgid, libc::SIGTERM);
                self.out.timed_out = true;
                kill_at = Some(now + KILL_GRACE);
            }
            if let Some(at) = kill_at {
                if !killed && now >= at {
                    if group_alive(self.pgid) {
                        signal_group(self.pgid, libc::SIGKILL);
                    }
                    killed = true;
                }
            }
            if let Some(at) = exited {
                let pipes_done = (self.stdout.is_none() && self.stderr.is_none()) || now >= at + DRAIN_AFTER_EXIT;
                // After a timeout the rest of the group gets its grace, then SIGKILL.
                let group_done = !self.out.timed_out || killed || !group_alive(self.pgid);
                if pipes_done && group_done {
                    break;
                }
            }

            // When to wake up next, whatever the pipes do.
            let mut wake: Option<Instant> = None;
            let mut at = |t: Instant| wake = Some(wake.map_or(t, |w| w.min(t)));
            if exited.is_none() && !self.out.timed_out {
                at(self.deadline);
            }
            if let (Some(k), false) = (kill_at, killed) {
                at(k);
            }
            if let Some(e) = exited {
                at(e + DRAIN_AFTER_EXIT);
                if self.out.timed_out && !killed {
                    at(now + Duration::from_millis(10)); // notice an emptied group promptly
                }
            } else if self.pidfd.is_none() {
                at(now + EXIT_POLL); // no pidfd: poll for the exit
            }
            if self.cancel.is_some() && self.cancel_fd.is_none() && exited.is_none() && !self.out.timed_out {
                at(now + Duration::from_millis(10)); // no eventfd (src/os/fallback.rs): poll the flag
            }
            let timeout_ms = wake.map_or(-1, |w| {
                let d = w.saturating_duration_since(now);
                i32::try_from(d.as_micros().div_ceil(1000)).unwrap_or(i32::MAX)
            });

            let mut fds: Vec<libc::pollfd> = Vec::with_capacity(4);
            let mut add = |fd: &Option<OwnedFd>, events: i16| {
                if let Some(fd) = fd {
                    fds.push(libc::pollfd { fd: fd.as_raw_fd(), events, revents: 0 });
                }
            };
            add(&self.stdin, libc::POLLOUT);
            add(&self.stdout, libc::POLLIN);
            add(&self.stderr, libc::POLLIN);
            if exited.is_none() {
                add(&self.pidfd, libc::POLLIN);
            }
            if let (Some(fd), None, false) = (self.cancel_fd, exited, self.out.timed_out) {
                fds.push(libc::pollfd { fd, events: libc::POLLIN, revents: 0 });
            }
            // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
            if n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                self.out.error.get_or_insert_with(|| format!("poll failed: {}", io::Error::last_os_error()));
                signal_group(self.pgid, libc::SIGKILL);
                reap(self.pid);
                break;
            }
            let ready = |fd: &Option<OwnedFd>| {
                fd.as_ref().is_some_and(|fd| fds.iter().any(|p| p.fd == fd.as_raw_fd() && p.revents != 0))
            };
            if ready(&self.stdin) {
                self.feed_stdin();
            }
            let (stdout_ready, stderr_ready) = (ready(&self.stdout), ready(&self.stderr));
            if exited.is_none() && (self.pidfd.is_none() || ready(&self.pidfd)) {
                match try_reap(self.pid) {
                    Reaped::Running => {}
                    Reaped::Done(exit) => {
                        self.out.exit = Some(exit);
                        exited = Some(Instant::now());
                    }
                    Reaped::Lost(e) => {
                        self.out.error =
                            Some(format!("cannot read the hook's exit status ({e}); is SIGCHLD ignored by the host?"));
                        exited = Some(Instant::now());
                    }
                }
                if exited.is_some() {
                    self.stdin = None;
                    // Its pipes can reach EOF now; read them at once (no `poll` first): at EOF
                    // already unless something the hook started still holds them.
                    self.writers = [None, None];
                    self.drain_outputs(true, true);
                    continue;
                }
            }
            self.drain_outputs(stdout_ready, stderr_ready);
        }
        if cancelled {
            self.out.timed_out = false;
            self.out.error.get_or_insert_with(|| "cancelled".to_string());
        }
        self.out
    }

    /// Reads what the child wrote to the pipes that are ready, and closes those at EOF.
    fn drain_outputs(&mut self, stdout: bool, stderr: bool) {
        if stdout {
            let cap = self.max_stdout;
            if drain(&mut self.stdout, &mut self.out.stdout, cap, &mut self.out.stdout_overflow) {
                self.stdout = None;
            }
        }
        if stderr {
            let mut over = false;
            if drain(&mut self.stderr, &mut self.out.stderr, STDERR_KEPT, &mut over) {
                self.stderr = None;
            }
        }
    }

    /// Writes what the pipe takes. A hook that exits or closes stdin early ends the feeding
    /// (EPIPE, whose SIGPIPE is blocked on this thread and discarded).
    fn feed_stdin(&mut self) {
        let Some(fd) = &self.stdin else { return };
        loop {
            let rest = &self.input[self.written..];
            if rest.is_empty() {
                self.stdin = None; // EOF
                return;
            }
            // SAFETY: writing from a valid slice to an fd we own.
            let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
            if n >= 0 {
                self.written += n as usize;
                continue;
            }
            match io::Error::last_os_error().kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => return,
                kind => {
                    if kind == io::ErrorKind::BrokenPipe {
                        self.sigpipe.as_mut().map(SigpipeBlock::epipe);
                    }
                    self.stdin = None;
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Option<Vec<&str>> {
        plain_words(s).map(|w| w.iter().map(|x| Box::leak(x.clone().into_boxed_str()) as &str).collect())
    }

    #[test]
    fn plain_commands_are_split() {
        assert_eq!(words("true"), Some(vec!["true"]));
        assert_eq!(
            words("./hooks/check.sh --mode=strict  a,b"),
            Some(vec!["./hooks/check.sh", "--mode=strict", "a,b"])
        );
        assert_eq!(words("node ./gate.cjs"), Some(vec!["node", "./gate.cjs"]));
    }

    /// Voluntary context switches of the calling thread so far: each is a sleep (in `poll`, in
    /// the spawn's wait for the child's exec, ...).
    #[cfg(target_os = "linux")]
    fn sleeps() -> u64 {
        let status = std::fs::read_to_string("/proc/thread-self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("voluntary_ctxt_switches:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    /// With a pidfd the loop sleeps once for a hook that writes nothing, woken by its exit, as a
    /// blocking `waitpid` would be; the end of its pipes (which comes before its exit: here long
    /// before, since the shell closes stderr first) does not wake it. Without the held write
    /// ends it slept twice: woken at the pipe's EOF, it found the hook still running and slept
    /// again on the pidfd (on an idle machine that happened in most fires of a `true` hook,
    /// whose pipe reaches EOF a moment before it can be reaped).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_hook_that_writes_nothing_wakes_the_loop_once() {
        if !crate::os::fallback::in_use().contains("pidfd") {
            return; // no pidfd: the loop polls for the exit
        }
        let env = EnvTemplate::new(std::env::vars_os(), &[], &[], Path::new("/"));
        let spawn = Spawn {
            command: "exec 2>&-; sleep 0.1",
            argv: None,
            exec_form: false,
            cwd: Path::new("/"),
            env: &env,
            vars: &[],
            stdin: None,
            capture_stdout: false,
            max_stdout: 0,
            timeout: Duration::from_secs(20),
            cancel: None,
        };
        // The fewest of three runs: another thread of the test process can make this one wait
        // for a lock (a page fault during its mmap) now and then, which counts as a sleep too.
        let fewest = (0..3)
            .map(|_| {
                let before = sleeps();
                let finished = run(&spawn);
                let slept = sleeps() - before;
                assert!(finished.succeeded(), "{finished:?}");
                assert!(finished.stderr.is_empty(), "{finished:?}");
                slept
            })
            .min()
            .unwrap();
        // One sleep while the child starts (posix_spawn waits for its exec), one in `poll`.
        assert!(fewest <= 2, "the firing thread slept {fewest} times for one hook");
    }

    #[test]
    fn anything_shell_like_goes_to_the_shell() {
        for c in [
            "echo hi",
            "exit 3",
            "true x",
            "cd /",
            "A=1 prog",
            "prog > out",
            "prog | cat",
            "prog; x",
            "prog &&x",
            "prog $HOME",
            "prog ~/x",
            "prog *.rs",
            "prog 'a b'",
            "prog \"a\"",
            "prog a\\ b",
            "prog #c",
            "prog\nx",
            "prog `x`",
            "prog (x)",
            "prog {a,b}",
            "prog !x",
            "prog [ab]",
            "prog ?",
            "-x",
            "   ",
        ] {
            assert_eq!(plain_words(c), None, "{c:?}");
        }
    }
}
