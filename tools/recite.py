#!/usr/bin/env python3
"""Rewrites the code's citations of README sections to the docs/ page that now holds each section.

The README used to be the whole reference; it is now the guide, and the references live in docs/
(README.md's "Where to read on" lists the pages). Comments and messages in the code cite sections
as `README "Section"` (also `the README's "Section"`, `(README, "Section")`, a list such as
`README "A", "B" and "C"`, and a citation broken across two comment lines). This script turns each
into `docs/<page>.md "Section"` from the table below, prints every change, and fails (exit 1)
naming each citation whose section the table does not know, so that nothing is left pointing at a
section the README no longer has. A citation of a section that stays in the README ("Install",
"The two commands", ...) is left as it is.

    python3 tools/recite.py            # rewrite src/ tests/ bindings/ examples/ bench/ packaging/ fuzz/
    python3 tools/recite.py --check    # only report; exit 1 if anything would change or is unknown
    python3 tools/recite.py src/run    # only these files or folders
    python3 tools/recite.py --notes    # also list mentions of the README that cite no section

Run it from the repository root; it is idempotent (a second run changes nothing).
"""

import os
import re
import sys

# Section cited -> (file that holds it now, the section's name there). "README.md" means the
# section stays in the guide and the citation is left alone.
SECTIONS = {
    # the guide keeps these
    "The two commands": ("README.md", None),
    "A first hook": ("README.md", None),
    "A first program in each language": ("README.md", None),
    "Install": ("README.md", None),
    "Where to read on": ("README.md", None),
    # docs/abi.md
    "Using it from C": ("docs/abi.md", None),
    "The ABI": ("docs/abi.md", None),
    "Host callbacks": ("docs/abi.md", None),
    "Errors": ("docs/abi.md", None),
    # docs/options.md
    "Options": ("docs/options.md", None),
    "Layers": ("docs/options.md", None),
    # docs/config.md (the openHarness config)
    "Config reference": ("docs/config.md", None),
    "Events": ("docs/config.md", None),
    "Matchers": ("docs/config.md", None),
    "Command hooks": ("docs/config.md", None),
    "Persistent hooks": ("docs/config.md", None),
    "HTTP hooks": ("docs/config.md", None),
    "Prompt hooks": ("docs/config.md", None),
    "Callback hooks": ("docs/config.md", None),
    "Trust and the kill switch": ("docs/config.md", None),
    "Trust": ("docs/config.md", "Trust and the kill switch"),
    "Live reload": ("docs/config.md", None),
    "Merging": ("docs/config.md", None),
    "Own hooks first": ("docs/config.md", "Merging"),
    # docs/envelope.md
    "The envelope": ("docs/envelope.md", None),
    "Envelope": ("docs/envelope.md", "The envelope"),
    "One envelope": ("docs/envelope.md", None),
    "Host tools": ("docs/envelope.md", None),
    "Reading answers": ("docs/envelope.md", None),
    "Every answer read tolerantly": ("docs/envelope.md", "Reading answers"),
    "Size never decides": ("docs/envelope.md", None),
    "The outcome": ("docs/envelope.md", None),
    # docs/dialects/claude.md
    "Claude Code hooks": ("docs/dialects/claude.md", None),
    "Turning it on": ("docs/dialects/claude.md", None),
    "What a Claude Code hook gets": ("docs/dialects/claude.md", None),
    "How answers become the outcome": ("docs/dialects/claude.md", None),
    "Not supported, and why": ("docs/dialects/claude.md", None),
    # the other dialects' pages and the seam (their helpers write them)
    "Dialects": ("docs/dialects.md", None),
    "Hook dialects": ("docs/dialects.md", None),
    "Codex hooks": ("docs/dialects/codex.md", None),
    "Cursor hooks": ("docs/dialects/cursor.md", None),
    "GitHub Copilot hooks": ("docs/dialects/copilot.md", None),
    "Copilot hooks": ("docs/dialects/copilot.md", None),
    "Gemini CLI hooks": ("docs/dialects/gemini.md", None),
    "Gemini hooks": ("docs/dialects/gemini.md", None),
    # the rest
    "The CLI": ("docs/cli.md", None),
    "CLI": ("docs/cli.md", "The CLI"),
    "Bindings": ("docs/bindings.md", None),
    "Reliability": ("docs/reliability.md", None),
    "Fuzzing": ("docs/reliability.md", None),
    "Performance": ("docs/performance.md", None),
    "Decisions": ("docs/decisions.md", None),
    "Divergences from openHarness's code": ("docs/decisions.md", None),
    "Decisions where the contract is silent": ("docs/decisions.md", "Decisions where the rules are silent"),
    "Layout": ("docs/layout.md", None),
    "Packaging": ("docs/packaging.md", None),
}

# Mentions of the README that name no section but mean a page that moved: exact text -> new text.
LITERAL = {
    "/// README's option list are checked against (tests/it/option_lists.rs).":
        "/// docs/options.md's option table are checked against (tests/it/option_lists.rs).",
    "--options takes the engine options as JSON (see README);":
        "--options takes the engine options as JSON (see docs/options.md);",
    "engine options (see the README);": "engine options (see docs/options.md);",
    "Every form the README lists as \"not fully analysed\"":
        "Every form docs/dialects/claude.md lists as \"not fully analysed\"",
    "/* README: its reason if it has one */": "/* docs/config.md \"HTTP hooks\": its reason if it has one */",
    "// Checks of the README's behaviour that the shared vectors cannot express":
        "// Checks of the behaviour docs/ describes that the shared vectors cannot express",
    "# then the README's C example built exactly as the README says,":
        "# then the C example of docs/abi.md \"Using it from C\" built exactly as it says,",
    "/* The README's C example:": "/* The C example of docs/abi.md \"Using it from C\":",
    "/* The engine's request head, for the README": "/* The engine's request head, for docs/performance.md",
    "The keys are explained in the main\n  README (\"The outcome\", \"Claude Code hooks\").":
        "The keys are explained in\n  docs/envelope.md \"The outcome\" and docs/dialects/claude.md \"Claude Code hooks\".",
}

DEFAULT_ROOTS = ["src", "tests", "bindings", "examples", "bench", "packaging", "fuzz"]
SKIP_DIRS = {"target", "node_modules", "build", ".git", "prebuilds", "__pycache__", "corpus", "artifacts"}
EXTENSIONS = {".rs", ".c", ".h", ".go", ".js", ".mjs", ".cjs", ".ts", ".py", ".sh", ".md", ".toml", ".txt", ".yaml", ".yml"}

# A comment line break inside a citation: newline, indentation, the comment marker.
BREAK = r"[ \t]*\n[ \t]*(?://[!/]?|#|\*)?[ \t]*"
QUOTED = r'"[^"\n]+(?:' + BREAK + r'[^"\n]+)?"'
CITATION = re.compile(
    r"(?P<lead>(?:(?:[Tt]he )?main |[Tt]he )?README(?:\.md)?(?:'s|,)?)"
    r"(?P<gap>(?:[ \t]+|" + BREAK + r")\(?)"
    r"(?P<items>" + QUOTED + r"(?:(?:,(?:[ \t]+|" + BREAK + r")|(?:[ \t]+|" + BREAK + r")and(?:[ \t]+|" + BREAK + r"))"
    + QUOTED + r")*)"
)
ITEM = re.compile(QUOTED)
CITED = {}  # (page, section) -> the first file citing it


def section_name(quoted):
    """The section a quoted item names, with a comment line break inside it read as a space."""
    return re.sub(BREAK, " ", quoted[1:-1]).strip()


def rewrite_citation(match, unknown, where):
    items = match.group("items")
    found = []
    for item in ITEM.finditer(items):
        name = section_name(item.group(0))
        if name not in SECTIONS:
            unknown.append(f"{where}: README \"{name}\"")
            return match.group(0)
        found.append((item, name, SECTIONS[name]))
        page, new_name = SECTIONS[name]
        if page != "README.md":
            CITED.setdefault((page, new_name or name), where)
    if all(page == "README.md" for _, _, (page, _) in found):
        return match.group(0)
    if any(page == "README.md" for _, _, (page, _) in found):
        unknown.append(f"{where}: a list mixing the guide and docs/ pages: {match.group(0)!r}")
        return match.group(0)
    # Rebuild the list: each item keeps its separator; its page is named when it differs from
    # the item before it.
    out, last_page, pos = [], None, 0
    for item, name, (page, new_name) in found:
        out.append(items[pos:item.start()])
        text = item.group(0) if new_name is None else f'"{new_name}"'
        if page != last_page:
            text = (page + (match.group("gap") if last_page is None else " ")) + text
            last_page = page
        out.append(text)
        pos = item.end()
    out.append(items[pos:])
    return "".join(out)


def rewrite(text, where, unknown):
    for old, new in LITERAL.items():
        text = text.replace(old, new)
    return CITATION.sub(lambda m: rewrite_citation(m, unknown, where), text)


def files(roots):
    for root in roots:
        if os.path.isfile(root):
            yield root
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                if os.path.splitext(name)[1] in EXTENSIONS:
                    yield os.path.join(dirpath, name)


def main(argv):
    check = "--check" in argv
    roots = [a for a in argv if a not in ("--check", "--notes")] or [r for r in DEFAULT_ROOTS if os.path.exists(r)]
    if not os.path.exists("README.md") or not os.path.isdir("docs"):
        sys.exit("recite: run me from the repository root (README.md and docs/ not found)")
    unknown, changed = [], 0
    for path in files(roots):
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except UnicodeDecodeError:
            continue
        new = rewrite(old, path, unknown)
        if new == old:
            continue
        changed += 1
        old_lines, new_lines = old.split("\n"), new.split("\n")
        for n, (a, b) in enumerate(zip(old_lines, new_lines), 1):
            if a != b:
                print(f"{path}:{n}:\n  - {a.strip()}\n  + {b.strip()}")
        if not check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    # A citation must land on a section that exists: the page, with a heading starting with the
    # section's name (a page not written yet, or a heading renamed, is a dead reference).
    for (page, name), where in sorted(CITED.items()):
        if not os.path.isfile(page):
            unknown.append(f"{where}: {page} does not exist (for \"{name}\")")
            continue
        with open(page, encoding="utf-8") as f:
            headings = [l.lstrip("#").strip() for l in f if re.match(r"#+ ", l)]
        if not any(h == name or h.startswith(name + " ") or h.startswith(name + ":") for h in headings):
            unknown.append(f"{where}: {page} has no heading \"{name}\"")
    # Mentions of "README" that cite no section are left alone; list them so that a reader can
    # judge (most mean the guide itself, a binding's or a package's own README).
    if "--notes" in argv:
        bare = re.compile(r"README(?![./_-])")
        for path in files(roots):
            try:
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        if bare.search(line) and "README.md" not in line and not CITATION.search(line):
                            print(f"note: {path}:{n}: {line.strip()}")
            except UnicodeDecodeError:
                continue
    for line in unknown:
        print(f"recite: cannot map {line}", file=sys.stderr)
    verb = "would change" if check else "changed"
    print(f"recite: {verb} {changed} file(s); {len(unknown)} citation(s) not mapped")
    if unknown or (check and changed):
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
