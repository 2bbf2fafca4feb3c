//! Claude Code `if` rules through the real engine (docs/dialects/claude.md "Claude Code hooks", `if`): a hook is
//! skipped only when the engine can show its rule does not match. Each test writes a real
//! `.claude/settings.json` in a temporary project whose guard (tests/claude/deny.sh) blocks
//! whenever it runs, so `allowed: false` means the hook ran.

mod common;
use common::process::serial;
use oh_hooks::Engine;
use serde_json::{json, Value};

struct Project {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

fn guard(rule: &str) -> Value {
    let script = format!("{}/tests/claude/deny.sh", env!("CARGO_MANIFEST_DIR"));
    json!({ "type": "command", "command": format!("bash '{script}'"), "if": rule })
}

impl Project {
    /// A project whose PreToolUse guards carry these `if` rules.
    fn with_rules(rules: &[&str]) -> Project {
        let p = Project { home: tempfile::tempdir().unwrap(), cwd: tempfile::tempdir().unwrap() };
        let hooks: Vec<Value> = rules.iter().map(|r| guard(r)).collect();
        let settings = json!({ "hooks": { "PreToolUse": [ { "matcher": "*", "hooks": hooks } ] } });
        std::fs::create_dir_all(p.cwd.path().join(".claude")).unwrap();
        std::fs::write(p.cwd.path().join(".claude/settings.json"), settings.to_string()).unwrap();
        p
    }
    fn engine(&self) -> Engine {
        let options = json!({ "claude": true, "trusted": true, "home": self.home.path(), "cwd": self.cwd.path() });
        Engine::new(Some(&options.to_string())).unwrap()
    }
}

fn fire(engine: &Engine, envelope: Value) -> Value {
    serde_json::from_str(&engine.fire(&envelope.to_string()).to_json()).unwrap()
}

fn bash(command: &str) -> Value {
    json!({ "event": "preToolUse", "toolName": "Bash", "toolInput": { "command": command } })
}

fn read(path: &str) -> Value {
    json!({ "event": "preToolUse", "toolName": "Read", "toolInput": { "file_path": path } })
}

/// The commands among `commands` for which the guard did not run (empty: it ran for all).
fn skipped(engine: &Engine, commands: &[&str]) -> Vec<String> {
    commands
        .iter()
        .filter(|c| {
            let out = fire(engine, bash(c));
            out["allowed"] != false || out["reason"] != "guard ran"
        })
        .map(|c| c.to_string())
        .collect()
}

/// The commands among `commands` for which the guard ran (empty: it was skipped for all).
fn ran(engine: &Engine, envelopes: &[Value]) -> Vec<String> {
    envelopes
        .iter()
        .filter(|e| {
            let out = fire(engine, (*e).clone());
            out["allowed"] != true || !out["hooks"].as_array().unwrap().is_empty()
        })
        .map(|e| e["toolInput"].to_string())
        .collect()
}

/// Every form docs/dialects/claude.md lists as "not fully analysed": the rule's command name appears, so
/// the hook runs. On the version before over-approximation only the plain `rm -rf /`,
/// `FOO=1 rm`, `$(rm …)`, backticks and `case` ran it.
#[test]
fn a_command_the_engine_cannot_rule_out_runs_the_hook() {
    let p = Project::with_rules(&["Bash(rm *)"]);
    let engine = p.engine();
    let forms = [
        "rm -rf /",
        "( rm -rf / )",
        "{ rm -rf /; }",
        "if true; then rm -rf /; fi",
        "while true; do rm -rf /; done",
        "until false; do rm -rf /; done",
        "for f in x; do rm -rf /; done",
        "case x in x) rm -rf /;; esac",
        "! rm -rf /",
        "\\rm -rf /",
        "'rm' -rf /",
        "\"rm\" -rf /",
        "r''m -rf /",
        "/bin/rm -rf /",
        "./rm -rf /",
        "env rm -rf /",
        "env -i PATH=/bin rm -rf /",
        "sudo rm -rf /",
        "sudo -u root rm -rf /",
        "time rm -rf /",
        "nohup rm -rf /",
        "timeout 5 rm -rf /",
        "find / | xargs rm -rf",
        "exec rm -rf /",
        "command rm -rf /",
        "builtin command rm -rf /",
        "nice rm -rf /",
        "nice -n 5 rm -rf /",
        "busybox rm -rf /",
        "bash -c 'rm -rf /'",
        "sh -c \"rm -rf /\"",
        "eval rm -rf /",
        "eval 'rm -rf /'",
        "cat <(rm -rf /)",
        "echo $(rm -rf /)",
        "echo \"$(rm -rf /)\"",
        "echo `rm -rf /`",
        ">x rm -rf /",
        "2>/dev/null rm -rf /",
        "x=rm; $x -rf /",
        "FOO=1 rm -rf /",
        "FOO=1 BAR=2 rm -rf /",
        "GIT_EDITOR=rm git commit",
        "ls && rm -rf /",
        "ls; rm -rf /",
        "ls | rm -rf /",
        "ls\nrm -rf /",
        "ls & rm -rf /",
        "f() { rm -rf /; }; f",
    ];
    assert_eq!(skipped(&engine, &forms), Vec::<String>::new(), "the guard must run for each of these");
}

/// A command whose name is made at run time can be anything, so the hook runs even though the
/// name never appears.
#[test]
fn a_command_name_made_at_run_time_runs_the_hook() {
    let p = Project::with_rules(&["Bash(rm *)"]);
    let engine = p.engine();
    let forms = [
        "x=r; y=m; $x$y -rf /",
        "${CMD} -rf /",
        "\"$c\" -rf /",
        "$(printf r; printf m) -rf /",
        "`echo r`m -rf /",
        "$'\\x72m' -rf /",
        "/bin/r? -rf /",
        "/bin/r[m] -rf /",
        "sudo $x -rf /",
        "eval \"$c\"",
        "bash -c \"$c\"",
        "echo cm -rf / | tr c r | sh",
        "echo cm -rf / | tr c r | bash -s",
        "echo cm | tr c r | xargs -I X X -rf /",
    ];
    assert_eq!(skipped(&engine, &forms), Vec::<String>::new(), "the guard must run for each of these");
}

/// Lines the engine fully analyses (plain words, `;`, `&&`, `||`, `|`, `&`, newlines) keep exact
/// matching, and a line that is not plain still skips when the name never appears in it.
#[test]
fn commands_shown_not_to_match_still_skip() {
    let p = Project::with_rules(&["Bash(rm *)"]);
    let engine = p.engine();
    let commands: Vec<Value> = [
        "ls -la",
        "echo hello",
        "cargo test && git push origin main",
        "rmdir build",
        "npm run format",
        "cat rm.sh",
        "ls | wc -l; echo done",
        // Not plain, but `rm` appears nowhere and no name is made at run time.
        "echo \"$HOME\" > out.txt",
        "( cd src && ls -la )",
        "git log --format='%h %s' | head -n 5",
        "for f in *.txt; do wc -l \"$f\"; done",
    ]
    .iter()
    .map(|c| bash(c))
    .collect();
    assert_eq!(ran(&engine, &commands), Vec::<String>::new(), "the guard must be skipped for each of these");

    // Exact on the rule's own command word: `git status` is not `git push`.
    let p = Project::with_rules(&["Bash(git push *)"]);
    let engine = p.engine();
    let commands: Vec<Value> = ["git status", "git pull && git log", "echo hi"].iter().map(|c| bash(c)).collect();
    assert_eq!(ran(&engine, &commands), Vec::<String>::new());
    assert_eq!(
        skipped(&engine, &["git push", "cargo test && git push origin main", "sudo git push", "(git push)"]),
        Vec::<String>::new()
    );
}

/// Paths are made absolute and normalised (`.`, `..`, repeated `/`, `~`) and also resolved
/// through the file system (symlinks, `/proc/self/root`) before a path rule is matched.
#[test]
fn path_rules_see_the_normalised_path() {
    let p = Project::with_rules(&["Read(//etc/**)", "Read(~/.ssh/**)", "Read(/secret/*)"]);
    let engine = p.engine();
    let home = p.home.path().to_str().unwrap();
    let cwd = p.cwd.path().to_str().unwrap();
    std::fs::create_dir_all(p.cwd.path().join("secret")).unwrap();
    std::fs::create_dir_all(p.cwd.path().join("docs")).unwrap();
    std::os::unix::fs::symlink("/etc", p.cwd.path().join("docs/etc-link")).unwrap();
    let denied: Vec<String> = [
        "/etc/passwd".to_string(),
        "/tmp/../etc/passwd".to_string(),
        "//etc/passwd".to_string(),
        "/etc//passwd".to_string(),
        "/etc/./passwd".to_string(),
        "/./etc/passwd".to_string(),
        "/../../etc/passwd".to_string(),
        "/proc/self/root/etc/passwd".to_string(),
        "docs/etc-link/passwd".to_string(),
        format!("{cwd}/docs/etc-link/hosts"),
        "~/.ssh/id_rsa".to_string(),
        format!("{home}/.ssh/id_rsa"),
        format!("{home}/x/../.ssh/id_rsa"),
        format!("{home}//.ssh/id_rsa"),
        "docs/../secret/key".to_string(),
        format!("{cwd}/./secret/key"),
        "./secret/key".to_string(),
    ]
    .into_iter()
    .filter(|path| fire(&engine, read(path))["allowed"] != false)
    .collect();
    assert_eq!(denied, Vec::<String>::new(), "the guard must run for each of these paths");

    let allowed =
        ran(&engine, &["/etc2/passwd", "/tmp/etc/passwd", "docs/readme.md", "secret.txt", "/ssh/id_rsa"].map(read));
    assert_eq!(allowed, Vec::<String>::new(), "the guard must be skipped for each of these paths");
}

fn thread_cpu() -> std::time::Duration {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) }, 0);
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    std::time::Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

/// `if` rules are compiled when the config loads, and a fire compiles nothing: a 100 KB command
/// of 50,000 subcommands costs the firing thread well under 200 ms of CPU (on the version that
/// compiled a regex per subcommand per fire: 1.5-2.6 s).
#[test]
fn rules_compile_at_load_and_a_huge_command_costs_little() {
    let _serial = serial();
    let p = Project::with_rules(&["Bash(rm *)", "Bash(git push *)", "Read(//etc/**)"]);
    let before_load = oh_hooks::matcher::claude::rules_compiled_on_this_thread();
    let engine = p.engine();
    let at_load = oh_hooks::matcher::claude::rules_compiled_on_this_thread();
    assert!(at_load > before_load, "the rules compile on the thread that loads the config");
    let commands =
        ["a;".repeat(50_000), "ls && ".repeat(16_667) + "ls", "echo $(a);".repeat(9_100), "'a' ;".repeat(25_000)];
    for command in &commands {
        let start = thread_cpu();
        let out = fire(&engine, bash(command));
        let cpu = start.elapsed_since();
        assert_eq!(out["allowed"], true, "{}", &out.to_string()[..200.min(out.to_string().len())]);
        assert_eq!(
            oh_hooks::matcher::claude::rules_compiled_on_this_thread(),
            at_load,
            "a fire compiled a rule ({} bytes of command)",
            command.len()
        );
        println!("{} bytes: {cpu:?} of CPU on the firing thread", command.len());
        assert!(cpu < std::time::Duration::from_millis(200), "{} bytes: {cpu:?} of CPU", command.len());
    }
    // A wildcard command word is tested at every word of each plain simple command.
    let wild = Project::with_rules(&["Bash(*--force*)"]);
    let wild_engine = wild.engine();
    let start = thread_cpu();
    assert_eq!(fire(&wild_engine, bash(&commands[0]))["allowed"], true);
    assert!(start.elapsed_since() < std::time::Duration::from_millis(200));
    assert_eq!(fire(&wild_engine, bash("git push --force-with-lease"))["allowed"], false);
    // A path rule against a long path.
    let long = "/a/..".repeat(20_000) + "/etc/passwd";
    let start = thread_cpu();
    assert_eq!(fire(&engine, read(&long))["allowed"], false);
    assert!(start.elapsed_since() < std::time::Duration::from_millis(200));
}

trait Since {
    fn elapsed_since(&self) -> std::time::Duration;
}

impl Since for std::time::Duration {
    fn elapsed_since(&self) -> std::time::Duration {
        thread_cpu().saturating_sub(*self)
    }
}

/// A settings file of 1 MiB holding 13,000 distinct `if` rules loads within the load bound (64 MiB
/// more memory; with a regex per rule it took +108 MiB) and a fire with a 100 KB command against
/// all of them costs well under a second of CPU (with the command read again per rule: 56 s).
#[test]
fn thirteen_thousand_rules_load_small_and_match_fast() {
    let _serial = serial();
    let hooks: Vec<Value> = (0..13_000)
        .map(|i| json!({ "type": "command", "command": "exit 0", "if": format!("Bash(cmd{i} --flag-{i} *)") }))
        .collect();
    let p = Project::with_rules(&[]);
    let settings = json!({ "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": hooks } ] } });
    std::fs::write(p.cwd.path().join(".claude/settings.json"), settings.to_string()).unwrap();
    let rss = common::process::status_kib("VmRSS");
    let engine = p.engine();
    let grown = common::process::status_kib("VmRSS").saturating_sub(rss);
    println!("13,000 rules: +{grown} KiB at load");
    assert!(grown < 64 * 1024, "+{grown} KiB");
    let start = thread_cpu();
    let out = fire(&engine, bash(&"a;".repeat(50_000)));
    let cpu = start.elapsed_since();
    println!("13,000 rules, 100 KB command: {cpu:?} of CPU");
    assert_eq!(out["allowed"], true);
    assert!(cpu < std::time::Duration::from_secs(1), "{cpu:?}");
}
