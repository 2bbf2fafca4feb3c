//! Every list of the engine's options — the table of docs/options.md, each binding's README
//! and package README, and each binding's option type (index.d.ts, types.go, _types.py) — names
//! exactly the options the engine accepts (`oh_hooks::options::OPTION_NAMES`). A new option
//! fails this test until every list has it; a removed or misspelt one fails it too. The same binary
//! checks the docs themselves: every relative link resolves, and the README stays a guide.

use oh_hooks::options::OPTION_NAMES;
use std::collections::BTreeSet;
use std::path::Path;

/// Options announced in the docs while the engine that accepts them is still on its way (a
/// parallel branch). A name here may be listed without being accepted yet; once the engine has
/// it, it is checked like any other and leaves this list (shutdownTimeoutMs did).
const ANNOUNCED: &[&str] = &[];

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The first backticked word of each table row in the section headed `heading` (up to the next
/// heading of the same or a higher level).
fn table_names(path: &str, heading: &str) -> BTreeSet<String> {
    let text = read(path);
    let level = heading.chars().take_while(|c| *c == '#').count();
    let mut lines = text.lines().skip_while(|l| l.trim_end() != heading);
    assert!(lines.next().is_some(), "{path} has no section {heading:?}");
    let mut names = BTreeSet::new();
    for line in lines {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes > 0 && hashes <= level && line[hashes..].starts_with(' ') {
            break;
        }
        let Some(row) = line.strip_prefix("| `") else { continue };
        if let Some(end) = row.find('`') {
            names.insert(row[..end].to_string());
        }
    }
    names
}

/// The body of the first block starting with `start` up to the line `end`.
fn block<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let at = text.find(start).unwrap_or_else(|| panic!("no {start:?}"));
    let rest = &text[at + start.len()..];
    &rest[..rest.find(end).unwrap_or_else(|| panic!("no end {end:?} after {start:?}"))]
}

fn check(what: &str, got: BTreeSet<String>) {
    let engine: BTreeSet<String> = OPTION_NAMES.iter().map(|s| s.to_string()).collect();
    let missing: Vec<&String> = engine.difference(&got).collect();
    let unknown: Vec<&String> =
        got.iter().filter(|n| !engine.contains(*n) && !ANNOUNCED.contains(&n.as_str())).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "{what}: missing options the engine accepts: {missing:?}; options the engine does not accept: {unknown:?}"
    );
}

#[test]
fn readme_option_tables_list_every_option() {
    check("docs/options.md \"## The option table\"", table_names("docs/options.md", "## The option table"));
    check("bindings/node/README.md", table_names("bindings/node/README.md", "## Options"));
    check("bindings/python/README.md", table_names("bindings/python/README.md", "## Options"));
    check("bindings/go/README.md", table_names("bindings/go/README.md", "### Options"));
}

#[test]
fn binding_option_types_have_every_option() {
    let dts = read("bindings/node/index.d.ts");
    let body = block(&dts, "export interface HooksOptions {", "\n}");
    let names = body
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let name = l.split(['?', ':']).next()?;
            (!name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric())
                && l[name.len()..].starts_with(['?', ':']))
            .then(|| name.to_string())
        })
        .collect();
    check("bindings/node/index.d.ts HooksOptions", names);

    let go = read("bindings/go/types.go");
    let body = block(&go, "type Options struct {", "\n}");
    let names = body
        .lines()
        .filter_map(|l| {
            let tag = l.split("`json:\"").nth(1)?;
            Some(tag.split([',', '"']).next()?.to_string())
        })
        .collect();
    check("bindings/go/types.go Options", names);

    let py = read("bindings/python/oh_hooks/_types.py");
    let body = block(&py, "class Options(TypedDict, total=False):", "\n\n\n");
    let names = body
        .lines()
        .filter_map(|l| {
            let name = l.strip_prefix("    ")?.split(':').next()?;
            (l.contains(": ") && name.chars().all(|c| c.is_ascii_alphanumeric()) && !name.is_empty())
                .then(|| name.to_string())
        })
        .collect();
    check("bindings/python/oh_hooks/_types.py Options", names);
}

#[test]
fn python_keyword_options_map_every_option() {
    // `Hooks(default_timeout_ms=...)`: the snake_case keywords map onto every option.
    let py = read("bindings/python/oh_hooks/_hooks.py");
    let body = block(&py, "_KEYWORDS = {", "\n}");
    let names = body.lines().filter_map(|l| Some(l.split(": \"").nth(1)?.split('"').next()?.to_string())).collect();
    check("bindings/python/oh_hooks/_hooks.py _KEYWORDS", names);
}

/// Every Markdown file of the docs: README.md, each file under docs/, each binding's README.
fn doc_files() -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec!["README.md".to_string()];
    walk(&root.join("docs"), root, &mut files);
    for binding in ["node", "go", "python"] {
        files.push(format!("bindings/{binding}/README.md"));
    }
    files
}

/// The text of `text` outside fenced code blocks, with inline code spans blanked out (a link
/// shown as code is not a link; a code span may run across a line break).
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line);
        }
    }
    lines.join("\n").split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// GitHub's anchor for each heading of a Markdown text: lower case, punctuation dropped, spaces
/// as hyphens, a repeated heading numbered (`-1`, `-2`).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if fenced || hashes == 0 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let slug: String = line[hashes..]
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = slug.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{slug}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// Every relative link of the docs points at a file of the repository, and every `#anchor` at a
/// heading of its page: a page moved or a section renamed breaks this test, not the reader.
#[test]
fn every_relative_link_in_the_docs_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    let mut links = 0;
    for file in doc_files() {
        let text = read(&file);
        let dir = Path::new(&file).parent().unwrap().to_path_buf();
        // Link texts may span lines, so the prose is searched as one string.
        let body = prose(&text);
        let mut rest = body.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = rest[..end].trim();
            rest = &rest[end..];
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            links += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
            let page = if path.is_empty() { file.clone() } else { dir.join(path).to_string_lossy().into_owned() };
            let full = root.join(&page);
            if !full.exists() {
                broken.push(format!("{file}: ({target}): {page} does not exist"));
            } else if !anchor.is_empty() && !anchors(&read(&page)).contains(anchor) {
                broken.push(format!("{file}: ({target}): {page} has no heading with the anchor #{anchor}"));
            }
        }
    }
    assert!(links > 50, "only {links} relative links found: is the link scanner still reading the docs?");
    assert!(broken.is_empty(), "broken links in the docs:\n{}", broken.join("\n"));
}

/// The README is the guide; the references live in docs/ (README.md's "Where to read on").
#[test]
fn the_readme_stays_a_guide() {
    let lines = read("README.md").lines().count();
    assert!(lines < 500, "README.md has {lines} lines: move reference material to a docs/ page");
}
