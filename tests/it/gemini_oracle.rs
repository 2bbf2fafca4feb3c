//! The gemini dialect against gemini-cli's own hook code: tests/gemini/oracle/run.mjs ran
//! gemini-cli's HookRunner (real `bash -c` hooks printing the recorded answers) and
//! HookAggregator on every case of cases.json and wrote what gemini-cli decided to
//! expected.json; here oh-hooks' reader and merge decide the same cases and must agree.

use oh_hooks::dialect::gemini::{self, answer, merge, view::GeminiView};
use oh_hooks::envelope::Envelope;
use serde_json::{json, Map, Value};
use std::path::Path;

fn load(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gemini/oracle").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// What the harness does with a gemini step's result, in the oracle's terms.
fn project(event: oh_hooks::event::Event, d: &merge::GeminiDecision) -> Value {
    let mut p = Map::new();
    let refused = gemini::can_block(event) && (d.deny || d.stop.is_some());
    p.insert("allowed".into(), json!(!refused));
    if let Some(m) = &d.system_message {
        p.insert("systemMessage".into(), json!(m));
    }
    if let Some(c) = &d.context {
        p.insert("context".into(), json!(c));
    }
    if d.stop.is_some() {
        p.insert("stop".into(), json!(true));
    }
    if refused || d.ask {
        if let Some(r) = &d.reason {
            p.insert("reason".into(), json!(r));
        }
    }
    if d.ask {
        p.insert("ask".into(), json!(true));
    }
    if let Some(i) = &d.tool_input {
        p.insert("toolInput".into(), i.clone());
    }
    for (k, v) in &d.extra {
        p.insert(k.to_string(), v.clone());
    }
    Value::Object(p)
}

#[test]
fn every_recorded_case_decides_as_gemini_cli_does() {
    let cases = load("cases.json");
    let expected = load("expected.json");
    let cases = cases["cases"].as_array().unwrap();
    let results = expected["results"].as_array().unwrap();
    assert_eq!(cases.len(), results.len(), "expected.json is stale: run tests/gemini/oracle/run.mjs");
    let mut failures = Vec::new();
    for (case, want) in cases.iter().zip(results) {
        let name = case["name"].as_str().unwrap();
        assert_eq!(want["name"], name);
        let event = gemini::event_of(case["event"].as_str().unwrap()).unwrap();
        let hooks = case["hooks"].as_array().unwrap();
        let mut input = case.get("input").cloned().unwrap_or(json!({})).as_object().cloned().unwrap();
        input.insert("event".into(), json!(event.name()));
        let envelope = Envelope::parse(&Value::Object(input).to_string(), event).unwrap();
        let mut view =
            GeminiView::build(&envelope, Path::new("/w"), "t", &oh_hooks::envelope::tools::HostTools::default());
        let mut answers = Vec::new();
        for (i, h) in hooks.iter().enumerate() {
            if let Some(seen) = want.get("inputs").map(|inputs| &inputs[i]) {
                for key in ["tool_input", "llm_request", "prompt"] {
                    let ours = view.raw(key).map(|r| serde_json::from_str::<Value>(r).unwrap());
                    if ours.as_ref() != seen.get(key) {
                        failures.push(format!(
                            "{name}: hook {i} saw {key} {ours:?}, gemini-cli passed {:?}",
                            seen.get(key)
                        ));
                    }
                }
            }
            let raw = answer::GeminiRaw {
                exit: Some(h["exit"].as_i64().unwrap() as i32),
                stdout: h["stdout"].as_str().unwrap().as_bytes(),
                stderr: h["stderr"].as_str().unwrap().as_bytes(),
                name: "h",
                ..answer::GeminiRaw::default()
            };
            let a = answer::read(event, &raw);
            if case["sequential"] == true && a.success && a.output {
                view = view.after(&a);
            }
            answers.push(a);
        }
        let got = project(event, &merge::merge(event, &answers));
        if got != want["expect"] {
            failures.push(format!("{name}: oh-hooks {got}, gemini-cli {}", want["expect"]));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn every_recorded_plan_matches_dedups_and_orders_as_gemini_cli_does() {
    let cases = load("cases.json");
    let expected = load("expected.json");
    let cases = cases["plans"].as_array().unwrap();
    let results = expected["plans"].as_array().unwrap();
    assert_eq!(cases.len(), results.len(), "expected.json is stale: run tests/gemini/oracle/run.mjs");
    let mut failures = Vec::new();
    for (case, want) in cases.iter().zip(results) {
        let name = case["name"].as_str().unwrap();
        let event_name = case["event"].as_str().unwrap();
        let event = gemini::event_of(event_name).unwrap();
        let settings = json!({"hooks": {event_name: case["groups"]}});
        let parsed = gemini::files::parse(
            Path::new("/h/.gemini/settings.json"),
            settings.to_string().as_bytes(),
            &gemini::files::FileKind::Own,
            None,
            &|_| None,
        );
        // The index "group.handler" of each parsed hook, as the oracle labels them.
        let mut labels = Vec::new();
        for (g, group) in case["groups"].as_array().unwrap().iter().enumerate() {
            for h in 0..group["hooks"].as_array().unwrap().len() {
                labels.push(format!("{g}.{h}"));
            }
        }
        assert_eq!(labels.len(), parsed.hooks.len(), "{name}: {:?}", parsed.warnings);
        let context = &case["context"];
        let value = context.get("toolName").or(context.get("trigger")).and_then(Value::as_str);
        let (runs, sequential) = gemini::plan(event, parsed.hooks.iter().map(|(_, h)| h), value);
        let got = json!({"runs": runs.iter().map(|i| &labels[*i]).collect::<Vec<_>>(), "sequential": sequential});
        let wanted = json!({"runs": want["runs"], "sequential": want["sequential"]});
        if got != wanted {
            failures.push(format!("{name}: oh-hooks {got}, gemini-cli {wanted}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} plans differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
