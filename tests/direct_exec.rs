//! Commands with no shell syntax are executed without `/bin/sh`, and nothing a hook can observe
//! changes: PATH lookup, arguments, argv[0], environment, exit codes, missing or non-executable
//! programs, scripts without `#!`. Each case runs the command as written (direct) and with a
//! trailing `;` (which forces the shell) and compares.
//!
//! The tests run one at a time (`serial`): they write the scripts they run, and a script written
//! while another test thread forks is open for writing in that child until it execs, so its own
//! exec fails with ETXTBSY (the engine then falls back to `/bin/sh`, whose PATH walk goes on to
//! the next directory). The portable build's fork made that window wide enough to fail a run.

mod common;
use common::process::serial;
use oh_hooks::os::spawn::EnvTemplate;
use oh_hooks::run::command::{plain_words, run, Finished, Spawn};
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

struct Setup {
    dir: tempfile::TempDir,
    env: Vec<(OsString, OsString)>,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let script = |name: &str, text: &str, mode: u32| {
        let p = bin.join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    // Records how it was called and what it saw, then exits 3.
    script("show", "#!/bin/sh\n{ printf '%s\\n' \"$0\" \"$#\" \"$@\"; env | sort; } > \"$OUT\"\nexit 3\n", 0o755);
    script("noexec", "#!/bin/sh\nexit 0\n", 0o644);
    script("noshebang", "exit 4\n", 0o755);
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let env = vec![
        (OsString::from("PATH"), OsString::from(&path)),
        (OsString::from("PWD"), dir.path().as_os_str().to_owned()),
        (OsString::from("HOME"), OsString::from("/nonexistent")),
    ];
    Setup { dir, env }
}

fn run_one(s: &Setup, command: &str, out: &Path) -> Finished {
    let argv = plain_words(command);
    let mut env = s.env.clone();
    env.push((OsString::from("OUT"), out.as_os_str().to_owned()));
    let env = EnvTemplate::new(env.into_iter(), &[], &[], s.dir.path());
    run(&Spawn {
        command,
        argv: argv.as_deref(),
        exec_form: false,
        cwd: s.dir.path(),
        env: &env,
        vars: &[("OH_EVENT", "preToolUse".to_string())],
        stdin: None,
        capture_stdout: false,
        max_stdout: 1 << 20,
        timeout: Duration::from_secs(10),
        cancel: None,
    })
}

/// Runs `command` direct and through the shell; returns both, having checked the paths taken.
fn both(s: &Setup, command: &str, expect_direct: bool) -> (Finished, Finished, String, String) {
    let out = s.dir.path().join("seen.out");
    let take = || {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let _ = std::fs::remove_file(&out);
        text
    };
    take();
    let direct = run_one(s, command, &out);
    let direct_out = take();
    let shell = run_one(s, &format!("{command};"), &out);
    let shell_out = take();
    assert_eq!(direct.direct, expect_direct, "{command}: direct path taken?");
    assert!(!shell.direct, "a trailing `;` goes through the shell");
    (direct, shell, direct_out, shell_out)
}

#[test]
fn path_lookup_arguments_and_environment_are_identical() {
    let _s = serial();
    let s = setup();
    let (d, sh, d_out, sh_out) = both(&s, "show a b=c --flag x,y", true);
    assert_eq!(d.exit, sh.exit);
    assert_eq!(d.exit, Some(oh_hooks::run::command::Exit::Code(3)));
    assert!(d_out.contains("\n4\na\nb=c\n--flag\nx,y\n"), "{d_out}");
    assert_eq!(d_out, sh_out, "argv[0], arguments and environment");
    assert!(d_out.contains("OH_EVENT=preToolUse") && d_out.contains(&format!("PWD={}", s.dir.path().display())));
}

#[test]
fn relative_paths_run_from_cwd() {
    let _s = serial();
    let s = setup();
    let (d, sh, d_out, sh_out) = both(&s, "./bin/show one", true);
    assert_eq!(d.exit, sh.exit);
    assert_eq!(d_out, sh_out);
}

#[test]
fn missing_non_executable_and_shebangless_behave_as_in_the_shell() {
    let _s = serial();
    let s = setup();
    for (command, code) in [
        ("not-a-program-anywhere x", 127),
        ("./bin/missing", 127),
        ("./bin/noexec", 126),
        ("noexec", 127),
        ("./bin/noshebang", 4),
    ] {
        let (d, sh, _, _) = both(&s, command, false);
        assert_eq!(d.exit, sh.exit, "{command}");
        assert_eq!(
            d.exit,
            Some(oh_hooks::run::command::Exit::Code(code)),
            "{command}: {:?}",
            String::from_utf8_lossy(&d.stderr)
        );
    }
}

#[test]
fn true_and_false() {
    let _s = serial();
    let s = setup();
    for (command, code) in [("true", 0), ("false", 1)] {
        let (d, sh, _, _) = both(&s, command, true);
        assert_eq!(d.exit, sh.exit);
        assert_eq!(d.exit, Some(oh_hooks::run::command::Exit::Code(code)));
    }
}

/// Where PATH found a program is remembered for a second (it is started there without a `stat`,
/// instead of one `stat` per PATH directory before it): a program installed meanwhile in an
/// earlier directory is used from at most a second later, and a remembered program that is gone
/// or no longer executable is looked up again at once, and still run directly. On a build that
/// walks PATH on every spawn the second run already takes `early`.
#[test]
fn a_program_found_in_path_is_remembered_for_a_second() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let (early, late) = (dir.path().join("early"), dir.path().join("late"));
    std::fs::create_dir(&early).unwrap();
    std::fs::create_dir(&late).unwrap();
    let out = dir.path().join("which.out");
    install_which_prog(&late, "late");
    let env = EnvTemplate::new(
        [
            (OsString::from("PATH"), OsString::from(format!("{}:{}:/usr/bin:/bin", early.display(), late.display()))),
            (OsString::from("OUT"), out.as_os_str().to_owned()),
        ]
        .into_iter(),
        &[],
        &[],
        dir.path(),
    );
    let which = || run_which_prog(&env, dir.path(), &out, true);
    assert_eq!(which(), "late");
    install_which_prog(&early, "early");
    assert_eq!(which(), "late", "within the second, the program found first");
    std::thread::sleep(oh_hooks::os::spawn::FOUND_FOR + Duration::from_millis(100));
    assert_eq!(which(), "early", "after it, PATH is walked again");
    std::fs::remove_file(early.join("which-prog")).unwrap();
    assert_eq!(which(), "late", "a remembered program that is gone is looked up again at once");
    std::thread::sleep(oh_hooks::os::spawn::FOUND_FOR + Duration::from_millis(100));
    install_which_prog(&early, "early");
    assert_eq!(which(), "early", "remembered again");
    std::fs::set_permissions(early.join("which-prog"), std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(which(), "late", "a remembered program no longer executable is looked up again at once");
}

/// A relative `PATH` entry (`.`) resolves in each hook's own `cwd`: where a name was found for a
/// hook in one directory must not decide what a hook in another directory runs. Found in the
/// absolute directory from `elsewhere`, the name is still `./which-prog` in `here`, as `sh` would
/// run it (remembering the first lookup ran the absolute one for the second hook too).
#[test]
fn a_relative_path_entry_is_looked_up_in_each_hooks_cwd() {
    let _s = serial();
    let dir = tempfile::tempdir().unwrap();
    let (abs, here, elsewhere) = (dir.path().join("abs"), dir.path().join("here"), dir.path().join("elsewhere"));
    for d in [&abs, &here, &elsewhere] {
        std::fs::create_dir(d).unwrap();
    }
    let out = dir.path().join("which.out");
    install_which_prog(&abs, "absolute");
    install_which_prog(&here, "local");
    let env = EnvTemplate::new(
        [
            (OsString::from("PATH"), OsString::from(format!(".:{}:/usr/bin:/bin", abs.display()))),
            (OsString::from("OUT"), out.as_os_str().to_owned()),
        ]
        .into_iter(),
        &[],
        &[],
        dir.path(),
    );
    let which = |cwd: &Path| run_which_prog(&env, cwd, &out, false);
    assert_eq!(which(&elsewhere), "absolute");
    assert_eq!(which(&here), "local", "`.` comes first in PATH: the hook's own directory's program");
    assert_eq!(which(&elsewhere), "absolute");
}

/// A `which-prog` script in `d` that writes `word` to the file `$OUT` names.
fn install_which_prog(d: &Path, word: &str) {
    let p = d.join("which-prog");
    std::fs::write(&p, format!("#!/bin/sh\necho {word} > \"$OUT\"\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs `which-prog` (looked up in `env`'s PATH) in `cwd` and returns the word it wrote to `out`;
/// `direct`: it must have run without `/bin/sh`.
fn run_which_prog(env: &EnvTemplate, cwd: &Path, out: &Path, direct: bool) -> String {
    let _ = std::fs::remove_file(out);
    let argv = plain_words("which-prog").unwrap();
    let f = run(&Spawn {
        command: "which-prog",
        argv: Some(&argv),
        exec_form: false,
        cwd,
        env,
        vars: &[],
        stdin: None,
        capture_stdout: false,
        max_stdout: 1 << 20,
        timeout: Duration::from_secs(10),
        cancel: None,
    });
    assert!(f.succeeded() && (f.direct || !direct), "{f:?}");
    std::fs::read_to_string(out).unwrap().trim().to_string()
}
