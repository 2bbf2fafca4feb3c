//! Claude Code's hook filters (docs/dialects/claude.md "Claude Code hooks"): which envelope field
//! an event's `matcher` is tested against, and the `if` permission rule of a handler, tested
//! against the tool call. The matcher itself is every dialect's [`super::field::FieldMatcher`].

use super::glob::Glob;
use super::shell;
use crate::event::Event;
use serde_json::{Map, Value};
use std::path::Path;

/// The envelope field (snake_case, Claude Code's spelling) an event's matcher is tested against;
/// `None` for events whose matcher Claude Code ignores.
pub fn matcher_field(event: Event) -> Option<&'static str> {
    Some(match event {
        Event::PreToolUse
        | Event::PostToolUse
        | Event::PostToolUseFailure
        | Event::PermissionRequest
        | Event::PermissionDenied => "tool_name",
        Event::SessionStart | Event::ConfigChange | Event::DirectoryAdded => "source",
        Event::Setup | Event::PreCompact | Event::PostCompact => "trigger",
        Event::Notification => "notification_type",
        Event::SubagentStart | Event::SubagentStop => "agent_type",
        Event::StopFailure => "error",
        Event::InstructionsLoaded => "load_reason",
        Event::Elicitation | Event::ElicitationResult => "mcp_server_name",
        Event::SessionEnd => "reason",
        Event::UserPromptExpansion => "command_name",
        Event::PreModelSwitch | Event::PostModelSwitch => "to_model",
        Event::FileChanged => "file_path",
        _ => return None,
    })
}

/// The events whose hooks may carry `if`; on the others such a hook never runs.
pub fn takes_if(event: Event) -> bool {
    matches!(
        event,
        Event::PreToolUse
            | Event::PostToolUse
            | Event::PostToolUseFailure
            | Event::PermissionRequest
            | Event::PermissionDenied
    )
}

/// One permission rule: `Tool` or `Tool(pattern)`, compiled when the config loads (matching a
/// fire compiles nothing: docs/dialects/claude.md "Claude Code hooks", `if`).
#[derive(Debug, Clone)]
pub struct PermissionRule {
    pub tool: String,
    pub pattern: Option<String>,
    compiled: Option<std::sync::Arc<Compiled>>,
}

impl PartialEq for PermissionRule {
    fn eq(&self, other: &Self) -> bool {
        self.tool == other.tool && self.pattern == other.pattern
    }
}

/// A rule's pattern, read for its tool once.
#[derive(Debug)]
enum Compiled {
    Command(Box<CommandRule>),
    Path(PathRule),
    Domain(Glob),
    /// `WebFetch(pattern)`: the URL; other tools: any top-level string of the input.
    Text(Glob),
}

/// `Bash(pattern)` / `PowerShell(pattern)`.
#[derive(Debug)]
struct CommandRule {
    /// The pattern against one whole simple command (`git push *`; `prefix:*` means `prefix *`).
    exact: Glob,
    /// The pattern without its trailing ` *`, which also matches the bare command (`git push`).
    bare: Option<String>,
    /// The pattern's command word (`git`), `None` when it has a wildcard (`*rm*`, `* --force`).
    name: Option<String>,
    /// Its last path component, the name searched for in commands (`deploy.sh` of `./deploy.sh`).
    base_name: String,
    /// For a wildcard command word: the pattern against any word-suffix of a simple command.
    suffix: Option<Glob>,
}

/// A file tool's gitignore-style pattern: an anchor directory plus a glob under it, or a glob for
/// the file's name at any depth.
#[derive(Debug)]
struct PathRule {
    anchor: Anchor,
    /// Literal leading directories of the pattern (`src/a` of `src/a/*.rs`; may hold `..`),
    /// joined to the anchor and normalised at fire time, when the anchor is known.
    literal: String,
    /// The rest, compiled; `None` when the whole pattern is literal (`//etc/passwd`).
    glob: Option<Glob>,
}

#[derive(Debug, PartialEq)]
enum Anchor {
    Root,
    Home,
    Project,
    Cwd,
    /// No `/` in the pattern: the file's name, at any depth.
    Name,
}

// Counts rule compilations on this thread (tests show a fire compiles nothing).
thread_local!(static COMPILED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) });

/// How many glob patterns this thread has compiled for `if` rules (for tests).
#[doc(hidden)]
pub fn rules_compiled_on_this_thread() -> u64 {
    COMPILED.with(|c| c.get())
}

impl PermissionRule {
    pub fn parse(text: &str) -> Result<PermissionRule, String> {
        let text = text.trim();
        let bad = || {
            format!("`if` rule `{text}` is not a permission rule; expected `Tool` or `Tool(pattern)`, such as `Bash(git *)`")
        };
        let (tool, pattern) = match text.find('(') {
            Some(open) => {
                let inner = text[open + 1..].strip_suffix(')').ok_or_else(bad)?;
                (&text[..open], Some(inner.to_string()))
            }
            None => (text, None),
        };
        let tool = tool.trim();
        if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad());
        }
        let pattern = pattern.filter(|p| !p.is_empty() && p != "*");
        let compiled = match &pattern {
            None => None,
            Some(p) => Some(std::sync::Arc::new(Compiled::new(tool, p).map_err(|e| {
                let head: String = text.chars().take(60).collect();
                let more = if head.len() < text.len() { "…" } else { "" };
                format!("`if` rule `{head}{more}` cannot be compiled ({e})")
            })?)),
        };
        Ok(PermissionRule { tool: tool.to_string(), pattern, compiled })
    }

    /// Whether the hook runs for a tool call: when the call falls under the rule, or when the
    /// engine cannot show it does not (docs/dialects/claude.md "Claude Code hooks", `if`).
    pub fn matches(&self, tool: &str, input: Option<&Map<String, Value>>, dirs: &RuleDirs) -> bool {
        if self.tool != tool {
            return false;
        }
        let Some(compiled) = &self.compiled else { return true };
        let field = |k: &str| input.and_then(|i| i.get(k)).and_then(Value::as_str);
        match (&**compiled, tool) {
            (Compiled::Command(rule), _) => match field("command") {
                Some(command) => rule.matches(command, &dirs.lines),
                // Nothing to analyse: Claude Code runs the hook anyway (best effort).
                None => true,
            },
            (Compiled::Path(rule), _) => {
                match field("file_path").or_else(|| field("notebook_path")).or_else(|| field("path")) {
                    Some(path) => rule.matches(path, dirs),
                    None => true,
                }
            }
            (Compiled::Domain(domain), _) => {
                field("url").map_or(true, |url| host_of(url).is_some_and(|h| domain.is_match(&h)))
            }
            (Compiled::Text(re), "WebFetch") => field("url").map_or(true, |url| re.is_match(url)),
            // Other tools: the pattern against any of the input's top-level strings.
            (Compiled::Text(re), _) => {
                input.map_or(true, |i| i.values().filter_map(Value::as_str).any(|s| re.is_match(s)))
            }
        }
    }
}

impl Compiled {
    fn new(tool: &str, pattern: &str) -> Result<Compiled, String> {
        Ok(match tool {
            "Bash" | "PowerShell" => Compiled::Command(Box::new(CommandRule::new(pattern)?)),
            "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Glob" | "Grep" | "LS" => {
                Compiled::Path(PathRule::new(pattern)?)
            }
            "WebFetch" => match pattern.strip_prefix("domain:") {
                Some(domain) => Compiled::Domain(compile_glob(domain, true, "^")?),
                None => Compiled::Text(compile_glob(pattern, true, "^")?),
            },
            _ => Compiled::Text(compile_glob(pattern, true, "^")?),
        })
    }
}

impl CommandRule {
    fn new(pattern: &str) -> Result<CommandRule, String> {
        let pattern = match pattern.strip_suffix(":*") {
            Some(prefix) => format!("{prefix} *"),
            None => pattern.to_string(),
        };
        let word = pattern.split([' ', '\t']).next().unwrap_or("");
        let wild = word.is_empty() || word.contains(['*', '?']);
        Ok(CommandRule {
            exact: compile_glob(&pattern, true, "^")?,
            bare: pattern.strip_suffix(" *").map(str::to_string),
            name: (!wild).then(|| word.to_string()),
            base_name: word.rsplit('/').next().unwrap_or(word).to_string(),
            suffix: if wild { Some(compile_glob(&pattern, true, "(?:^| )")?) } else { None },
        })
    }

    /// Exact on a plain command line whose simple command starts with the rule's own command
    /// word; otherwise the hook runs whenever the rule's command name appears in the line, or
    /// some command's name is made at run time. See docs/dialects/claude.md "Claude Code hooks", `if`.
    fn matches(&self, command: &str, lines: &LineCache) -> bool {
        let line = lines.read(command);
        if line.computed {
            return true;
        }
        let Some(name) = &self.name else {
            // A wildcard command word can be any name: only a plain line can be judged.
            return !line.plain
                || line
                    .simple_commands()
                    .iter()
                    .any(|text| self.suffix.as_ref().is_some_and(|g| g.is_match(text)) || self.exact.is_match(text));
        };
        if !line.plain {
            return line.mentions(command, &self.base_name);
        }
        line.commands_of(name)
            .iter()
            .any(|text| self.exact.is_match(text) || self.bare.as_deref() == Some(text.as_str()))
            || line.mentions_besides(command, &self.base_name, name)
    }
}

/// The command line of this fire, read once for all its rules.
#[derive(Default)]
pub struct LineCache(std::cell::RefCell<Option<(usize, usize, std::rc::Rc<shell::Line>)>>);

impl LineCache {
    fn read(&self, command: &str) -> std::rc::Rc<shell::Line> {
        // The input is borrowed for the whole fire's matching, so its address and length name it.
        let key = (command.as_ptr() as usize, command.len());
        let mut slot = self.0.borrow_mut();
        if let Some((ptr, len, line)) = &*slot {
            if (*ptr, *len) == key {
                return line.clone();
            }
        }
        let line = std::rc::Rc::new(shell::Line::read(command));
        *slot = Some((key.0, key.1, line.clone()));
        line
    }
}

/// Directories path patterns are relative to.
pub struct RuleDirs<'a> {
    pub cwd: &'a Path,
    pub project: &'a Path,
    pub home: Option<&'a Path>,
    /// Build one per fire: every rule of the fire shares one reading of the command line.
    pub lines: LineCache,
}

impl PathRule {
    /// Gitignore-style: `//abs` is absolute, `~/x` under home, `/x` under the project root, one
    /// with another `/` under `cwd` (`./` optional), and one without any `/` matches a file name
    /// at any depth. `**` crosses directories, `*` and `?` do not.
    fn new(pattern: &str) -> Result<PathRule, String> {
        let (anchor, rest) = if let Some(abs) = pattern.strip_prefix("//") {
            (Anchor::Root, abs)
        } else if let Some(rest) = pattern.strip_prefix("~/") {
            (Anchor::Home, rest)
        } else if let Some(rest) = pattern.strip_prefix('/') {
            (Anchor::Project, rest)
        } else if pattern.contains('/') {
            (Anchor::Cwd, pattern)
        } else {
            return Ok(PathRule {
                anchor: Anchor::Name,
                literal: String::new(),
                glob: Some(compile_glob(pattern, false, "^")?),
            });
        };
        // The leading directories without a wildcard stay text; the rest is one glob.
        let segments: Vec<&str> = rest.split('/').collect();
        let literal_count = segments.iter().take_while(|s| !s.contains(['*', '?'])).count();
        let literal = segments[..literal_count].join("/");
        let glob = if literal_count == segments.len() {
            None
        } else {
            let tail = segments[literal_count..].join("/");
            Some(compile_glob(&tail, false, "^")?)
        };
        Ok(PathRule { anchor, literal, glob })
    }

    fn matches(&self, path: &str, dirs: &RuleDirs) -> bool {
        let files = path_forms(path, dirs);
        if self.anchor == Anchor::Name {
            let glob = self.glob.as_ref().expect("a name pattern is a glob");
            return files.iter().any(|f| glob.is_match(f.rsplit('/').next().unwrap_or(f)));
        }
        let anchor = match self.anchor {
            Anchor::Root => Some(Path::new("/")),
            Anchor::Home => dirs.home,
            Anchor::Project => Some(dirs.project),
            Anchor::Cwd | Anchor::Name => Some(dirs.cwd),
        };
        // No home: a `~/` rule cannot be placed; run the hook rather than guess.
        let Some(anchor) = anchor else { return true };
        let bases = dir_forms(anchor, &self.literal);
        files.iter().any(|file| {
            bases.iter().any(|base| match &self.glob {
                None => file == base,
                Some(glob) => {
                    let under = if base == "/" {
                        file.strip_prefix('/')
                    } else {
                        file.strip_prefix(base.as_str()).and_then(|r| r.strip_prefix('/'))
                    };
                    under.is_some_and(|rest| glob.is_match(rest))
                }
            })
        })
    }
}

/// The forms of a tool's path a rule is tested against: the path made absolute (`~` is home, a
/// relative one is under `cwd`) and normalised as text (`.`, `..`, repeated `/`), and, when it
/// differs, what the file system resolves it to (symlinks, `/proc/self/root`); for a file that
/// does not exist yet, its resolved directory plus its name.
fn path_forms(path: &str, dirs: &RuleDirs) -> Vec<String> {
    let absolute = if path == "~" || path.starts_with("~/") {
        match dirs.home {
            Some(home) => format!("{}/{}", home.display(), &path[1..]),
            None => format!("{}/{path}", dirs.cwd.display()),
        }
    } else if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{}/{path}", dirs.cwd.display())
    };
    let mut forms = vec![normalise(&absolute)];
    if let Some(real) = resolved(&absolute) {
        if !forms.contains(&real) {
            forms.push(real);
        }
    }
    forms
}

/// An anchor directory joined with a rule's literal directories, as text and as resolved.
fn dir_forms(anchor: &Path, literal: &str) -> Vec<String> {
    let joined = format!("{}/{literal}", anchor.display());
    let mut forms = vec![normalise(&joined)];
    if let Some(real) = resolved(&joined) {
        if !forms.contains(&real) {
            forms.push(real);
        }
    }
    forms
}

/// `realpath`, or for a missing file its directory's plus its name. Paths longer than the
/// kernel's `PATH_MAX` name no file a tool can open, so they are not looked up.
fn resolved(absolute: &str) -> Option<String> {
    if absolute.len() > 4096 || absolute.contains('\0') {
        return None;
    }
    let path = Path::new(absolute);
    if let Ok(real) = std::fs::canonicalize(path) {
        return real.to_str().map(str::to_string);
    }
    let normal = normalise(absolute);
    let (dir, name) = normal.rsplit_once('/')?;
    let real = std::fs::canonicalize(if dir.is_empty() { "/" } else { dir }).ok()?;
    Some(format!("{}/{name}", real.to_str()?.trim_end_matches('/')))
}

/// An absolute path with `.`, `..` and repeated `/` resolved as text (`..` at the root stays at
/// the root, as the kernel does).
pub fn normalise(absolute: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in absolute.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let mut out = String::with_capacity(absolute.len());
    for p in &parts {
        out.push('/');
        out.push_str(p);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = host.split(':').next()?;
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Compiles a glob (see [`Glob`]): `**` any text; `*` any text (without `/` unless
/// `star_crosses`); `?` one character; everything else literal. `start`: `"^"` anchors it at
/// the text's start, `"(?:^| )"` at any word.
fn compile_glob(pattern: &str, star_crosses: bool, start: &str) -> Result<Glob, String> {
    COMPILED.with(|c| c.set(c.get() + 1));
    Glob::new(pattern, star_crosses, start != "^")
}

#[cfg(test)]
fn glob(pattern: &str, text: &str, star_crosses: bool) -> bool {
    compile_glob(pattern, star_crosses, "^").is_ok_and(|r| r.is_match(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dirs() -> RuleDirs<'static> {
        RuleDirs {
            cwd: Path::new("/repo"),
            project: Path::new("/repo"),
            home: Some(Path::new("/home/u")),
            lines: LineCache::default(),
        }
    }

    fn rule(r: &str, tool: &str, input: Value) -> bool {
        PermissionRule::parse(r).unwrap().matches(tool, input.as_object(), &dirs())
    }

    #[test]
    fn if_rules() {
        assert!(rule("Bash(git *)", "Bash", json!({"command": "git status"})));
        assert!(rule("Bash(git *)", "Bash", json!({"command": "cd x && FOO=1 git push"})), "each subcommand");
        assert!(rule("Bash(git *)", "Bash", json!({"command": "echo $(git log)"})));
        assert!(!rule("Bash(git *)", "Bash", json!({"command": "gitk"})));
        assert!(!rule("Bash(git *)", "Edit", json!({"command": "git status"})), "tool name first");
        assert!(rule("Bash(npm run test:*)", "Bash", json!({"command": "npm run test -- x"})));
        assert!(rule("Bash(rm -rf /)", "Bash", json!({"command": "rm -rf /"})));
        assert!(!rule("Bash(rm -rf /)", "Bash", json!({"command": "rm -rf /tmp"})));
        assert!(rule("Bash", "Bash", json!({})));
        assert!(rule("Edit(src/**)", "Edit", json!({"file_path": "/repo/src/a/b.rs"})));
        assert!(!rule("Edit(src/**)", "Edit", json!({"file_path": "/repo/lib/src/b.rs"})));
        assert!(rule("Read(*.env)", "Read", json!({"file_path": "/repo/config/.env"})), "any depth");
        assert!(rule("Read(.env)", "Read", json!({"file_path": "/x/.env"})));
        assert!(!rule("Read(*.env)", "Read", json!({"file_path": "/repo/env.txt"})));
        assert!(rule("Read(~/.ssh/*)", "Read", json!({"file_path": "/home/u/.ssh/id_rsa"})));
        assert!(rule("Read(//etc/**)", "Read", json!({"file_path": "/etc/passwd"})));
        assert!(rule("Edit(/src/*.rs)", "Edit", json!({"file_path": "/repo/src/x.rs"})));
        assert!(!rule("Edit(/src/*.rs)", "Edit", json!({"file_path": "/repo/src/a/x.rs"})), "* stays in a directory");
        assert!(rule("WebFetch(domain:example.com)", "WebFetch", json!({"url": "https://example.com/a"})));
        assert!(!rule("WebFetch(domain:example.com)", "WebFetch", json!({"url": "https://evil.com/example.com"})));
        assert!(rule("mcp__db__query(*select*)", "mcp__db__query", json!({"sql": "select 1"})));
        let long = PermissionRule::parse(&format!("Bash({})", "x".repeat(5000))).unwrap_err();
        assert!(long.contains("5000 bytes long; expected at most 4096") && long.len() < 200, "{long}");
        for bad in ["", "Bash(", "(x)", "Ba sh(x)"] {
            assert!(PermissionRule::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn bash_rules_over_approximate() {
        let bash = |r: &str, c: &str| rule(r, "Bash", json!({ "command": c }));
        for runs in
            ["sudo rm -rf /", "( rm -rf / )", "\\rm x", "/bin/rm x", "x=rm; $x", "$a$b x", "echo cm | tr c r | sh"]
        {
            assert!(bash("Bash(rm *)", runs), "{runs}");
        }
        for skips in ["ls -la", "echo hello", "rmdir x", "( ls )", "echo \"$HOME\""] {
            assert!(!bash("Bash(rm *)", skips), "{skips}");
        }
        assert!(!bash("Bash(git push *)", "git status"), "exact on the rule's own command word");
        assert!(bash("Bash(git push *)", "sudo git status"), "the name appears after another command word");
        assert!(bash("Bash(*--force*)", "( ls )"), "a wildcard command word: every line not fully analysed");
        assert!(!bash("Bash(*--force*)", "ls -la"));
        assert!(bash("Bash(r? *)", "sudo rm x"), "a wildcard command word is tried at every word");
    }

    #[test]
    fn paths_are_normalised_and_rules_compiled_once() {
        assert_eq!(normalise("/tmp/../etc//passwd"), "/etc/passwd");
        assert_eq!(normalise("/../../x/./y/"), "/x/y");
        assert_eq!(normalise("/.."), "/");
        let before = rules_compiled_on_this_thread();
        let r = PermissionRule::parse("Read(//etc/**)").unwrap();
        let compiled = rules_compiled_on_this_thread();
        assert_eq!(compiled, before + 1);
        for path in ["/tmp/../etc/passwd", "//etc/passwd", "/etc/./x", "/../etc/x"] {
            assert!(r.matches("Read", json!({ "file_path": path }).as_object(), &dirs()), "{path}");
        }
        assert!(!r.matches("Read", json!({ "file_path": "/etc2/x" }).as_object(), &dirs()));
        assert_eq!(rules_compiled_on_this_thread(), compiled, "matching compiles nothing");
        assert!(rule("Read(~/.ssh/*)", "Read", json!({"file_path": "~/.ssh/id_rsa"})));
        assert!(rule("Read(~/.ssh/*)", "Read", json!({"file_path": "/home/u/x/../.ssh/id_rsa"})));
        assert!(rule("Edit(./src/*.rs)", "Edit", json!({"file_path": "src/../src/x.rs"})));
        assert!(rule("Read(//etc//../secret)", "Read", json!({"file_path": "/secret"})), "the rule's own `..`");
        let no_home =
            RuleDirs { cwd: Path::new("/repo"), project: Path::new("/repo"), home: None, lines: LineCache::default() };
        assert!(PermissionRule::parse("Read(~/.ssh/*)").unwrap().matches(
            "Read",
            json!({"file_path": "/x"}).as_object(),
            &no_home
        ));
    }

    #[test]
    fn glob_is_not_exponential() {
        let pattern = "*a".repeat(30);
        let start = std::time::Instant::now();
        assert!(!glob(&pattern, &"a".repeat(29), true));
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
