//! Whether a command needs a shell: the one test every dialect's loader uses to run a plain
//! command directly (without `/bin/sh`), so that what runs is what the config says.

/// Shell keywords and builtins: a command starting with one of these means what the shell
/// makes of it, not what a program of that name would do (`echo -e`, `pwd`, `exit 3`).
/// `true` and `false` without arguments are the same either way and stay direct.
const SHELL_WORDS: &[&str] = &[
    "!", ".", ":", "[", "[[", "{", "}", "alias", "bg", "break", "case", "cd", "chdir", "command", "continue", "do",
    "done", "echo", "elif", "else", "esac", "eval", "exec", "exit", "export", "fc", "fg", "fi", "for", "function",
    "getopts", "hash", "if", "in", "jobs", "kill", "local", "printf", "pwd", "read", "readonly", "return", "select",
    "set", "shift", "test", "then", "time", "times", "trap", "true", "false", "type", "ulimit", "umask", "unalias",
    "unset", "until", "wait", "while",
];

/// A command with no shell syntax at all — a program and plain words, nothing the shell would
/// expand, quote, redirect or interpret — split into its words. `None`: the shell must run it.
pub fn plain_words(command: &str) -> Option<Vec<String>> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c);
    if !command.chars().all(|c| plain(c) || c == ' ' || c == '\t') {
        return None;
    }
    let words: Vec<String> = command.split([' ', '\t']).filter(|w| !w.is_empty()).map(str::to_string).collect();
    let first = words.first()?;
    let trivial = (first == "true" || first == "false") && words.len() == 1;
    if first.contains('=') || (SHELL_WORDS.contains(&first.as_str()) && !trivial) || first.starts_with('-') {
        return None;
    }
    Some(words)
}
