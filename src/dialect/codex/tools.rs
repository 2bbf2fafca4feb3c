//! Host tools as Codex hooks see them (docs/dialects/codex.md "Tools"), and a Codex rewrite
//! renamed back to the host's tool. Codex has one shell tool, `Bash` with `{"command"}`; every
//! file write or edit is `apply_patch` with the patch text as `{"command"}`; a sub-agent is
//! `spawn_agent` with `{"message"}`; MCP tools keep `mcp__server__tool`. Other tools reach Codex
//! hooks under the host's name with their input as given.
//!
//! The host's tool kinds come from the engine's tool table ([`crate::envelope::tools`]); the
//! host's field names of each kind are Claude Code's (`file_path`, `old_string`, …), the
//! engine's defaults.

use crate::envelope::tools::{self, Kind};
use serde_json::{Map, Value};

/// The host's field of a kind's canonical field (Claude Code's names, the defaults).
fn host_field(canonical: &str) -> &str {
    match canonical {
        "path" => "file_path",
        "old" => "old_string",
        "new" => "new_string",
        other => other,
    }
}

/// The Codex tool name a host tool has, and whether its input changes shape.
pub fn codex_name(host_tool: &str) -> &str {
    match tools::kind(host_tool) {
        Some(Kind::Shell) => "Bash",
        Some(Kind::Write | Kind::Edit) => "apply_patch",
        Some(Kind::Agent) => "spawn_agent",
        _ => host_tool,
    }
}

/// The tool input a Codex hook sees for the host's `input`; `None` when it is the host's input
/// unchanged (so its text passes through as received).
pub fn codex_input(host_tool: &str, input: &Value) -> Option<Value> {
    let obj = input.as_object()?;
    let text = |canonical: &str| obj.get(host_field(canonical)).and_then(Value::as_str);
    let rest = |skip: &[&str]| -> Map<String, Value> {
        obj.iter().filter(|(k, _)| !skip.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    match tools::kind(host_tool)? {
        // `command` is Codex's field too: the host's input as it is.
        Kind::Shell => None,
        Kind::Write => {
            let path = text("path")?;
            let mut patch = format!("*** Begin Patch\n*** Add File: {path}\n");
            for line in lines(text("content").unwrap_or("")) {
                patch.push_str(&format!("+{line}\n"));
            }
            patch.push_str("*** End Patch");
            Some(with_command(patch, rest(&["file_path", "content"])))
        }
        Kind::Edit => {
            let path = text("path")?;
            let mut patch = format!("*** Begin Patch\n*** Update File: {path}\n");
            let hunk = |patch: &mut String, old: &str, new: &str| {
                patch.push_str("@@\n");
                for line in lines(old) {
                    patch.push_str(&format!("-{line}\n"));
                }
                for line in lines(new) {
                    patch.push_str(&format!("+{line}\n"));
                }
            };
            let skip: &[&str] = match obj.get("edits").and_then(Value::as_array) {
                // Claude Code's MultiEdit: one hunk per edit.
                Some(edits) => {
                    for e in edits {
                        let field = |k: &str| e.get(host_field(k)).and_then(Value::as_str).unwrap_or("");
                        hunk(&mut patch, field("old"), field("new"));
                    }
                    &["file_path", "edits"]
                }
                None => {
                    hunk(&mut patch, text("old").unwrap_or(""), text("new").unwrap_or(""));
                    &["file_path", "old_string", "new_string"]
                }
            };
            patch.push_str("*** End Patch");
            Some(with_command(patch, rest(skip)))
        }
        Kind::Agent => {
            let mut out = Map::new();
            for (k, v) in obj {
                out.insert(if k == "prompt" { "message".to_string() } else { k.clone() }, v.clone());
            }
            Some(Value::Object(out))
        }
        _ => None,
    }
}

fn with_command(patch: String, rest: Map<String, Value>) -> Value {
    let mut out = Map::new();
    out.insert("command".to_string(), Value::String(patch));
    out.extend(rest);
    Value::Object(out)
}

/// Lines of a text; a final `\n` does not add an empty line.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let empty = text.is_empty();
    text.split('\n').filter(move |_| !empty)
}

/// A Codex `updatedInput` for the host's tool, in the host's field names. A patch that does not
/// come back to what the host's tool can do (one file; for an edit, its hunks; for a write, one
/// added file) is not expressible: the caller records the hook as failed, Codex's own way with
/// an answer it cannot apply.
pub fn host_input(host_tool: &str, original: Option<&Value>, updated: &Value) -> Result<Value, String> {
    let Some(kind) = tools::kind(host_tool) else { return Ok(updated.clone()) };
    let not = |why: &str| Err(format!("rewrite not expressible for {host_tool}: {why}"));
    let Some(obj) = updated.as_object() else { return not("updatedInput is not an object") };
    let ends_nl = |field: &str| {
        original.and_then(|o| o.get(field)).and_then(Value::as_str).map_or(true, |s| s.ends_with('\n') || s.is_empty())
    };
    match kind {
        Kind::Shell => Ok(updated.clone()),
        Kind::Agent => {
            let mut out = Map::new();
            for (k, v) in obj {
                out.insert(if k == "message" { "prompt".to_string() } else { k.clone() }, v.clone());
            }
            Ok(Value::Object(out))
        }
        Kind::Write | Kind::Edit => {
            let Some(patch) = obj.get("command").and_then(Value::as_str) else {
                return not("apply_patch needs `command` with the patch");
            };
            let Some(p) = Patch::parse(patch) else { return not("the patch is not one Add File or Update File") };
            let mut out: Map<String, Value> =
                obj.iter().filter(|(k, _)| *k != "command").map(|(k, v)| (k.clone(), v.clone())).collect();
            out.insert("file_path".to_string(), Value::String(p.path));
            let join = |lines: &[String], nl: bool| {
                let mut s = lines.join("\n");
                if nl && !lines.is_empty() {
                    s.push('\n');
                }
                s
            };
            match (kind, p.add, original.and_then(|o| o.get("edits")).is_some()) {
                (Kind::Write, true, _) => {
                    let content = p.hunks.first().map(|h| h.1.clone()).unwrap_or_default();
                    out.insert("content".to_string(), Value::String(join(&content, ends_nl("content"))));
                }
                (Kind::Edit, false, false) if p.hunks.len() == 1 => {
                    let (old, new) = &p.hunks[0];
                    out.insert("old_string".to_string(), Value::String(join(old, ends_nl("old_string"))));
                    out.insert("new_string".to_string(), Value::String(join(new, ends_nl("new_string"))));
                }
                (Kind::Edit, false, true) => {
                    let edits = p
                        .hunks
                        .iter()
                        .map(|(old, new)| serde_json::json!({"old_string": join(old, false), "new_string": join(new, false)}))
                        .collect();
                    out.insert("edits".to_string(), Value::Array(edits));
                }
                _ => return not("the patch does not fit the host's tool (one hunk for an edit, Add File for a write)"),
            }
            Ok(Value::Object(out))
        }
        _ => Ok(updated.clone()),
    }
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

    #[test]
    fn names() {
        assert_eq!(codex_name("Bash"), "Bash");
        assert_eq!(codex_name("Write"), "apply_patch");
        assert_eq!(codex_name("Edit"), "apply_patch");
        assert_eq!(codex_name("MultiEdit"), "apply_patch");
        assert_eq!(codex_name("Task"), "spawn_agent");
        assert_eq!(codex_name("mcp__fs__read"), "mcp__fs__read");
        assert_eq!(codex_name("Read"), "Read");
        assert_eq!(codex_name("apply_patch"), "apply_patch", "a host tool of that name reaches hooks as it is");
    }

    #[test]
    fn write_and_edit_become_patches_and_come_back() {
        let write = json!({"file_path": "a.txt", "content": "one\ntwo\n"});
        let seen = codex_input("Write", &write).unwrap();
        assert_eq!(seen, json!({"command": "*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** End Patch"}));
        assert_eq!(host_input("Write", Some(&write), &seen).unwrap(), write, "round trip");
        let edit = json!({"file_path": "src/x.rs", "old_string": "a", "new_string": "b", "replace_all": false});
        let seen = codex_input("Edit", &edit).unwrap();
        assert_eq!(
            seen,
            json!({"command": "*** Begin Patch\n*** Update File: src/x.rs\n@@\n-a\n+b\n*** End Patch", "replace_all": false})
        );
        assert_eq!(host_input("Edit", Some(&edit), &seen).unwrap(), edit);
        let rewrite = json!({"command": "*** Begin Patch\n*** Update File: src/x.rs\n@@\n-a\n+c\n*** End Patch"});
        assert_eq!(host_input("Edit", Some(&edit), &rewrite).unwrap()["new_string"], "c");
        let multi = json!({"file_path": "m", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]});
        let seen = codex_input("MultiEdit", &multi).unwrap();
        assert_eq!(seen["command"], "*** Begin Patch\n*** Update File: m\n@@\n-a\n+b\n@@\n-c\n+d\n*** End Patch");
        assert_eq!(host_input("MultiEdit", Some(&multi), &seen).unwrap(), multi);
    }

    #[test]
    fn rewrites_the_host_tool_cannot_take_are_refused() {
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
            let e = host_input("Edit", Some(&edit), &bad).unwrap_err();
            assert!(e.starts_with("rewrite not expressible for Edit"), "{e}");
        }
    }

    #[test]
    fn agent_and_shell_and_unknown() {
        let task = json!({"prompt": "go", "subagent_type": "x"});
        let seen = codex_input("Task", &task).unwrap();
        assert_eq!(seen, json!({"message": "go", "subagent_type": "x"}));
        assert_eq!(host_input("Task", Some(&task), &seen).unwrap(), task);
        assert_eq!(codex_input("Bash", &json!({"command": "ls"})), None, "unchanged");
        assert_eq!(host_input("Bash", None, &json!({"command": "ls -a"})).unwrap(), json!({"command": "ls -a"}));
        assert_eq!(codex_input("Read", &json!({"file_path": "x"})), None);
        assert_eq!(host_input("Custom", None, &json!({"a": 1})).unwrap(), json!({"a": 1}));
    }
}
