//! Host tools as Codex hooks see them (docs/dialects/codex.md "What a Codex hook gets"), and a
//! Codex rewrite renamed back to the host's tool. The names and field renames are the engine's
//! host-tools table for Codex ([`tools::CODEX`]: a shell tool is `Bash` with `{"command"}`, an
//! agent `spawn_agent` with `{"message"}`, MCP tools keep `mcp__server__tool`, other kinds keep
//! the host's name and input); what that table leaves to the dialect is here: every file write
//! or edit is `apply_patch` with the patch text as `{"command"}`, made from the host's fields of
//! the tool's kind (its `path`, `content`, `old`, `new`) and read back into them.

use crate::envelope::tools::{self, HostTools, Kind, Known};
use serde_json::{Map, Value};

/// The host tool `name` as Codex hooks see it: the Codex tool name and, when it changes, the
/// input in Codex's fields (`None`: the host's input, its text as received).
pub fn to_codex(host: &HostTools, name: &str, input: Option<&Value>) -> (String, Option<Value>) {
    let Some(known) = host.lookup(name) else { return (name.to_string(), None) };
    if matches!(known.kind, Kind::Write | Kind::Edit) {
        return ("apply_patch".to_string(), input.and_then(|i| patch_of(known, i)));
    }
    let text = input.map(Value::to_string);
    let (codex_name, codex_input) = tools::to_dialect(&tools::CODEX, host, name, text.as_deref());
    let renamed = match codex_input {
        Some(std::borrow::Cow::Owned(t)) => serde_json::from_str(&t).ok(),
        _ => None,
    };
    (codex_name.into_owned(), renamed)
}

/// A Codex `updatedInput` for the host's tool `name`, in the host's field names. A patch that
/// does not come back to what the host's tool can do (one file; for an edit its hunks, for a
/// write one added file) is not expressible: `Err` says why, and the caller keeps the host's
/// input, which is what Codex does with an answer it cannot apply.
pub fn to_host(host: &HostTools, name: &str, original: Option<&Value>, updated: Value) -> Result<Value, String> {
    match host.lookup(name) {
        Some(known) if matches!(known.kind, Kind::Write | Kind::Edit) => from_patch(known, name, original, &updated),
        _ => Ok(tools::from_dialect(&tools::CODEX, host, name, updated)),
    }
}

/// The Add File (write) or Update File (edit) patch of a host write or edit call. An edit with a
/// list of `edits` (Claude Code's MultiEdit) is one `@@` hunk per edit.
fn patch_of(known: Known, input: &Value) -> Option<Value> {
    let obj = input.as_object()?;
    let field = |canonical: &'static str| known.host_field(canonical);
    let text = |canonical: &'static str| obj.get(field(canonical)).and_then(Value::as_str);
    let path = text("path")?;
    let mut used = vec![field("path")];
    let mut patch = String::from("*** Begin Patch\n");
    if known.kind == Kind::Write {
        patch.push_str(&format!("*** Add File: {path}\n"));
        for line in lines(text("content").unwrap_or("")) {
            patch.push_str(&format!("+{line}\n"));
        }
        used.push(field("content"));
    } else {
        patch.push_str(&format!("*** Update File: {path}\n"));
        let hunk = |patch: &mut String, old: &str, new: &str| {
            patch.push_str("@@\n");
            for line in lines(old) {
                patch.push_str(&format!("-{line}\n"));
            }
            for line in lines(new) {
                patch.push_str(&format!("+{line}\n"));
            }
        };
        match obj.get("edits").and_then(Value::as_array) {
            Some(edits) => {
                for e in edits {
                    let f = |c: &'static str| e.get(field(c)).and_then(Value::as_str).unwrap_or("");
                    hunk(&mut patch, f("old"), f("new"));
                }
                used.push("edits");
            }
            None => {
                hunk(&mut patch, text("old").unwrap_or(""), text("new").unwrap_or(""));
                used.extend([field("old"), field("new")]);
            }
        }
    }
    patch.push_str("*** End Patch");
    let mut out = Map::new();
    out.insert("command".to_string(), Value::String(patch));
    // Fields the patch does not carry pass through as given (Edit's `replace_all`).
    out.extend(obj.iter().filter(|(k, _)| !used.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())));
    Some(Value::Object(out))
}

/// Lines of a text; a final `\n` does not add an empty line.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    text.split('\n').filter(move |_| !empty)
}

fn from_patch(known: Known, name: &str, original: Option<&Value>, updated: &Value) -> Result<Value, String> {
    let not = |why: &str| Err(format!("rewrite not expressible for {name}: {why}"));
    let Some(obj) = updated.as_object() else { return not("updatedInput is not an object") };
    let Some(patch) = obj.get("command").and_then(Value::as_str) else {
        return not("apply_patch needs `command` with the patch");
    };
    let Some(p) = Patch::parse(patch) else { return not("the patch is not one Add File or Update File") };
    let field = |canonical: &'static str| known.host_field(canonical).to_string();
    let mut out: Map<String, Value> =
        obj.iter().filter(|(k, _)| *k != "command").map(|(k, v)| (k.clone(), v.clone())).collect();
    out.insert(field("path"), Value::String(p.path));
    // A trailing newline follows the original field's (an unchanged rewrite is the same input).
    let ends_nl = |f: &str| {
        original.and_then(|o| o.get(f)).and_then(Value::as_str).map_or(true, |s| s.is_empty() || s.ends_with('\n'))
    };
    let join = |lines: &[String], nl: bool| {
        let mut s = lines.join("\n");
        if nl && !lines.is_empty() {
            s.push('\n');
        }
        s
    };
    let multi = original.and_then(|o| o.get("edits")).is_some();
    match (known.kind, p.add, multi) {
        (Kind::Write, true, _) => {
            let content = p.hunks.first().map(|h| h.1.clone()).unwrap_or_default();
            out.insert(field("content"), Value::String(join(&content, ends_nl(&field("content")))));
        }
        (Kind::Edit, false, false) if p.hunks.len() == 1 => {
            let (old, new) = &p.hunks[0];
            out.insert(field("old"), Value::String(join(old, ends_nl(&field("old")))));
            out.insert(field("new"), Value::String(join(new, ends_nl(&field("new")))));
        }
        (Kind::Edit, false, true) => {
            let edits = p
                .hunks
                .iter()
                .map(|(old, new)| {
                    let mut e = Map::new();
                    e.insert(field("old"), Value::String(join(old, false)));
                    e.insert(field("new"), Value::String(join(new, false)));
                    Value::Object(e)
                })
                .collect();
            out.insert("edits".to_string(), Value::Array(edits));
        }
        _ => return not("the patch does not fit the host's tool (one hunk for an edit, Add File for a write)"),
    }
    Ok(Value::Object(out))
}

/// One file of a Codex patch: its path, whether it adds the file, and its hunks (old and new
/// lines; an Add File has one hunk of new lines).
struct Patch {
    path: String,
    add: bool,
    hunks: Vec<(Vec<String>, Vec<String>)>,
}

impl Patch {
    fn parse(text: &str) -> Option<Patch> {
        let mut lines = text.trim_end_matches('\n').split('\n');
        if lines.next()?.trim_end() != "*** Begin Patch" {
            return None;
        }
        let head = lines.next()?;
        let (path, add) = if let Some(p) = head.strip_prefix("*** Add File: ") {
            (p, true)
        } else {
            (head.strip_prefix("*** Update File: ")?, false)
        };
        let mut hunks: Vec<(Vec<String>, Vec<String>)> = if add { vec![(Vec::new(), Vec::new())] } else { Vec::new() };
        let mut ended = false;
        for line in lines {
            if ended {
                return None;
            }
            if line.trim_end() == "*** End Patch" {
                ended = true;
            } else if line.starts_with("@@") && !add {
                hunks.push((Vec::new(), Vec::new()));
            } else if line.starts_with("*** ") {
                // A second file, a move or a delete: not one host tool call.
                return None;
            } else {
                let h = hunks.last_mut()?;
                match line.split_at_checked(1) {
                    Some(("+", l)) => h.1.push(l.to_string()),
                    Some(("-", l)) if !add => h.0.push(l.to_string()),
                    Some((" ", l)) if !add => {
                        h.0.push(l.to_string());
                        h.1.push(l.to_string());
                    }
                    _ => return None,
                }
            }
        }
        (ended && !path.is_empty()).then(|| Patch { path: path.to_string(), add, hunks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn host() -> HostTools {
        HostTools::default()
    }

    #[test]
    fn names() {
        let h = host();
        assert_eq!(to_codex(&h, "Bash", Some(&json!({"command": "ls"}))), ("Bash".into(), None));
        assert_eq!(to_codex(&h, "Write", None).0, "apply_patch");
        assert_eq!(to_codex(&h, "Edit", None).0, "apply_patch");
        assert_eq!(to_codex(&h, "MultiEdit", None).0, "apply_patch");
        assert_eq!(to_codex(&h, "Task", None).0, "spawn_agent");
        assert_eq!(to_codex(&h, "mcp__fs__read", None).0, "mcp__fs__read");
        assert_eq!(to_codex(&h, "Read", Some(&json!({"file_path": "x"}))), ("Read".into(), None));
        assert_eq!(to_codex(&h, "apply_patch", None), ("apply_patch".into(), None), "a host tool of that name passes");
    }

    #[test]
    fn write_and_edit_become_patches_and_come_back() {
        let h = host();
        let write = json!({"file_path": "a.txt", "content": "one\ntwo\n"});
        let (_, seen) = to_codex(&h, "Write", Some(&write));
        let seen = seen.unwrap();
        assert_eq!(seen, json!({"command": "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch"}));
        assert_eq!(to_host(&h, "Write", Some(&write), seen).unwrap(), write, "round trip");
        let edit = json!({"file_path": "src/x.rs", "old_string": "a", "new_string": "b", "replace_all": false});
        let seen = to_codex(&h, "Edit", Some(&edit)).1.unwrap();
        assert_eq!(
            seen,
            json!({"command": "*** Begin Patch\n*** Update File: src/x.rs\n@@\n-a\n+b\n*** End Patch", "replace_all": false})
        );
        assert_eq!(to_host(&h, "Edit", Some(&edit), seen).unwrap(), edit);
        let rewrite = json!({"command": "*** Begin Patch\n*** Update File: src/x.rs\n@@\n-a\n+c\n*** End Patch"});
        assert_eq!(to_host(&h, "Edit", Some(&edit), rewrite).unwrap()["new_string"], "c");
        let multi = json!({"file_path": "m", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]});
        let seen = to_codex(&h, "MultiEdit", Some(&multi)).1.unwrap();
        assert_eq!(seen["command"], "*** Begin Patch\n*** Update File: m\n@@\n-a\n+b\n@@\n-c\n+d\n*** End Patch");
        assert_eq!(to_host(&h, "MultiEdit", Some(&multi), seen).unwrap(), multi);
    }

    #[test]
    fn a_hosts_own_edit_tool_and_field_names() {
        let mut h = host();
        h.insert(
            "my_edit".into(),
            tools::HostTool {
                kind: Kind::Edit,
                fields: vec![("path", "filename".into()), ("old", "find".into()), ("new", "replace".into())],
            },
        );
        let input = json!({"filename": "a.rs", "find": "x", "replace": "y"});
        let (name, seen) = to_codex(&h, "my_edit", Some(&input));
        assert_eq!(
            (name.as_str(), seen.as_ref().unwrap()["command"].as_str().unwrap()),
            ("apply_patch", "*** Begin Patch\n*** Update File: a.rs\n@@\n-x\n+y\n*** End Patch")
        );
        let back = to_host(
            &h,
            "my_edit",
            Some(&input),
            json!({"command": "*** Begin Patch\n*** Update File: a.rs\n@@\n-x\n+z\n*** End Patch"}),
        );
        assert_eq!(back.unwrap(), json!({"filename": "a.rs", "find": "x", "replace": "z"}));
        h.insert("sh".into(), tools::HostTool { kind: Kind::Shell, fields: vec![("command", "cmd".into())] });
        assert_eq!(to_codex(&h, "sh", Some(&json!({"cmd": "ls"}))), ("Bash".into(), Some(json!({"command": "ls"}))));
        assert_eq!(to_host(&h, "sh", None, json!({"command": "ls -a"})).unwrap(), json!({"cmd": "ls -a"}));
    }

    #[test]
    fn rewrites_the_host_tool_cannot_take_are_refused() {
        let h = host();
        let edit = json!({"file_path": "x", "old_string": "a", "new_string": "b"});
        for bad in [
            json!({"command": "*** Begin Patch\n*** Update File: x\n@@\n-a\n+b\n*** Update File: y\n@@\n-a\n+b\n*** End Patch"}),
            json!({"command": "*** Begin Patch\n*** Update File: x\n@@\n-a\n+b\n@@\n-c\n+d\n*** End Patch"}),
            json!({"command": "*** Begin Patch\n*** Add File: x\n+a\n*** End Patch"}),
            json!({"command": "*** Begin Patch\n*** Delete File: x\n*** End Patch"}),
            json!({"command": "rm -rf /"}),
            json!({"patch": "x"}),
            json!("x"),
        ] {
            let e = to_host(&h, "Edit", Some(&edit), bad).unwrap_err();
            assert!(e.starts_with("rewrite not expressible for Edit"), "{e}");
        }
    }

    #[test]
    fn agent_and_unknown() {
        let h = host();
        let task = json!({"prompt": "go", "subagent_type": "x"});
        let seen = to_codex(&h, "Task", Some(&task)).1.unwrap();
        assert_eq!(seen, json!({"message": "go", "subagent_type": "x"}));
        assert_eq!(to_host(&h, "Task", Some(&task), seen).unwrap(), task);
        assert_eq!(to_host(&h, "Custom", None, json!({"a": 1})).unwrap(), json!({"a": 1}));
    }
}
