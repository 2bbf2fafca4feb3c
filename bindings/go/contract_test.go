package ohhooks

// Checks of the behaviour docs/ describes that the shared vectors cannot express (files on disk, an HTTP
// server, the process environment, timing), seen through the Go binding.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func fireOK(t *testing.T, h *Hooks, env Envelope) Outcome {
	t.Helper()
	out, err := h.Fire(context.Background(), env)
	if err != nil {
		t.Fatalf("Fire(%+v): %v", env, err)
	}
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPHooks(t *testing.T) {
	var lastBody atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/deny", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		lastBody.Store(r.Method + " " + r.Header.Get("Content-Type") + " " + string(b))
		io.WriteString(w, `{"decision":"deny","reason":"no via http"}`)
	})
	mux.HandleFunc("/ask", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"hookSpecificOutput":{"decision":"ask","additionalContext":"from http"}}`)
	})
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ask", http.StatusFound) })
	mux.HandleFunc("/malformed", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{nope") })
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/legacy", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"allowed":false}`) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Second)
		io.WriteString(w, `{}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	cases := []struct {
		path, reason string
		allowed      bool
		status       int
		perm         Decision
	}{
		{"/deny", "no via http", false, 200, ""},
		{"/ask", "", true, 200, DecisionAsk},
		{"/500", "hook HTTP 500", false, 500, ""},
		{"/redirect", "hook HTTP 302", false, 302, ""},
		{"/malformed", "hook HTTP malformed response", false, 200, ""},
		{"/empty", "", true, 200, ""},
		{"/legacy", "hook denied", false, 200, ""},
		{"/slow", "hook HTTP error", false, 0, ""},
	}
	for _, c := range cases {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			h := newTestHooks(t, hooksCfg("permissionRequest", map[string]any{"http": srv.URL + c.path, "timeout": 300}))
			start := time.Now()
			out := fireOK(t, h, Envelope{Event: "permissionRequest", ToolName: "Bash", Extra: map[string]any{"n": 1}})
			if out.Allowed != c.allowed || out.Reason != c.reason || out.PermissionDecision != c.perm || len(out.Hooks) != 1 ||
				out.Hooks[0].Type != HookHTTP {
				t.Fatalf("outcome %+v", out)
			}
			tr := out.Hooks[0]
			if c.status != 0 && (tr.Status == nil || *tr.Status != c.status) || c.status == 0 && tr.Status != nil {
				t.Errorf("status %v, want %d", tr.Status, c.status)
			}
			if tr.TimedOut == nil || *tr.TimedOut != (c.path == "/slow") {
				t.Errorf("timedOut %v", tr.TimedOut)
			}
			if c.path == "/slow" && time.Since(start) > 1500*time.Millisecond {
				t.Errorf("a 300 ms HTTP timeout took %v", time.Since(start))
			}
			if c.path == "/ask" && out.AdditionalContext != "from http" {
				t.Errorf("additionalContext %q", out.AdditionalContext)
			}
		})
	}
	if b, _ := lastBody.Load().(string); b != `POST application/json {"event":"permissionRequest","toolName":"Bash","n":1}` {
		t.Errorf("request: %s", b)
	}
}

func TestLayersAndTrustStore(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".oh", "config.yaml"), "hooks:\n  preToolUse:\n    - command: exit 1\n")
	opts := Options{Home: home, Cwd: cwd}

	// Only the user layer; no trust store file: everything is trusted.
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if out := fireOK(t, h, Envelope{Event: "preToolUse"}); out.Allowed {
		t.Errorf("user layer: %+v", out)
	}
	h.Close()

	// Hooks add up (version 1.1): the user's still run beside the project's.
	writeFile(t, filepath.Join(cwd, ".oh", "config.yaml"), "hooks:\n  userPromptSubmit:\n    - command: exit 1\n")
	h, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if out := fireOK(t, h, Envelope{Event: "preToolUse"}); out.Allowed || len(out.Hooks) != 1 {
		t.Errorf("the user's hooks still run beside the project's: %+v", out)
	}
	if out := fireOK(t, h, Envelope{Event: "userPromptSubmit", Prompt: "x"}); out.Allowed {
		t.Errorf("project layer: %+v", out)
	}
	h.Close()
	h, err = New(Options{Home: home, Cwd: cwd, Layers: []string{"user"}})
	if err != nil {
		t.Fatal(err)
	}
	if out := fireOK(t, h, Envelope{Event: "preToolUse"}); out.Allowed {
		t.Errorf("layers [user]: %+v", out)
	}
	h.Close()

	// A trust store that lists another directory (even a parent) makes cwd untrusted.
	store := filepath.Join(home, ".oh", "trusted-dirs.json")
	b, _ := json.Marshal(map[string]any{"trusted": []string{filepath.Dir(cwd)}})
	writeFile(t, store, string(b))
	h, err = New(opts)
	if err != nil {
		t.Fatal(err)
	}
	// Untrusted: the project's file is not read at all, and the outcome says so.
	if out := fireOK(t, h, Envelope{Event: "userPromptSubmit", Prompt: "x"}); !out.Allowed || len(out.Hooks) != 0 ||
		len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "was not loaded") {
		t.Errorf("untrusted cwd: %+v", out)
	}
	h.Close()
	// Listing cwd itself trusts it; a malformed store trusts nothing.
	b, _ = json.Marshal(map[string]any{"trusted": []string{cwd}})
	writeFile(t, store, string(b))
	h, _ = New(opts)
	if out := fireOK(t, h, Envelope{Event: "userPromptSubmit", Prompt: "x"}); out.Allowed {
		t.Errorf("trusted cwd: %+v", out)
	}
	h.Close()
	writeFile(t, store, `{"trusted": "everything"}`)
	h, _ = New(opts)
	if out := fireOK(t, h, Envelope{Event: "userPromptSubmit", Prompt: "x"}); !out.Allowed || len(out.Hooks) != 0 {
		t.Errorf("malformed store: %+v", out)
	}
	h.Close()
}

func TestConfigWatch(t *testing.T) {
	cwd := t.TempDir()
	path := filepath.Join(cwd, ".oh", "config.yaml")
	writeFile(t, path, "hooks:\n  preToolUse:\n    - command: exit 1\n")
	h, err := New(Options{Cwd: cwd, Home: t.TempDir(), Trusted: Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if out := fireOK(t, h, Envelope{Event: "preToolUse"}); out.Allowed {
		t.Fatalf("before: %+v", out)
	}
	// A changed file is noticed on fire (checked at most a few times a second).
	writeFile(t, path, "hooks:\n  preToolUse:\n    - command: exit 0\n      timeout: 1000\n")
	var out Outcome
	deadline := time.Now().Add(3 * time.Second)
	for {
		out = fireOK(t, h, Envelope{Event: "preToolUse"})
		if out.Allowed || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !out.Allowed {
		t.Fatalf("the changed config was not picked up: %+v", out)
	}
	// A bad change keeps the old config and is reported in warnings.
	writeFile(t, path, "hooks:\n  preToolUse:\n    - command: exit 1\n      timeout: nope\n")
	deadline = time.Now().Add(3 * time.Second)
	for {
		out = fireOK(t, h, Envelope{Event: "preToolUse"})
		if len(out.Warnings) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !out.Allowed || len(out.Warnings) == 0 {
		t.Fatalf("bad change: %+v", out)
	}
}

func TestCommandHookProcessRules(t *testing.T) {
	// Non-blocking events return at once.
	h := newTestHooks(t, hooksCfg("postToolUse", map[string]any{"command": "sleep 1"}))
	start := time.Now()
	if out := fireOK(t, h, Envelope{Event: "postToolUse"}); !out.Allowed || len(out.Hooks) != 0 {
		t.Errorf("postToolUse: %+v", out)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("a non-blocking fire took %v", d)
	}

	// A hook ignoring SIGTERM is killed 500 ms after its timeout.
	h = newTestHooks(t, hooksCfg("preToolUse", map[string]any{"command": "trap '' TERM; sleep 5", "timeout": 200}))
	start = time.Now()
	out := fireOK(t, h, Envelope{Event: "preToolUse"})
	d := time.Since(start)
	if out.Allowed || out.Hooks[0].TimedOut == nil || !*out.Hooks[0].TimedOut || d > 2*time.Second || d < 600*time.Millisecond {
		t.Errorf("TERM-ignoring hook: %+v after %v", out, d)
	}

	// A background child holding stdout does not hold the fire.
	h = newTestHooks(t, hooksCfg("preToolUse", map[string]any{"jsonIO": true,
		"command": `sleep 3 & printf '{"decision":"deny","reason":"quick"}'`}))
	start = time.Now()
	out = fireOK(t, h, Envelope{Event: "preToolUse"})
	if out.Reason != "quick" || time.Since(start) > 1500*time.Millisecond {
		t.Errorf("background child: %+v after %v", out, time.Since(start))
	}

	// Stale OH_* variables of the host do not reach hooks; OH_PROMPT is cut to 8192 bytes on a
	// character boundary.
	t.Setenv("OH_TOOL_NAME", "stale")
	h = newTestHooks(t, hooksCfg("userPromptSubmit", map[string]any{
		"command": `[ -z "${OH_TOOL_NAME+set}" ] && [ "$(printf %s "$OH_PROMPT" | wc -c)" -eq 8191 ]`}))
	prompt := "a" + strings.Repeat("é", 5000) // 10001 bytes; byte 8192 is inside a character
	if out := fireOK(t, h, Envelope{Event: "userPromptSubmit", Prompt: prompt}); !out.Allowed {
		t.Errorf("stale variable or OH_PROMPT length: %+v", out)
	}
}
