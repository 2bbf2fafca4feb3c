//! What a shell command line may run, as far as a one-pass lexer can tell — for `if` rules
//! (docs/dialects/claude.md "Claude Code hooks", `if`), which must never skip a hook for a command they cannot
//! read. Nothing here is a shell: it only has to be right in one direction. Every answer is
//! either exact (for command lines made only of plain words and `;`, `&&`, `||`, `|`, `&`,
//! newlines) or errs towards "this may run that".
//!
//! Everything is one pass over the text plus one substring search per question, so a hostile
//! 100 KB command with 50,000 subcommands costs milliseconds.

use std::collections::{HashMap, HashSet};

/// Characters that mean nothing to `sh` inside a word: a command made only of these, blanks and
/// the separators `;`, `&`, `|` splits into simple commands and words exactly as `sh` splits it.
fn plain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-./=:,+@%^".contains(c)
}

/// Characters that may be part of a command name; a name "appears" in a text where it stands
/// between two characters that are not (or the text's ends): `rm` appears in `/bin/rm`, `x=rm`,
/// `'rm'`, `$(rm)`, `{rm,}`; it does not in `format` or `rm.sh`.
fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-.+".contains(c)
}

/// One command line, read once.
pub struct Command<'a> {
    text: &'a str,
    /// Only plain words and separators: `simple_commands` is what `sh` runs, word for word.
    pub plain: bool,
    /// The text with every quote and backslash removed (`\rm`, `'r'm`, `"rm"` all read `rm`).
    flat: String,
    /// Some command's name is made at run time (see [`computes_a_name`]).
    pub computed: bool,
}

impl<'a> Command<'a> {
    pub fn read(text: &'a str) -> Command<'a> {
        let plain = text.chars().all(|c| plain_char(c) || matches!(c, ' ' | '\t' | '\n' | ';' | '&' | '|'));
        let flat =
            if plain { String::new() } else { text.chars().filter(|c| !matches!(c, '\\' | '\'' | '"')).collect() };
        Command { text, plain, flat, computed: computes_a_name(text) }
    }

    /// The simple commands of a plain command line, each as its words (leading `VAR=x`
    /// assignments included). Empty when the line is not plain.
    pub fn simple_commands(&self) -> impl Iterator<Item = Vec<&'a str>> + '_ {
        let text = if self.plain { self.text } else { "" };
        text.split([';', '&', '|', '\n'])
            .map(|s| s.split([' ', '\t']).filter(|w| !w.is_empty()).collect::<Vec<_>>())
            .filter(|w| !w.is_empty())
    }

    /// Whether `name` appears anywhere in the line as a name: in the text as written or with
    /// quotes and backslashes removed.
    pub fn mentions(&self, name: &str) -> bool {
        mentions(self.text, name) || (!self.plain && mentions(&self.flat, name))
    }
}

/// A command line read once for every rule of a fire: which names it runs and mentions, so each
/// rule costs a few lookups whatever the line's length.
pub struct Line {
    pub plain: bool,
    pub computed: bool,
    /// Not plain: every name of the text, as written and with quotes and backslashes removed.
    mentioned: HashSet<String>,
    flat: String,
    /// Plain: each simple command's words after its leading assignments, joined by one space,
    /// by command word; and all of them in order.
    by_command: HashMap<String, Vec<String>>,
    simple: Vec<String>,
    /// Plain: names in a simple command other than its command word (in an assignment, an
    /// argument), and names inside a command word that is not just that name (`/bin/rm`), with
    /// those command words.
    elsewhere: HashSet<String>,
    inside_command_words: HashMap<String, HashSet<String>>,
}

/// The names of a text: its maximal runs of name characters.
fn names(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !name_char(c)).filter(|n| !n.is_empty())
}

/// Whether `mentions` can be answered from the sets of names.
fn is_a_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(name_char)
}

impl Line {
    pub fn read(text: &str) -> Line {
        let command = Command::read(text);
        let mut line = Line {
            plain: command.plain,
            computed: command.computed,
            mentioned: HashSet::new(),
            flat: String::new(),
            by_command: HashMap::new(),
            simple: Vec::new(),
            elsewhere: HashSet::new(),
            inside_command_words: HashMap::new(),
        };
        if !command.plain {
            line.mentioned = names(text).chain(names(&command.flat)).map(str::to_string).collect();
            line.flat = command.flat;
            return line;
        }
        for words in command.simple_commands() {
            let start = words.iter().position(|w| !is_assignment(w)).unwrap_or(words.len());
            for w in &words[..start] {
                line.elsewhere.extend(names(w).map(str::to_string));
            }
            let Some(&first) = words.get(start) else { continue };
            for n in names(first).filter(|n| *n != first) {
                line.inside_command_words.entry(n.to_string()).or_default().insert(first.to_string());
            }
            for w in &words[start + 1..] {
                line.elsewhere.extend(names(w).filter(|n| *n != first).map(str::to_string));
            }
            let joined = words[start..].join(" ");
            line.by_command.entry(first.to_string()).or_default().push(joined.clone());
            line.simple.push(joined);
        }
        line
    }

    /// Not plain: `name` appears in the line (`text`: the line as written).
    pub fn mentions(&self, text: &str, name: &str) -> bool {
        if is_a_name(name) {
            self.mentioned.contains(name)
        } else {
            mentions(text, name) || mentions(&self.flat, name)
        }
    }

    /// Plain: the simple commands whose command word is `word`, after their assignments.
    pub fn commands_of(&self, word: &str) -> &[String] {
        self.by_command.get(word).map_or(&[], Vec::as_slice)
    }

    /// Plain: every simple command, after its assignments.
    pub fn simple_commands(&self) -> &[String] {
        &self.simple
    }

    /// Plain: `name` appears other than as the command word `word` itself: in an assignment, an
    /// argument of another command, or inside another command word (`/bin/rm`).
    pub fn mentions_besides(&self, text: &str, name: &str, word: &str) -> bool {
        if !is_a_name(name) {
            // Not a plain name: read the words again (rare: such rules are rare).
            return Command::read(text).simple_commands().any(|words| {
                let start = words.iter().position(|w| !is_assignment(w)).unwrap_or(words.len());
                if words.get(start) == Some(&word) {
                    words[..start].iter().any(|w| mentions(w, name))
                } else {
                    words.iter().any(|w| mentions(w, name))
                }
            });
        }
        self.elsewhere.contains(name)
            || self.inside_command_words.get(name).is_some_and(|words| words.iter().any(|w| w != word))
    }
}

/// `name` occurs in `text` with no name character on either side.
pub fn mentions(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    text.match_indices(name).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(name_char)
            && !text[i + name.len()..].chars().next().is_some_and(name_char)
    })
}

/// `VAR=value` (a shell assignment word).
pub fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Words that start a compound command or modify the next one: the command is after them.
const RESERVED: &[&str] =
    &["!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time", "coproc", "exec"];

/// Programs that run (or build and run) a command from their arguments: an argument of theirs
/// made at run time may be a command name. A missing entry only loses that one catch; the
/// "name appears" rule still holds for them.
const RUNS_ARGUMENTS: &[&str] = &[
    "sudo", "doas", "su", "runuser", "env", "exec", "command", "builtin", "nohup", "nice", "ionice", "chrt", "taskset",
    "time", "timeout", "stdbuf", "setsid", "unbuffer", "nsenter", "chroot", "flock", "watch", "strace", "ltrace",
    "xargs", "parallel", "find", "busybox", "eval", "source", ".", "trap", "alias", "script", "ssh", "sh", "bash",
    "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "python", "python3", "perl", "ruby", "node", "php",
    "lua", "awk", "gawk",
];

/// Programs that read the program they run from standard input when given no operand
/// (`… | sh`): what they run is whatever the pipeline made.
const READS_PROGRAM_FROM_STDIN: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "python", "python3", "perl", "ruby",
    "node", "php", "lua", "source", ".",
];

#[derive(Default)]
struct Word {
    /// The word without its quotes (expansions kept as written).
    flat: String,
    /// Holds an expansion, a substitution or an unquoted glob or brace: its value is made at run
    /// time.
    dynamic: bool,
    /// The target of a redirection (`>x`), not an argument.
    redirect: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Quote {
    None,
    Single,
    Double,
}

/// One nesting level: `$(…)`, backticks, `(…)`, `<(…)`; the outer command resumes at its closer.
struct Frame {
    tick: bool,
    quote: Quote,
    words: Vec<Word>,
    word: Option<Word>,
}

/// Whether some simple command's name is made at run time, so no rule can tell what it runs:
/// its command word holds an expansion (`$x`, `$(…)`, `` `…` ``, `$'…'`, a glob or brace), a
/// program of [`RUNS_ARGUMENTS`] gets an argument made at run time (`sudo $x`, `eval "$c"`,
/// `sh -c "$c"`), a shell or interpreter reads its program from stdin (`… | sh`), or `xargs` /
/// `parallel` put input into the command (`-I`, `-i`, `--replace`, `-J`).
pub fn computes_a_name(text: &str) -> bool {
    let mut computed = false;
    let mut words: Vec<Word> = Vec::new();
    let mut word: Option<Word> = None;
    let mut quote = Quote::None;
    let mut stack: Vec<Frame> = Vec::new();
    let mut redirect_next = false;
    let mut chars = text.chars().peekable();

    fn end_word(word: &mut Option<Word>, words: &mut Vec<Word>, redirect_next: &mut bool) {
        if let Some(mut w) = word.take() {
            w.redirect = std::mem::take(redirect_next);
            words.push(w);
        }
    }
    fn end_command(words: &mut Vec<Word>, computed: &mut bool) {
        *computed |= command_computes_a_name(words);
        words.clear();
    }

    while let Some(c) = chars.next() {
        let open = |w: &mut Option<Word>| {
            w.get_or_insert_with(Word::default);
        };
        match quote {
            Quote::Single => match c {
                '\'' => quote = Quote::None,
                c => word.get_or_insert_with(Word::default).flat.push(c),
            },
            Quote::Double | Quote::None if c == '$' && chars.peek() == Some(&'(') || c == '`' => {
                if c == '$' {
                    chars.next();
                }
                // `…` inside `…` closes it; nested backticks need escapes nobody writes.
                if c == '`' && stack.last().is_some_and(|f| f.tick) {
                    end_word(&mut word, &mut words, &mut redirect_next);
                    end_command(&mut words, &mut computed);
                    let f = stack.pop().unwrap();
                    (words, word, quote) = (f.words, f.word, f.quote);
                    continue;
                }
                open(&mut word);
                word.as_mut().unwrap().dynamic = true;
                stack.push(Frame { tick: c == '`', quote, words: std::mem::take(&mut words), word: word.take() });
                quote = Quote::None;
            }
            Quote::Double => match c {
                '"' => quote = Quote::None,
                '\\' => {
                    if let Some(n) = chars.next() {
                        word.get_or_insert_with(Word::default).flat.push(n);
                    }
                }
                '$' => {
                    let w = word.get_or_insert_with(Word::default);
                    w.dynamic = true;
                    w.flat.push('$');
                }
                c => word.get_or_insert_with(Word::default).flat.push(c),
            },
            Quote::None => match c {
                ' ' | '\t' => end_word(&mut word, &mut words, &mut redirect_next),
                '\n' | ';' => {
                    end_word(&mut word, &mut words, &mut redirect_next);
                    end_command(&mut words, &mut computed);
                }
                '&' | '|' if chars.peek() != Some(&'>') || c == '|' => {
                    end_word(&mut word, &mut words, &mut redirect_next);
                    end_command(&mut words, &mut computed);
                }
                '\'' => {
                    open(&mut word);
                    quote = Quote::Single;
                }
                '"' => {
                    open(&mut word);
                    quote = Quote::Double;
                }
                '\\' => {
                    let w = word.get_or_insert_with(Word::default);
                    if let Some(n) = chars.next() {
                        if n != '\n' {
                            w.flat.push(n);
                        }
                    }
                }
                '#' if word.is_none() => {
                    while chars.peek().is_some_and(|&n| n != '\n') {
                        chars.next();
                    }
                }
                '$' => {
                    let w = word.get_or_insert_with(Word::default);
                    w.dynamic = true;
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                        quote = Quote::Single;
                    } else {
                        w.flat.push('$');
                    }
                }
                '<' | '>' | '&' if chars.peek() == Some(&'(') && c != '&' => {
                    chars.next();
                    open(&mut word);
                    word.as_mut().unwrap().dynamic = true;
                    stack.push(Frame { tick: false, quote, words: std::mem::take(&mut words), word: word.take() });
                }
                '<' | '>' | '&' => {
                    // A redirection; an fd number (`2>`) or `{var}` before it is part of it.
                    if word.as_ref().is_some_and(|w| {
                        !w.flat.is_empty() && (w.flat.chars().all(|d| d.is_ascii_digit()) || w.flat.starts_with('{'))
                    }) {
                        word = None;
                    } else {
                        end_word(&mut word, &mut words, &mut redirect_next);
                    }
                    while chars.peek().is_some_and(|&n| matches!(n, '<' | '>' | '&' | '|' | '-')) {
                        chars.next();
                    }
                    redirect_next = true;
                }
                '(' => {
                    end_word(&mut word, &mut words, &mut redirect_next);
                    stack.push(Frame { tick: false, quote, words: std::mem::take(&mut words), word: None });
                }
                ')' => {
                    end_word(&mut word, &mut words, &mut redirect_next);
                    end_command(&mut words, &mut computed);
                    // A `case` pattern's `)` has no opener: it just ends the pattern.
                    if stack.last().is_some_and(|f| !f.tick) {
                        let f = stack.pop().unwrap();
                        (words, word, quote) = (f.words, f.word, f.quote);
                    }
                }
                '*' | '?' | '[' | '{' | '}' => {
                    let w = word.get_or_insert_with(Word::default);
                    // A lone `{` / `}` is a group's brace, a reserved word.
                    w.dynamic |= !(matches!(c, '{' | '}')
                        && w.flat.is_empty()
                        && chars.peek().map_or(true, |n| n.is_whitespace() || *n == ';'));
                    w.flat.push(c);
                }
                c => word.get_or_insert_with(Word::default).flat.push(c),
            },
        }
    }
    end_word(&mut word, &mut words, &mut redirect_next);
    end_command(&mut words, &mut computed);
    // Unclosed substitutions: judge what they hold and what surrounds them.
    while let Some(f) = stack.pop() {
        let (mut outer, w) = (f.words, f.word);
        if let Some(w) = w {
            outer.push(w);
        }
        end_command(&mut outer, &mut computed);
    }
    computed
}

fn command_computes_a_name(words: &[Word]) -> bool {
    // Skip redirection targets, assignments and reserved words: the command word comes after.
    let skipped =
        |w: &Word| w.redirect || is_assignment(&w.flat) || (!w.dynamic && RESERVED.contains(&w.flat.as_str()));
    let first = words.iter().position(|w| !skipped(w));
    let Some(first) = first else { return false };
    let command = &words[first];
    if command.dynamic {
        return true;
    }
    let name = command.flat.rsplit('/').next().unwrap_or("");
    let rest = &words[first + 1..];
    if RUNS_ARGUMENTS.contains(&name) && rest.iter().any(|w| w.dynamic) {
        return true;
    }
    if READS_PROGRAM_FROM_STDIN.contains(&name)
        && !rest.iter().any(|w| !w.redirect && !w.flat.starts_with('-') && !w.flat.starts_with('+'))
    {
        return true;
    }
    if matches!(name, "xargs" | "parallel")
        && rest.iter().any(|w| ["-I", "-i", "--replace", "-J"].iter().any(|o| w.flat.starts_with(o)))
    {
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_split_exactly() {
        let c = Command::read("cargo test && FOO=1 git push origin main; ls -la | wc -l &");
        assert!(c.plain && !c.computed);
        let cmds: Vec<Vec<&str>> = c.simple_commands().collect();
        assert_eq!(
            cmds,
            vec![
                vec!["cargo", "test"],
                vec!["FOO=1", "git", "push", "origin", "main"],
                vec!["ls", "-la"],
                vec!["wc", "-l"]
            ]
        );
        for not_plain in [
            "( rm )",
            "{ rm; }",
            "! rm",
            "\\rm",
            "'rm'",
            "\"rm\"",
            "echo $(rm)",
            "echo `rm`",
            ">x rm",
            "x=rm; $x",
            "rm *",
            "rm ~",
            "a # c",
        ] {
            assert!(!Command::read(not_plain).plain, "{not_plain}");
        }
    }

    #[test]
    fn names_appear_between_non_name_characters() {
        for (text, yes) in [
            ("rm -rf /", true),
            ("/bin/rm x", true),
            ("x=rm; $x", true),
            ("echo {rm,x}", true),
            ("format disk", false),
            ("rm.sh", false),
            ("charm", false),
            ("rmdir", false),
        ] {
            assert_eq!(Command::read(text).mentions("rm"), yes, "{text}");
        }
        for quoted in ["\\rm", "'rm'", "\"rm\"", "r''m", "r\\m", "\"r\"m"] {
            assert!(Command::read(quoted).mentions("rm"), "{quoted}");
        }
        assert!(Command::read("g++ -o x").mentions("g++"));
    }

    #[test]
    fn computed_names() {
        for yes in [
            "$x -rf /",
            "x=r; y=m; $x$y -rf /",
            "FOO=1 $x",
            ">out $x",
            "sudo -u root $x",
            "eval \"$c\"",
            "bash -c \"$c\"",
            "echo cm | tr c r | sh",
            "base64 -d <<< x | bash -s",
            "echo rm | xargs -I{} {} -rf /",
            "echo rm | xargs -I X X -rf /",
            "$'\\x72m' -rf /",
            "/bin/r? -rf /",
            "( $x )",
            "echo $( $x )",
            "echo \"$( `echo r`m )\"",
            "if true; then $x; fi",
            "cat <( $x )",
        ] {
            assert!(computes_a_name(yes), "{yes}");
        }
        for no in [
            "echo $HOME",
            "ls -la",
            "cat \"$f\" > out",
            "git log --format='%h'",
            "bash script.sh",
            "sh -c 'ls -la'",
            "git ls-files | xargs grep foo",
            "{ ls; }",
            "case $x in a) ls;; esac",
            "2>/dev/null ls",
        ] {
            assert!(!computes_a_name(no), "{no}");
        }
    }

    #[test]
    fn linear_on_hostile_input() {
        let deep = format!("{}x{}", "$(".repeat(50_000), ")".repeat(50_000));
        let many = "a;".repeat(50_000);
        let quotes = "'\"".repeat(50_000);
        let start = std::time::Instant::now();
        for t in [&deep, &many, &quotes] {
            let c = Command::read(t);
            let _ = c.mentions("rm");
            let _ = c.simple_commands().count();
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
