package ohhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// hooksCfg builds an inline config {"hooks": {event: [entries...]}}.
func hooksCfg(event string, entries ...map[string]any) map[string]any {
	list := make([]any, len(entries))
	for i, e := range entries {
		list[i] = e
	}
	return map[string]any{"hooks": map[string]any{event: list}}
}

// newTestHooks creates a trusted engine with an inline config and closes it at the end of the test.
func newTestHooks(t *testing.T, cfg map[string]any) *Hooks {
	t.Helper()
	h, err := New(Options{Config: cfg, Trusted: Ptr(true), Cwd: t.TempDir()})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *ohhooks.Error", err, err)
	}
	return e
}

func TestVersion(t *testing.T) {
	v := Version()
	if v == "" {
		t.Fatal("Version() is empty")
	}
	if hv := headerVersion(); hv != v {
		t.Fatalf("header declares %s, library reports %s", hv, v)
	}
}

func TestOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	badYAML := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badYAML, []byte("hooks:\n  preToolUse:\n    - command: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unknownEvent := filepath.Join(dir, "event.yaml")
	if err := os.WriteFile(unknownEvent, []byte("hooks:\n  PreToolUse:\n    - command: exit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badTimeout := filepath.Join(dir, "timeout.yaml")
	if err := os.WriteFile(badTimeout, []byte("hooks:\n  preToolUse:\n    - command: exit 0\n      timeout: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name     string
		opts     *Options
		raw      []byte
		code     string
		path     string
		wantFile string
	}{
		{name: "unknown key", raw: []byte(`{"cwdd": "/tmp"}`), code: CodeInvalidOptions},
		{name: "wrong type", raw: []byte(`{"strict": "yes"}`), code: CodeInvalidOptions},
		{name: "not an object", raw: []byte(`[1]`), code: CodeInvalidOptions},
		{name: "not JSON", raw: []byte(`{`), code: CodeInvalidOptions},
		{name: "NUL byte", raw: []byte("{}\x00{\"x\":1}"), code: CodeInvalidOptions},
		{name: "negative timeout", opts: &Options{DefaultTimeoutMs: -1}, code: CodeInvalidOptions},
		{name: "negative maxOutputBytes", opts: &Options{MaxOutputBytes: -5}, code: CodeInvalidOptions},
		{name: "cwd not a directory", opts: &Options{Cwd: notDir}, code: CodeInvalidOptions},
		{name: "unknown layer", opts: &Options{Layers: []string{"global"}}, code: CodeInvalidOptions},
		{name: "config with configPath", opts: &Options{Config: map[string]any{}, ConfigPath: badYAML}, code: CodeInvalidOptions},
		{name: "unencodable config", opts: &Options{Config: map[string]any{"x": make(chan int)}}, code: CodeInvalidOptions},
		{name: "missing configPath", opts: &Options{ConfigPath: filepath.Join(dir, "nope.yaml")}, code: CodeIOError},
		{name: "bad YAML", opts: &Options{ConfigPath: badYAML}, code: CodeInvalidConfig, wantFile: badYAML},
		{name: "unknown event", opts: &Options{ConfigPath: unknownEvent}, code: CodeInvalidConfig, wantFile: unknownEvent},
		{name: "zero timeout", opts: &Options{ConfigPath: badTimeout}, code: CodeInvalidConfig,
			path: "hooks.preToolUse[0].timeout", wantFile: badTimeout},
		{name: "inline bad handler", opts: &Options{Config: hooksCfg("preToolUse", map[string]any{"command": "x", "http": "http://x"})},
			code: CodeInvalidConfig},
		{name: "inline matcher key", opts: &Options{Config: hooksCfg("preToolUse", map[string]any{"command": "x", "matcher": "Bash"})},
			code: CodeInvalidConfig, path: "hooks.preToolUse[0].matcher"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h *Hooks
			var err error
			if c.opts != nil {
				h, err = New(*c.opts)
			} else {
				h, err = NewJSON(c.raw)
			}
			if err == nil {
				h.Close()
				t.Fatalf("expected a %s error, got an engine", c.code)
			}
			if h != nil {
				t.Fatalf("a failed New returned a non-nil *Hooks")
			}
			e := asError(t, err)
			if e.Code != c.code {
				t.Fatalf("code = %q, want %q (%v)", e.Code, c.code, e)
			}
			if e.Message == "" {
				t.Fatalf("empty message")
			}
			if c.path != "" && e.Path != c.path {
				t.Errorf("path = %q, want %q (%v)", e.Path, c.path, e)
			}
			if c.wantFile != "" && e.File == "" {
				t.Errorf("no file in %v", e)
			}
			if !errors.Is(err, &Error{Code: c.code}) {
				t.Errorf("errors.Is by code failed")
			}
			t.Logf("%v", e)
		})
	}

	t.Run("YAML error has a line", func(t *testing.T) {
		_, err := New(Options{ConfigPath: badTimeout})
		if e := asError(t, err); e.Line == 0 {
			t.Errorf("no line in %+v", e)
		}
	})
	t.Run("defaults", func(t *testing.T) {
		h, err := NewJSON(nil)
		if err != nil {
			t.Fatalf("NewJSON(nil): %v", err)
		}
		h.Close()
	})
}

func TestOptionsMarshal(t *testing.T) {
	cases := []struct {
		opts Options
		want string
	}{
		{Options{}, `{}`},
		{Options{Layers: []string{}}, `{"layers":[]}`},
		{Options{Layers: []string{"project"}}, `{"layers":["project"]}`},
		{Options{Config: map[string]any(nil)}, `{}`},
		{Options{Config: json.RawMessage(`{"hooks":null}`)}, `{"config":{"hooks":null}}`},
		{Options{Config: map[string]any{}}, `{"config":{}}`},
		{Options{Trusted: Ptr(false)}, `{"trusted":false}`},
		{Options{Cwd: "/x", DefaultTimeoutMs: 5, Env: map[string]string{"A": "b"}, Strict: true,
			MaxOutputBytes: 7, WaitNonBlocking: true, Home: "/h", ConfigPath: "/c", Watch: Ptr(false), HTTPProxy: "http://p:3128", ShutdownTimeoutMs: 9},
			`{"cwd":"/x","home":"/h","configPath":"/c","defaultTimeoutMs":5,"env":{"A":"b"},"strict":true,"maxOutputBytes":7,"waitNonBlocking":true,"watch":false,"httpProxy":"http://p:3128","shutdownTimeoutMs":9}`},
	}
	for _, c := range cases {
		b, err := c.opts.MarshalJSON()
		if err != nil {
			t.Fatalf("%+v: %v", c.opts, err)
		}
		if !jsonEqual(t, b, []byte(c.want)) {
			t.Errorf("%+v: got %s, want %s", c.opts, b, c.want)
		}
	}
}

func TestEnvelopeMarshal(t *testing.T) {
	env := Envelope{
		Event:      "preToolUse",
		ToolName:   "Bash",
		TurnNumber: Ptr(0),
		Effort:     &Effort{Level: "high"},
		Extra:      map[string]any{"zeta": 1, "alpha": map[string]any{"b": true}, "prompt": ""},
	}
	b, err := env.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"event":"preToolUse","toolName":"Bash","turnNumber":0,"effort":{"level":"high"},"alpha":{"b":true},"prompt":"","zeta":1}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if b, _ := (Envelope{Event: "x", Prompt: "<a&b>"}).MarshalJSON(); string(b) != `{"event":"x","prompt":"<a&b>"}` {
		t.Errorf("HTML escaped: %s", b)
	}
	if b, _ := (Envelope{Extra: map[string]any{"a": 1}}).MarshalJSON(); string(b) != `{"a":1}` {
		t.Errorf("no event: %s", b)
	}

	var back Envelope
	if err := json.Unmarshal([]byte(want), &back); err != nil {
		t.Fatal(err)
	}
	b2, err := back.MarshalJSON()
	if err != nil || string(b2) != want {
		t.Fatalf("round trip: %s, %v", b2, err)
	}

	for name, bad := range map[string]Envelope{
		"event in Extra":   {Event: "preToolUse", Extra: map[string]any{"event": "x"}},
		"typed and Extra":  {Event: "preToolUse", ToolName: "Bash", Extra: map[string]any{"toolName": "Read"}},
		"unencodable":      {Event: "preToolUse", Extra: map[string]any{"f": func() {}}},
		"unencodable cost": {Event: "preToolUse", Cost: Ptr(-1.0 / zero())},
	} {
		_, err := bad.MarshalJSON()
		if e := asError(t, err); e.Code != CodeInvalidEnvelope {
			t.Errorf("%s: code %q", name, e.Code)
		}
	}
}

func zero() float64 { return 0 }

func TestEnvelopeErrors(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", map[string]any{"command": "exit 0"}))
	ctx := context.Background()

	typed := []struct {
		name string
		env  Envelope
		code string
	}{
		{"missing event", Envelope{ToolName: "Bash"}, CodeInvalidEnvelope},
		{"unknown event", Envelope{Event: "PreToolUse"}, CodeUnknownEvent},
		{"event in Extra", Envelope{Event: "preToolUse", Extra: map[string]any{"event": "x"}}, CodeInvalidEnvelope},
		{"conflicting Extra", Envelope{Event: "preToolUse", ToolName: "a", Extra: map[string]any{"toolName": "b"}}, CodeInvalidEnvelope},
	}
	for _, c := range typed {
		t.Run(c.name, func(t *testing.T) {
			out, err := h.Fire(ctx, c.env)
			e := asError(t, err)
			if e.Code != c.code {
				t.Fatalf("code %q, want %q (%v)", e.Code, c.code, e)
			}
			if out.Allowed || out.Error == nil || out.Error.Code != c.code || out.Error.Message != e.Message || len(out.Hooks) != 0 {
				t.Fatalf("outcome %+v does not carry the rejection", out)
			}
		})
	}

	raw := []struct {
		name string
		in   string
		code string
	}{
		{"not JSON", `{not json`, CodeInvalidEnvelope},
		{"array", `[]`, CodeInvalidEnvelope},
		{"empty", ``, CodeInvalidEnvelope},
		{"event not a string", `{"event": 1}`, CodeInvalidEnvelope},
		{"invalid UTF-8", "{\"event\":\"preToolUse\",\"toolName\":\"\xff\"}", CodeInvalidUTF8},
		{"NUL byte", "{\"event\":\"preToolUse\"}\x00", CodeInvalidEnvelope},
		{"deep nesting", `{"event":"preToolUse","x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`, CodeInvalidEnvelope},
	}
	for _, c := range raw {
		t.Run("raw "+c.name, func(t *testing.T) {
			b, err := h.FireJSON(ctx, []byte(c.in))
			e := asError(t, err)
			if e.Code != c.code {
				t.Fatalf("code %q, want %q (%v)", e.Code, c.code, e)
			}
			var out Outcome
			if jerr := json.Unmarshal(b, &out); jerr != nil {
				t.Fatalf("outcome %q: %v", b, jerr)
			}
			if out.Allowed || out.Error == nil || out.Error.Code != c.code || out.Hooks == nil || len(out.Hooks) != 0 {
				t.Fatalf("outcome %s does not carry the rejection", b)
			}
		})
	}
}

func TestAllowDeny(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse",
		map[string]any{"command": `[ "$OH_TOOL_NAME" != Bash ]`},
		map[string]any{"command": `exit 0`, "match": "Read"},
	))
	ctx := context.Background()

	out, err := h.Fire(ctx, Envelope{Event: "preToolUse", ToolName: "Bash", ToolArgs: `{"command":"rm -rf /"}`})
	if err != nil {
		t.Fatal(err)
	}
	if out.Allowed || out.Reason != "hook denied (exit code)" || out.PermissionDecision != "" {
		t.Fatalf("Bash: %+v", out)
	}
	if len(out.Hooks) != 1 || out.Hooks[0].Index != 0 || out.Hooks[0].Type != HookCommand ||
		out.Hooks[0].ExitCode == nil || *out.Hooks[0].ExitCode != 1 || out.Hooks[0].Result != ResultDeny ||
		out.Hooks[0].TimedOut == nil || *out.Hooks[0].TimedOut || out.Hooks[0].JSONIO {
		t.Fatalf("Bash trace: %+v", out.Hooks)
	}

	out, err = h.Fire(ctx, Envelope{Event: "preToolUse", ToolName: "Read"})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Allowed || out.Reason != "" || len(out.Hooks) != 2 || out.Hooks[1].Index != 1 ||
		out.Hooks[0].Result != ResultNone || *out.Hooks[0].ExitCode != 0 {
		t.Fatalf("Read: %+v", out)
	}

	// Non-blocking events never block and return at once.
	out, err = h.Fire(ctx, Envelope{Event: "postToolUse", ToolName: "Bash"})
	if err != nil || !out.Allowed {
		t.Fatalf("postToolUse: %+v, %v", out, err)
	}
}

func TestUntrusted(t *testing.T) {
	h, err := New(Options{Config: hooksCfg("preToolUse", map[string]any{"command": "exit 1"}), Trusted: Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out, err := h.Fire(context.Background(), Envelope{Event: "preToolUse", ToolName: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	// The inline config is the host's own: trust does not gate it (version 1.1).
	if out.Allowed || len(out.Hooks) != 1 || out.Hooks[0].Result != ResultDeny {
		t.Fatalf("untrusted: %+v", out)
	}
}

func TestJSONIOAdditionalContext(t *testing.T) {
	// The hook checks that it got the envelope on stdin, event first, then answers with context.
	script := `read -r line; case "$line" in
  '{"event":"userPromptSubmit","sessionId":"s1","prompt":"hello <world>","turnNumber":0,"custom":[1,2]}') ;;
  *) printf '{"decision":"deny","reason":"unexpected stdin: %s"}' "$line"; exit 0 ;;
esac
printf '{"hookSpecificOutput":{"additionalContext":"ctx from %s"}}' "$OH_PROMPT"`
	h := newTestHooks(t, hooksCfg("userPromptSubmit",
		map[string]any{"command": script, "jsonIO": true},
		map[string]any{"command": `printf '{"hookSpecificOutput":{"additionalContext":"second"}}'`, "jsonIO": true},
	))
	out, err := h.Fire(context.Background(), Envelope{
		Event: "userPromptSubmit", SessionID: "s1", Prompt: "hello <world>", TurnNumber: Ptr(0),
		Extra: map[string]any{"custom": []int{1, 2}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Allowed || out.AdditionalContext != "ctx from hello <world>\n\nsecond" {
		t.Fatalf("outcome: %+v", out)
	}
	if len(out.Hooks) != 2 || !out.Hooks[0].JSONIO || !out.Hooks[1].JSONIO {
		t.Fatalf("traces: %+v", out.Hooks)
	}
}

func TestPermissionRequest(t *testing.T) {
	h := newTestHooks(t, hooksCfg("permissionRequest",
		map[string]any{"command": `printf '{"hookSpecificOutput":{"decision":"deny","reason":"Bash is disabled by policy"}}'`,
			"jsonIO": true, "match": "Bash"},
		map[string]any{"command": `printf '{"hookSpecificOutput":{"decision":"allow"}}'`, "jsonIO": true, "match": "/^read$/i"},
	))
	ctx := context.Background()
	out, err := h.Fire(ctx, Envelope{Event: "permissionRequest", ToolName: "Bash"})
	if err != nil || out.Allowed || out.PermissionDecision != DecisionDeny || out.Reason != "Bash is disabled by policy" {
		t.Fatalf("Bash: %+v %v", out, err)
	}
	out, err = h.Fire(ctx, Envelope{Event: "permissionRequest", ToolName: "Read"})
	if err != nil || !out.Allowed || out.PermissionDecision != DecisionAllow {
		t.Fatalf("Read: %+v %v", out, err)
	}
	out, err = h.Fire(ctx, Envelope{Event: "permissionRequest", ToolName: "Write"})
	if err != nil || !out.Allowed || out.PermissionDecision != "" || len(out.Hooks) != 0 {
		t.Fatalf("Write: %+v %v", out, err)
	}
}

func TestConcurrentFires(t *testing.T) {
	// Deny when the tool name ends in an odd digit; every goroutine checks its own answer.
	h := newTestHooks(t, hooksCfg("preToolUse", map[string]any{
		"command": `case "$OH_TOOL_NAME" in *[13579]) echo "odd $OH_TOOL_NAME" >&2; exit 3;; esac; sleep 0.05`,
	}))
	const n = 16
	const rounds = 4
	var wg sync.WaitGroup
	errs := make(chan error, n*rounds)
	start := time.Now()
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ctx := context.Background()
			if g%2 == 0 { // half of them through the goroutine (cancellable) path
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Minute)
				defer cancel()
			}
			for r := 0; r < rounds; r++ {
				name := fmt.Sprintf("Tool%d", g*rounds+r)
				out, err := h.Fire(ctx, Envelope{Event: "preToolUse", ToolName: name})
				if err != nil {
					errs <- err
					continue
				}
				odd := (g*rounds+r)%2 == 1
				if out.Allowed == odd || len(out.Hooks) != 1 ||
					(odd && (out.Hooks[0].Stderr != "odd "+name+"\n" || *out.Hooks[0].ExitCode != 3)) {
					errs <- fmt.Errorf("%s: wrong outcome %+v", name, out)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d fires on %d goroutines in %v", n*rounds, n, time.Since(start))
}

func TestContextCancel(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "finished")
	h, err := New(Options{Config: hooksCfg("preToolUse", map[string]any{"command": "sleep 2; touch " + marker}),
		Trusted: Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := h.Fire(ctx, Envelope{Event: "preToolUse", ToolName: "Bash"})
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || err != ctx.Err() {
		t.Fatalf("err = %v, want ctx.Err()", err)
	}
	if out.Allowed {
		t.Fatalf("a cancelled fire returned Allowed")
	}
	if took > time.Second {
		t.Fatalf("Fire took %v after a 150ms deadline", took)
	}

	// An already-cancelled context does not fire at all.
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := h.FireJSON(cctx, []byte(`{"event":"preToolUse"}`)); err != context.Canceled {
		t.Fatalf("cancelled ctx: %v", err)
	}

	// The engine stopped the hook (TestFireCancelKillsHooks checks it in detail): Close is quick.
	h.Close()
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Fatalf("Close returned after %v: the cancelled hook kept running", d)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the cancelled hook ran to completion")
	}
}

func TestCloseTwice(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	var nilHooks *Hooks
	if err := nilHooks.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFireAfterClose(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", map[string]any{"command": "exit 0"}))
	h.Close()
	out, err := h.Fire(context.Background(), Envelope{Event: "preToolUse"})
	if e := asError(t, err); e.Code != CodeClosed || out.Allowed {
		t.Fatalf("Fire after Close: %+v, %v", out, err)
	}
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("errors.Is(err, ErrClosed) is false for %v", err)
	}
	b, err := h.FireJSON(context.Background(), []byte(`{"event":"preToolUse"}`))
	if !errors.Is(err, ErrClosed) || b != nil {
		t.Fatalf("FireJSON after Close: %q, %v", b, err)
	}
	if err := h.Reload(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Reload after Close: %v", err)
	}
	var nilHooks *Hooks
	if _, err := nilHooks.Fire(context.Background(), Envelope{Event: "preToolUse"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("nil Hooks: %v", err)
	}
}

func TestCloseWhileFiring(t *testing.T) {
	dir := t.TempDir()
	h, err := New(Options{Trusted: Ptr(true), Config: hooksCfg("preToolUse", map[string]any{
		"command": `touch "` + dir + `/started.$OH_SESSION_ID"; sleep 0.5; exit 1`})})
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	type result struct {
		out Outcome
		err error
	}
	results := make(chan result, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			ctx := context.Background()
			if i%2 == 1 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
			}
			out, err := h.Fire(ctx, Envelope{Event: "preToolUse", SessionID: fmt.Sprint(i)})
			results <- result{out, err}
		}(i)
	}
	// Wait until every hook has started, then close while they run.
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(dir, "started.*"))
		if len(m) == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d hooks started", len(m), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	closeDone := make(chan struct{})
	go func() { h.Close(); close(closeDone) }()
	for i := 0; i < n; i++ {
		r := <-results
		if r.err != nil || r.out.Allowed || len(r.out.Hooks) != 1 || *r.out.Hooks[0].ExitCode != 1 {
			t.Errorf("a fire running during Close got %+v, %v", r.out, r.err)
		}
	}
	<-closeDone
	// And one started after Close sees a closed engine.
	if _, err := h.Fire(context.Background(), Envelope{Event: "preToolUse"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

func TestReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hooks.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("hooks:\n  preToolUse:\n    - command: exit 1\n")
	h, err := New(Options{ConfigPath: path, Trusted: Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	fire := func() Outcome {
		t.Helper()
		out, err := h.Fire(context.Background(), Envelope{Event: "preToolUse", ToolName: "Bash"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := fire(); out.Allowed {
		t.Fatalf("before reload: %+v", out)
	}

	write("hooks:\n  preToolUse:\n    - command: exit 0\n    - command: exit 0\n")
	if err := h.Reload(); err != nil {
		t.Fatalf("Reload: %v", err)
	}
	if out := fire(); !out.Allowed || len(out.Hooks) != 2 {
		t.Fatalf("after reload: %+v", out)
	}

	// A bad file: Reload says so, and the previous config stays in force.
	write("hooks:\n  preToolUse:\n    - command: exit 1\n      timeout: -3\n")
	err = h.Reload()
	e := asError(t, err)
	if e.Code != CodeInvalidConfig || e.Path != "hooks.preToolUse[0].timeout" {
		t.Fatalf("Reload of a bad file: %+v", e)
	}
	if out := fire(); !out.Allowed || len(out.Hooks) != 2 {
		t.Fatalf("after a failed reload: %+v", out)
	}
}

func TestWaitNonBlocking(t *testing.T) {
	h, err := New(Options{Trusted: Ptr(true), WaitNonBlocking: true, Config: hooksCfg("postToolUse",
		map[string]any{"command": `printf '{"decision":"deny","hookSpecificOutput":{"additionalContext":"seen %s"}}' "$OH_TOOL_OUTPUT"`, "jsonIO": true})})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out, err := h.Fire(context.Background(), Envelope{Event: "postToolUse", ToolName: "Bash", ToolOutput: "ok"})
	if err != nil || !out.Allowed || len(out.Hooks) != 1 || out.AdditionalContext != "seen ok" {
		t.Fatalf("%+v %v", out, err)
	}
}

func TestOutcomeJSON(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", map[string]any{"command": "exit 0"}))
	raw, err := h.FireJSON(context.Background(), []byte(`{"event":"preToolUse","toolName":"Bash"}`))
	if err != nil {
		t.Fatal(err)
	}
	var out Outcome
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	back, _ := json.Marshal(out)
	if !jsonEqual(t, raw, back) {
		t.Fatalf("Outcome does not round-trip:\n%s\n%s", raw, back)
	}
}

func TestContextVariables(t *testing.T) {
	// Typed fields reach the hook's environment, including 0 and false (pointer fields).
	check := `[ "$OH_EVENT" = turnStart ] && [ "$OH_TURN_NUMBER" = 0 ] && [ "$OH_WORKTREE_FORCED" = false ] &&
[ "$OH_EFFORT" = high ] && [ "$OH_COST" = 0.25 ] && [ "$OH_TOKENS" = 1200 ] && [ "$OH_SESSION_ID" = s ] &&
[ "$OH_CUSTOM" = "" ] && [ "${OH_TOOL_NAME+set}" = "" ] && [ "$FROM_OPTIONS" = yes ] || { env | grep -E '^OH_' >&2; exit 1; }`
	h, err := New(Options{Trusted: Ptr(true), WaitNonBlocking: true, Env: map[string]string{"FROM_OPTIONS": "yes"},
		Config: hooksCfg("turnStart", map[string]any{"command": check})})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out, err := h.Fire(context.Background(), Envelope{Event: "turnStart", TurnNumber: Ptr(0), WorktreeForced: Ptr(false),
		Effort: &Effort{Level: "high"}, Cost: Ptr(0.25), Tokens: Ptr(int64(1200)), SessionID: "s",
		Extra: map[string]any{"custom": "x"}})
	if err != nil || len(out.Hooks) != 1 || *out.Hooks[0].ExitCode != 0 {
		t.Fatalf("%+v %v", out, err)
	}

	// A NUL byte in a value fails that hook like a spawn failure, and its trace says so.
	h2 := newTestHooks(t, hooksCfg("preToolUse", map[string]any{"command": "exit 0"}))
	out, err = h2.Fire(context.Background(), Envelope{Event: "preToolUse", ToolName: "a\x00b"})
	if err != nil || out.Allowed || len(out.Hooks) != 1 || !strings.Contains(strings.ToUpper(out.Hooks[0].Error), "NUL") {
		t.Fatalf("NUL in toolName: %+v %v", out, err)
	}
}
