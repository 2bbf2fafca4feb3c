//! `oh-hooks`: fire events and check configs from a shell.

// A shell-based harness starts this program once per tool call, so its start-up is on every
// call's path (docs/performance.md "Performance", CLI row). std's own `main` start-up (`lang_start`) reads
// /proc/self/maps with sscanf to place a guard page for the main thread's stack: about 100,000
// instructions, a seventh of a no-match `oh-hooks fire`. This program defines the C `main`
// itself and keeps the two things of `lang_start` it relies on: fds 0-2 are open (so no file
// the engine opens can become stdout), and SIGPIPE is ignored (a closed stdout is an error
// `say!` ignores, not a kill). Arguments still come from std (glibc passes them at load).
#![no_main]

use oh_hooks::dialect::registry::REGISTRY;
use oh_hooks::{Engine, Error, Event};
use serde_json::{Map, Value};
use std::io::{IsTerminal, Read, Write};

/// The exit status (as std's `ExitCode`, which a C `main` cannot return).
#[derive(Clone, Copy)]
struct ExitCode(u8);

impl ExitCode {
    const SUCCESS: ExitCode = ExitCode(0);
}

impl From<u8> for ExitCode {
    fn from(code: u8) -> ExitCode {
        ExitCode(code)
    }
}

#[no_mangle]
extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    // SAFETY: single-threaded here; poll, open and signal have no memory-safety preconditions
    // beyond valid pointers, which these are.
    unsafe {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
        if libc::poll(fds.as_mut_ptr(), 3, 0) >= 0 {
            for p in fds.iter().filter(|p| p.revents & libc::POLLNVAL != 0) {
                let flags = if p.fd == 0 { libc::O_RDONLY } else { libc::O_RDWR };
                if libc::open(c"/dev/null".as_ptr(), flags) != p.fd {
                    libc::abort();
                }
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // A panic ends the program as std's `main` would: its message, then exit status 101.
    let code = std::panic::catch_unwind(real_main).map_or(101, |c| c.0 as std::ffi::c_int);
    let _ = std::io::stdout().flush();
    code
}

/// println! that ignores a closed stdout (`oh-hooks --help | head -1`) instead of panicking;
/// the exit status still says what happened.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// The dialect whose flag `arg` is (`--claude` → `claude`).
fn dialect_flag(arg: &str) -> Option<&'static str> {
    let name = arg.strip_prefix("--")?;
    REGISTRY.iter().map(|d| d.name()).find(|n| *n == name)
}

/// The usage text, with the registered dialects' flags.
fn usage() -> String {
    let flags: Vec<String> = REGISTRY.iter().map(|d| format!("--{} ({})", d.name(), d.title())).collect();
    format!("{USAGE}\nDialect flags: {}.", flags.join(", "))
}

const USAGE: &str = "\
Usage:
  oh-hooks fire  [--config FILE] [--cwd DIR] [--claude] [--trusted|--untrusted] [--wait]
                 [--callback NAME=JSON]... [--options JSON] [ENVELOPE]
  oh-hooks check [--config FILE] [--cwd DIR] [--claude] [--trusted|--untrusted] [--options JSON]
  oh-hooks version
  oh-hooks help             (also -h, --help): this text

  --config FILE   read this YAML or JSON config file instead of the layers
  --cwd DIR       run hooks in DIR and read its layers (DIR/.oh/config.yaml,
                  DIR/.oh/config.local.yaml, ~/.oh/config.yaml); default: current directory.
                  With --config, DIR is still where hooks run and trust is decided.

fire prints the outcome JSON. ENVELOPE is a JSON object such as
  '{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"ls\"}'
and is read from standard input when not given.
  exit status: 0 allowed, 1 denied, 2 error
check validates the config and lists its hooks per event.
  exit status: 0 valid, 2 invalid
--callback NAME=JSON answers every call of the host callback NAME (a `callback: NAME` hook, or
  `prompt` for prompt hooks) with JSON, read like a jsonIO hook's output: e.g.
  --callback 'canUseTool={\"decision\":\"deny\",\"reason\":\"no\"}'; null means no decision.
  Repeatable, one per name.
--claude also reads Claude Code's settings (~/.claude/settings.json, DIR/.claude/settings.json,
  DIR/.claude/settings.local.json) and runs their hooks as Claude Code would. Every dialect has
  such a flag, its option's name (docs/dialects.md): the dialects are listed below.
--options takes the engine options as JSON (see docs/options.md); the flags above override it.
--wait makes fire wait for the hooks of non-blocking events and report them.";

/// What the command line asks for: usage, or a command with its options.
enum Parsed {
    Help,
    Run(Args),
}

struct Args {
    command: String,
    options: Map<String, Value>,
    envelope: Option<String>,
    /// `--callback NAME=JSON`: the fixed answers, as JSON text.
    callbacks: Vec<(String, String)>,
}

/// `--callback NAME=JSON`: NAME non-empty, JSON one valid JSON value (null: no decision).
fn parse_callback(spec: &str) -> Result<(String, String), String> {
    let Some((name, json)) = spec.split_once('=') else {
        return Err(format!("--callback needs NAME=JSON (e.g. canUseTool='{{\"decision\":\"deny\"}}'), got {spec:?}"));
    };
    if name.is_empty() {
        return Err(format!("--callback needs a name before `=`, got {spec:?}"));
    }
    if let Err(e) = serde_json::from_str::<Value>(json) {
        return Err(format!("--callback {name}: the answer is not valid JSON ({e}): {json:?}"));
    }
    Ok((name.to_string(), json.to_string()))
}

/// Answers every call with the same text, as a host that registered NAME would.
struct Fixed(Option<Vec<u8>>);

impl oh_hooks::host::HostFunction for Fixed {
    fn call(&self, _request: &str, call: u64) {
        oh_hooks::host::answer(call, self.0.clone());
    }
}

fn parse_args() -> Result<Parsed, String> {
    let mut args = std::env::args().skip(1);
    let command = args.next().ok_or("missing command")?;
    if matches!(command.as_str(), "help" | "-h" | "--help") {
        return Ok(Parsed::Help);
    }
    let mut options = Map::new();
    let mut flags: Vec<(&str, Value)> = Vec::new();
    let mut envelope = None;
    let mut callbacks: Vec<(String, String)> = Vec::new();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--config" => flags.push(("configPath", Value::String(value("--config")?))),
            "--cwd" => flags.push(("cwd", Value::String(value("--cwd")?))),
            "--trusted" => flags.push(("trusted", Value::Bool(true))),
            "--untrusted" => flags.push(("trusted", Value::Bool(false))),
            "--wait" => flags.push(("waitNonBlocking", Value::Bool(true))),
            // `--<dialect>`: that dialect's option `true` (`--claude`).
            other if dialect_flag(other).is_some() => {
                flags.extend(dialect_flag(other).map(|name| (name, Value::Bool(true))))
            }
            "--callback" if command == "fire" => {
                let (name, json) = parse_callback(&value("--callback")?)?;
                if callbacks.iter().any(|(n, _)| *n == name) {
                    return Err(format!("--callback {name} is given twice: one answer per name"));
                }
                callbacks.push((name, json));
            }
            "--callback" => return Err("--callback is for fire (check runs no hook)".to_string()),
            "--options" => {
                let text = value("--options")?;
                match serde_json::from_str(&text) {
                    Ok(Value::Object(map)) => options = map,
                    _ => return Err(format!("--options needs a JSON object, got {text}")),
                }
            }
            "-h" | "--help" => return Ok(Parsed::Help),
            other if other.starts_with("--") => return Err(format!("unknown flag {other}")),
            other if envelope.is_none() && command == "fire" => envelope = Some(other.to_string()),
            other => return Err(format!("unexpected argument {other}")),
        }
    }
    for (key, value) in flags {
        // `--cursor` with `--options '{"cursor": {"plugins": [...]}}'`: the object form already
        // turns the dialect on, and its files and plugins must not be dropped by the flag.
        if dialect_flag(&format!("--{key}")).is_some() && options.get(key).is_some_and(Value::is_object) {
            continue;
        }
        options.insert(key.to_string(), value);
    }
    Ok(Parsed::Run(Args { command, options, envelope, callbacks }))
}

fn real_main() -> ExitCode {
    // Asked-for usage goes to stdout with success; usage after a mistake goes to stderr.
    let args = match parse_args() {
        Ok(Parsed::Run(a)) => a,
        Ok(Parsed::Help) => {
            say!("{}", usage());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("oh-hooks: {e}\n{}", usage());
            return ExitCode::from(2);
        }
    };
    match args.command.as_str() {
        "fire" => fire(args),
        "check" => check(args),
        "version" | "--version" => {
            say!("oh-hooks {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("oh-hooks: unknown command {other}\n{}", usage());
            ExitCode::from(2)
        }
    }
}

fn engine(args: &Args) -> Result<Engine, ExitCode> {
    let options = Value::Object(args.options.clone()).to_string();
    // `check` reads and reports; it never starts a hook or a worker (docs/reliability.md "Reliability").
    // `fire` starts at most the hooks of one event, in a process that never changes its
    // environment: the environment is read when a hook starts, not by a fire that runs none.
    let engine =
        if args.command == "check" { Engine::inspect(Some(&options)) } else { Engine::new_late_env(Some(&options)) };
    engine.map_err(|e| {
        print_error(&e);
        ExitCode::from(2)
    })
}

fn fire(args: Args) -> ExitCode {
    let envelope = match &args.envelope {
        Some(e) => e.clone(),
        None => {
            // Someone typing `oh-hooks fire` at a prompt would otherwise see nothing happen.
            if std::io::stdin().is_terminal() {
                eprintln!("oh-hooks: reading the envelope from standard input (end it with Ctrl-D; see --help)");
            }
            let mut text = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut text) {
                eprintln!("oh-hooks: cannot read the envelope from standard input: {e}");
                return ExitCode::from(2);
            }
            text
        }
    };
    if envelope.trim().is_empty() {
        let from = if args.envelope.is_some() { "the ENVELOPE argument is empty" } else { "standard input was empty" };
        eprintln!(
            "oh-hooks: no envelope given ({from}): pass a JSON object such as \
             '{{\"event\":\"preToolUse\",\"toolName\":\"Bash\",\"toolArgs\":\"ls\"}}' as the last argument or on standard input"
        );
        return ExitCode::from(2);
    }
    let engine = match engine(&args) {
        Ok(e) => e,
        Err(code) => return code,
    };
    for (name, json) in &args.callbacks {
        let answer = (json.trim() != "null").then(|| json.clone().into_bytes());
        engine.register(name, Some(std::sync::Arc::new(Fixed(answer))));
    }
    let outcome = engine.fire(&envelope);
    say!("{}", outcome.to_json());
    if let Some(error) = &outcome.error {
        eprintln!("oh-hooks: {}: {}", error.code.as_str(), error.message);
        return ExitCode::from(2);
    }
    // Dropping the engine waits for background hooks of non-blocking events.
    drop(engine);
    if outcome.allowed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn check(args: Args) -> ExitCode {
    let engine = match engine(&args) {
        Ok(e) => e,
        Err(code) => return code,
    };
    let files = engine.config_files();
    if files.is_empty() {
        say!("config: inline (--options)");
    }
    for file in files {
        let untrusted = matches!(engine.trust(), oh_hooks::config::trust::Trust::Untrusted(_));
        let state = if !file.exists() {
            "absent"
        } else if untrusted && engine.is_project_file(file) {
            "not loaded: untrusted"
        } else {
            "read"
        };
        say!("config: {} ({state})", file.display());
    }
    if !files.is_empty() && !files.iter().any(|f| f.exists()) {
        say!("no config file found: none of the files above exists, so no hook will run");
    }
    match engine.trust() {
        oh_hooks::config::trust::Trust::Trusted => say!("trust: {}", why_trusted(engine.options())),
        oh_hooks::config::trust::Trust::Untrusted(why) => {
            say!("trust: {why} (the project's files are not read; your own config still applies)")
        }
    }
    for warning in engine.warnings() {
        say!("warning: {warning}");
    }
    if engine.disable_all_hooks() {
        say!("disableAllHooks: true (no hook runs)");
    }
    let events = engine.describe();
    let mut total = 0;
    for (event, hooks) in &events {
        let kind = if event.is_blocking() {
            "blocking".to_string()
        } else {
            // Only the dialects with hooks listed here (a hook's line ends with `(<dialect>: <file>)`).
            let titles: Vec<&str> = REGISTRY
                .iter()
                .filter(|d| d.can_block(*event) && hooks.iter().any(|h| h.contains(&format!("({}: ", d.name()))))
                .map(|d| d.title())
                .collect();
            if titles.is_empty() {
                "non-blocking".to_string()
            } else {
                format!("non-blocking; its {} hooks may block", titles.join(", "))
            }
        };
        say!("{event} ({kind}):");
        for (i, hook) in hooks.iter().enumerate() {
            say!("  [{i}] {hook}");
        }
        total += hooks.len();
    }
    let callbacks = engine.callback_names();
    if !callbacks.is_empty() {
        // The CLI registers nothing: these hooks fail here, and run in a host that registers them.
        say!(
            "callbacks the host must register: {} (\"prompt\" evaluates prompt hooks; without a registration the hook fails)",
            callbacks.join(", ")
        );
    }
    say!("ok: {total} hook(s) on {} of {} events", events.len(), Event::ALL.len());
    ExitCode::SUCCESS
}

/// One line saying why the project is trusted, and, when it is openHarness's open default, how
/// to restrict it: a harness author must not have to guess that no trust store trusts everything.
fn why_trusted(options: &oh_hooks::options::Options) -> String {
    if options.trusted == Some(true) {
        return "trusted: the `trusted` option is true (--trusted)".to_string();
    }
    match oh_hooks::config::trust::store_path(options.home.as_deref()) {
        Some(store) if store.exists() => format!("trusted: {} is listed in {}", options.cwd.display(), store.display()),
        Some(store) => format!(
            "trusted: no {}, so every project is trusted (openHarness's rule); list directories there, or pass trusted (--untrusted, \"trusted\": false), to restrict",
            store.display()
        ),
        None => "trusted".to_string(),
    }
}

/// The error, then the offending line of the file when the error knows it.
fn print_error(e: &Error) {
    eprintln!("oh-hooks: {}: {}", e.code.as_str(), e.message);
    if let (Some(file), Some(line)) = (&e.file, e.line) {
        if let Some(text) =
            std::fs::read_to_string(file).ok().and_then(|t| t.lines().nth(line as usize - 1).map(str::to_string))
        {
            let shown = oh_hooks::envelope::cut_at_char_boundary(&text, 160);
            let more = if shown.len() < text.len() { " …" } else { "" };
            eprintln!("{line:>6} | {shown}{more}");
        }
    }
}
