#!/usr/bin/env python3
"""The import graph of src/, checked against the layers docs/layout.md describes.

Reads every `crate::…`, `super::…` and `self::…` path in src/**/*.rs (and `oh_hooks::…` in
src/bin/), maps each file and each path to a node (a top-level module of the crate, each
dialect's folder as a node of its own: `dialect/claude`, …, and the seam `dialect` itself),
prints the graph in words and checks:

  (a) no cycle between nodes;
  (b) every import goes to a node of a lower layer, or to its own layer where that layer
      allows it (LAYERS below, bottom first);
  (c) no dialect folder imports another dialect's folder (what they share lives in the seam,
      src/dialect/mod.rs, or below it).

Exits 1 naming each offending `file:line`; 0 when the graph is clean. Python 3, stdlib only.
Usage: tools/layers.py [--quiet] [SRC_DIR]
"""

import os
import re
import sys

# Bottom first: a node may import any node of a lower layer, never one of its own layer or
# above. `dialect` is the seam (src/dialect/mod.rs: the trait, Hook, View, Raw, Answer, …);
# `dialect/<name>` is each dialect's folder. Claude Code's folder is the base others build on
# (Codex's stdin is Claude Code's, reordered; Cursor's and Gemini's hints name Claude Code's
# events), so it sits a layer below the other dialects; those never import one another.
LAYERS = [
    ("base", ["error", "sync", "words", "suggest", "event"]),
    ("os", ["os"]),
    ("outcome", ["outcome"]),
    ("response", ["response"]),
    ("matcher", ["matcher"]),
    ("envelope", ["envelope"]),
    ("seam", ["dialect"]),
    ("base dialect", ["dialect/claude"]),
    ("dialects", ["dialect/*"]),
    ("registry", ["dialect/registry.rs"]),
    ("envelope head", ["envelope/head.rs"]),
    ("options", ["options"]),
    ("config", ["config"]),
    ("threads", ["host", "thread_pool", "fanout"]),
    ("run", ["run"]),
    ("walk", ["merge"]),
    ("quick", ["quick"]),
    ("engine", ["engine"]),
    ("surface", ["ffi", "bin"]),
]

# Imports allowed against the order, each with why: none today. Any upward import or cycle fails.
KNOWN = {}

# Files that are nodes of their own, apart from their folder's: the registry names every dialect
# folder (so it sits above them), and reading an envelope's head resolves dialect event names
# through the registry, while the rest of envelope/ is what every dialect's view reads.
FILE_NODES = {("dialect", "registry"): "dialect/registry.rs", ("envelope", "head"): "envelope/head.rs"}


def node_of_module(parts, dialects):
    """The node a module path (list of names below the crate root) belongs to."""
    if not parts:
        return None
    if tuple(parts[:2]) in FILE_NODES:
        return FILE_NODES[tuple(parts[:2])]
    if parts[0] == "dialect" and len(parts) > 1 and parts[1] in dialects:
        return "dialect/" + parts[1]
    return parts[0]


def file_module(rel):
    """src-relative file path -> module path (list)."""
    parts = rel[:-3].split("/")
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    if parts and parts[0] == "bin":
        return ["bin"]
    return parts


def strip_comments_and_strings(line):
    """Drops `//` comments and the contents of string literals (paths in them are not imports)."""
    out = []
    i, n = 0, len(line)
    in_str = False
    while i < n:
        c = line[i]
        if in_str:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_str = False
                out.append(c)
            i += 1
            continue
        if c == '"':
            in_str = True
            out.append(c)
        elif line.startswith("//", i):
            break
        elif c == "'" and i + 2 < n and line[i + 2] == "'":
            # A char literal such as '"' or '{'.
            out.append("' '")
            i += 3
            continue
        elif c == "'" and i + 3 < n and line[i + 1] == "\\" and line[i + 3] == "'":
            out.append("' '")
            i += 4
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e'] (leaf names kept; `as x` dropped)."""
    tree = tree.strip()
    # Find a top-level `{`.
    depth = 0
    for i, c in enumerate(tree):
        if c == "{":
            if depth == 0:
                prefix = tree[:i]
                inner = tree[i + 1 : tree.rindex("}")]
                items, cur, d = [], "", 0
                for ch in inner:
                    if ch == "," and d == 0:
                        items.append(cur)
                        cur = ""
                        continue
                    if ch == "{":
                        d += 1
                    elif ch == "}":
                        d -= 1
                    cur += ch
                items.append(cur)
                out = []
                for item in items:
                    item = item.strip()
                    if not item:
                        continue
                    if item == "self":
                        out.append(prefix.rstrip(":").rstrip(":"))
                    else:
                        out.extend(prefix + e for e in expand_use_tree(item))
                return out
            depth += 1
    return [re.sub(r"\s+as\s+\w+$", "", tree)]


PATH = re.compile(r"(?<![\w:])(crate|super|self|oh_hooks)((?:::(?:[A-Za-z_][A-Za-z0-9_]*|\*))+)")
CHILD_MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")
USE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+(.*)$")
INLINE_MOD = re.compile(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*\{\s*$")


def imports_of(path, rel):
    """Yields (line_number, absolute module path as a list) for every path in the file."""
    base = file_module(rel)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    # Child modules (`mod claude;`): a path may start with their name (`claude::Claude`).
    children = {m.group(1) for m in map(CHILD_MOD.match, lines) if m}
    child_path = re.compile(r"(?<![\w:])(" + "|".join(sorted(children)) + r")((?:::[A-Za-z_][A-Za-z0-9_]*)+)") if children else None
    stack = []  # inline modules: (indent, name, is a test module)
    pending_use = None  # (start line, text so far) of a multi-line `use`
    cfg_test = False
    for no, raw in enumerate(lines, 1):
        if stack and raw.strip() == "}" and raw.startswith(stack[-1][0] + "}"):
            stack.pop()
            continue
        m = INLINE_MOD.match(raw)
        if m:
            stack.append((m.group(1), m.group(2), cfg_test))
            cfg_test = False
            continue
        cfg_test = raw.strip() == "#[cfg(test)]"
        # Unit tests (`#[cfg(test)] mod tests { … }`) may reach any module: not the code's shape.
        if any(t for _, _, t in stack):
            continue
        line = strip_comments_and_strings(raw)
        here = base + [name for _, name, _ in stack]
        if child_path is not None and not stack:
            for cm in child_path.finditer(line):
                if CHILD_MOD.match(line):
                    break
                yield no, here + [cm.group(1)] + [s for s in cm.group(2).split("::") if s]
        if pending_use is not None:
            start, text = pending_use
            text += " " + line.strip()
            if ";" in line:
                pending_use = None
                yield from resolve_use(text, start, here, rel)
            else:
                pending_use = (start, text)
            continue
        um = USE.match(line)
        if um:
            if ";" in line:
                yield from resolve_use(um.group(1), no, here, rel)
            else:
                pending_use = (no, um.group(1))
            continue
        for pm in PATH.finditer(line):
            segs = [s for s in pm.group(2).split("::") if s]
            target = resolve(pm.group(1), segs, here)
            if target is not None:
                yield no, target


def resolve_use(text, no, here, rel):
    text = text.split(";")[0].strip()
    for leaf in expand_use_tree(text):
        segs = [s for s in leaf.split("::") if s]
        if not segs or segs[0] not in ("crate", "super", "self", "oh_hooks"):
            continue
        target = resolve(segs[0], segs[1:], here)
        if target is not None:
            yield no, target


def resolve(root, segs, here):
    if root in ("crate", "oh_hooks"):
        return segs
    if root == "self":
        return here + segs
    # super (possibly repeated: super::super::x).
    cur = here[:-1]
    while segs and segs[0] == "super":
        cur = cur[:-1]
        segs = segs[1:]
    return cur + segs


def main(argv):
    quiet = "--quiet" in argv
    args = [a for a in argv if not a.startswith("--")]
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    src = os.path.normpath(src)
    top = {n[:-3] if n.endswith(".rs") else n for n in os.listdir(src)} - {"lib"}
    dialect_dir = os.path.join(src, "dialect")
    dialects = {d for d in os.listdir(dialect_dir) if os.path.isdir(os.path.join(dialect_dir, d))}
    # Crate-root re-exports (`pub use engine::Engine;`) resolve to their module.
    reexport = {}
    with open(os.path.join(src, "lib.rs"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*pub use (\w+)::(?:\{([^}]*)\}|(\w+));", line)
            if m:
                for name in (m.group(2) or m.group(3)).split(","):
                    reexport[name.strip()] = m.group(1)

    layer_of = {}
    for i, (_, members) in enumerate(LAYERS):
        for member in members:
            if member == "dialect/*":
                for d in dialects:
                    layer_of.setdefault("dialect/" + d, i)
            else:
                layer_of[member] = i

    edges = {}  # (from, to) -> [file:line, ...]
    problems = []
    files = []
    for dirpath, _, names in os.walk(src):
        for name in sorted(names):
            if name.endswith(".rs"):
                files.append(os.path.join(dirpath, name))
    for path in sorted(files):
        rel = os.path.relpath(path, src).replace(os.sep, "/")
        if rel == "lib.rs":
            continue
        mine = node_of_module(file_module(rel), dialects)
        for no, target in imports_of(path, rel):
            if not target:
                continue
            if target[0] in reexport:
                target = [reexport[target[0]]] + target[1:]
            if target[0] not in top:
                continue
            to = node_of_module(target, dialects)
            if to is None or to == mine:
                continue
            at = f"src/{rel}:{no}"
            if at not in edges.setdefault((mine, to), []):
                edges[(mine, to)].append(at)

    nodes = sorted(set(layer_of) | {a for a, _ in edges} | {b for _, b in edges})
    for n in nodes:
        if n not in layer_of:
            problems.append(f"{n}: not in any layer of tools/layers.py (add it to LAYERS)")

    def known(a, b):
        for ka, kb in KNOWN:
            if ka == a and (kb == b or (kb == "dialect/*" and b.startswith("dialect/"))):
                return KNOWN[(ka, kb)]
        return None

    # (b) and (c): each edge against the layers.
    for (a, b), where in sorted(edges.items()):
        if a not in layer_of or b not in layer_of or known(a, b):
            continue
        la, lb = layer_of[a], layer_of[b]
        if a.startswith("dialect/") and b.startswith("dialect/") and la == lb:
            for w in where:
                problems.append(f"{w}: {a} imports {b}: one dialect never imports another's folder (share it through the seam, src/dialect/mod.rs)")
        elif la < lb:
            for w in where:
                problems.append(f"{w}: {a} (layer {LAYERS[la][0]}) imports {b} (layer {LAYERS[lb][0]}), a higher layer")
        elif la == lb:
            for w in where:
                problems.append(f"{w}: {a} imports {b}, both in layer {LAYERS[la][0]}: one of them belongs in another layer")

    # (a): cycles, by a depth-first search over the node graph.
    succ = {}
    for a, b in edges:
        if not known(a, b):
            succ.setdefault(a, []).append(b)
    for n in succ:
        succ[n].sort()
    colour, cycles = {}, []

    def visit(n, trail):
        colour[n] = 1
        for m in succ.get(n, []):
            if colour.get(m) == 1:
                cyc = trail[trail.index(m) :] + [m]
                cycles.append(cyc)
            elif colour.get(m) is None:
                visit(m, trail + [m])
        colour[n] = 2

    for n in sorted(succ):
        if colour.get(n) is None:
            visit(n, [n])
    for cyc in cycles:
        first = edges[(cyc[-2], cyc[-1])][0]
        problems.append(f"{first}: a cycle: {' -> '.join(cyc)}")

    if not quiet:
        print("The import graph of src/ (bottom layer first; each node: what it imports):")
        for i, (name, _) in enumerate(LAYERS):
            members = sorted(n for n in nodes if layer_of.get(n) == i)
            if not members:
                continue
            print(f"  layer {i} {name}:")
            for n in members:
                outs = sorted({b for a, b in edges if a == n})
                print(f"    {n} imports " + (", ".join(outs) if outs else "nothing"))
        print(f"  {len(nodes)} nodes, {len(edges)} edges, {sum(len(w) for w in edges.values())} paths")
        for (a, b), where in sorted(edges.items()):
            why = known(a, b)
            if why:
                print(f"  known, against the order: {a} -> {b} ({where[0]}): {why}")
    if problems:
        print(f"layers: {len(problems)} problem(s):", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print("layers: ok (no cycle, no import from a lower layer to a higher one, no dialect imports another)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
