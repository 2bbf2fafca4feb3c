package ohhooks

// Host callbacks through the Go binding: Register, RegisterPrompt, OnDecision, and Fire's
// cancellation through the engine.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func cb(name string, extra ...any) map[string]any {
	m := map[string]any{"callback": name}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i].(string)] = extra[i+1]
	}
	return m
}

func mustRegister(t *testing.T, h *Hooks, name string, fn CallbackFunc) {
	t.Helper()
	if err := h.Register(name, fn); err != nil {
		t.Fatalf("Register(%q): %v", name, err)
	}
}

func TestCallbackDecides(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", cb("canUseTool")))
	var mu sync.Mutex
	var seen []Envelope
	mustRegister(t, h, "canUseTool", func(ctx context.Context, env Envelope) (Response, error) {
		mu.Lock()
		seen = append(seen, env)
		mu.Unlock()
		if env.ToolName == "Bash" {
			return Response{Decision: DecisionDeny, Reason: "no shell"}, nil
		}
		return Response{}, nil
	})
	out := fireOK(t, h, Envelope{Event: "preToolUse", ToolName: "Bash", Extra: map[string]any{"n": 1}})
	if out.Allowed || out.Reason != "no shell" || len(out.Hooks) != 1 || out.Hooks[0].Type != HookCallback ||
		out.Hooks[0].Result != ResultDeny {
		t.Fatalf("deny: %+v", out)
	}
	out = fireOK(t, h, Envelope{Event: "preToolUse", ToolName: "Read"})
	if !out.Allowed || out.Hooks[0].Result != ResultNone {
		t.Fatalf("no decision: %+v", out)
	}
	// Through a cancellable context (the engine's async fire) too.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, err := h.Fire(ctx, Envelope{Event: "preToolUse", ToolName: "Bash"})
	if err != nil || out.Allowed || out.Reason != "no shell" {
		t.Fatalf("async: %+v, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 || seen[0].ToolName != "Bash" || fmt.Sprint(seen[0].Extra["n"]) != "1" || seen[1].Event != "preToolUse" {
		t.Fatalf("the function saw %+v", seen)
	}
}

func TestCallbackResponseShape(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", cb("ctx"), cb("perm")))
	mustRegister(t, h, "ctx", func(ctx context.Context, env Envelope) (Response, error) {
		return Response{AdditionalContext: "from ctx"}, nil
	})
	mustRegister(t, h, "perm", func(ctx context.Context, env Envelope) (Response, error) {
		d := DecisionAsk
		if env.ToolName == "Read" {
			d = DecisionAllow
		}
		return Response{PermissionDecision: d, AdditionalContext: "from perm"}, nil
	})
	a := fireOK(t, h, Envelope{Event: "preToolUse", ToolName: "Read"})
	if !a.Allowed || a.PermissionDecision != DecisionAllow || a.AdditionalContext != "from ctx\n\nfrom perm" {
		t.Fatalf("allow: %+v", a)
	}
	b := fireOK(t, h, Envelope{Event: "preToolUse", ToolName: "Edit"})
	if b.PermissionDecision != DecisionAsk {
		t.Fatalf("ask: %+v", b)
	}
	raw, _ := Response{Decision: DecisionDeny, Reason: "r", PermissionDecision: DecisionDeny}.MarshalJSON()
	if string(raw) != `{"decision":"deny","reason":"r","hookSpecificOutput":{"decision":"deny"}}` {
		t.Fatalf("wire shape %s", raw)
	}
}

func TestCallbackErrorsFailTheHook(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", cb("bad")))
	mustRegister(t, h, "bad", func(ctx context.Context, env Envelope) (Response, error) {
		return Response{Decision: DecisionAllow}, errors.New("model unavailable")
	})
	out := fireOK(t, h, Envelope{Event: "preToolUse"})
	if out.Allowed || out.Hooks[0].Result != ResultDeny || out.Reason != `callback "bad" failed: model unavailable` {
		t.Fatalf("error: %+v", out)
	}
	mustRegister(t, h, "bad", func(ctx context.Context, env Envelope) (Response, error) {
		var m map[string]int
		m["boom"]++ // nil map: panics
		return Response{}, nil
	})
	out = fireOK(t, h, Envelope{Event: "preToolUse"})
	if out.Allowed || !strings.Contains(out.Reason, `callback "bad" failed: it panicked: assignment to entry in nil map`) {
		t.Fatalf("panic: %+v", out)
	}
}

func TestCallbackTimeoutAndLateAnswer(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", cb("never", "timeout", 200)))
	release := make(chan struct{})
	var returned atomic.Int32
	mustRegister(t, h, "never", func(ctx context.Context, env Envelope) (Response, error) {
		<-release
		returned.Add(1)
		return Response{PermissionDecision: DecisionAllow}, nil
	})
	start := time.Now()
	out := fireOK(t, h, Envelope{Event: "preToolUse"})
	took := time.Since(start)
	if out.Allowed || out.Hooks[0].Result != ResultDeny {
		t.Fatalf("a callback that never answers must fail the hook: %+v", out)
	}
	if took < 180*time.Millisecond || took > 3*time.Second {
		t.Fatalf("took %v for a 200 ms timeout", took)
	}
	close(release) // the late answer is dropped
	deadline := time.Now().Add(5 * time.Second)
	for returned.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if fireOK(t, h, Envelope{Event: "preToolUse"}).Allowed != true {
		t.Fatal("after release the function answers allow at once")
	}
}

func TestCallbackRegistration(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", cb("c")))
	if out := fireOK(t, h, Envelope{Event: "preToolUse"}); !strings.Contains(out.Reason, "no callback registered for c") {
		t.Fatalf("unregistered: %+v", out)
	}
	for _, r := range []string{"first", "second"} {
		r := r
		mustRegister(t, h, "c", func(ctx context.Context, env Envelope) (Response, error) {
			return Response{Decision: DecisionDeny, Reason: r}, nil
		})
		if out := fireOK(t, h, Envelope{Event: "preToolUse"}); out.Reason != r {
			t.Fatalf("replaced: %+v", out)
		}
	}
	if err := h.Register("c", nil); err != nil {
		t.Fatal(err)
	}
	if out := fireOK(t, h, Envelope{Event: "preToolUse"}); !strings.Contains(out.Reason, "no callback registered for c") {
		t.Fatalf("removed: %+v", out)
	}
	for _, bad := range []string{"", "a\x00b"} {
		if e := asError(t, h.Register(bad, func(context.Context, Envelope) (Response, error) { return Response{}, nil })); e.Code != CodeInvalidOptions {
			t.Fatalf("Register(%q): %v", bad, e)
		}
	}
	h.Close()
	if err := h.Register("c", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if err := h.OnDecision(func(Record) {}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

func TestPromptEvaluator(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", map[string]any{"prompt": "Is this command safe?"}))
	if out := fireOK(t, h, Envelope{Event: "preToolUse"}); out.Reason != "prompt hook has no evaluator" {
		t.Fatalf("no evaluator: %+v", out)
	}
	var asked []PromptRequest
	var mu sync.Mutex
	if err := h.RegisterPrompt(func(ctx context.Context, req PromptRequest) (Response, error) {
		mu.Lock()
		asked = append(asked, req)
		mu.Unlock()
		if strings.Contains(req.Envelope.ToolArgs, "rm -rf") {
			return Response{Decision: DecisionDeny, Reason: "model: unsafe (" + req.Prompt + ")"}, nil
		}
		return Response{Decision: DecisionAllow}, nil
	}); err != nil {
		t.Fatal(err)
	}
	bad := fireOK(t, h, Envelope{Event: "preToolUse", ToolName: "Bash", ToolArgs: "rm -rf /"})
	if bad.Allowed || bad.Reason != "model: unsafe (Is this command safe?)" || bad.Hooks[0].Type != HookPrompt {
		t.Fatalf("deny: %+v", bad)
	}
	if good := fireOK(t, h, Envelope{Event: "preToolUse", ToolName: "Bash", ToolArgs: "ls"}); !good.Allowed {
		t.Fatalf("allow: %+v", good)
	}
	if asked[0].Prompt != "Is this command safe?" || asked[0].Envelope.Event != "preToolUse" || asked[0].Envelope.ToolName != "Bash" {
		t.Fatalf("asked %+v", asked[0])
	}
}

func TestCallbackReentrant(t *testing.T) {
	cfg := map[string]any{"hooks": map[string]any{"preToolUse": []any{cb("outer")}, "userPromptSubmit": []any{cb("inner")}}}
	h := newTestHooks(t, cfg)
	mustRegister(t, h, "inner", func(ctx context.Context, env Envelope) (Response, error) {
		if env.Prompt == "bad" {
			return Response{Decision: DecisionDeny, Reason: "inner"}, nil
		}
		return Response{}, nil
	})
	mustRegister(t, h, "outer", func(ctx context.Context, env Envelope) (Response, error) {
		o, err := h.Fire(ctx, Envelope{Event: "userPromptSubmit", Prompt: env.ToolArgs})
		if err != nil {
			return Response{}, err
		}
		if !o.Allowed {
			return Response{Decision: DecisionDeny, Reason: "outer saw: " + o.Reason}, nil
		}
		return Response{}, nil
	})
	if out := fireOK(t, h, Envelope{Event: "preToolUse", ToolArgs: "bad"}); out.Reason != "outer saw: inner" {
		t.Fatalf("%+v", out)
	}
	if out := fireOK(t, h, Envelope{Event: "preToolUse", ToolArgs: "ok"}); !out.Allowed {
		t.Fatalf("%+v", out)
	}
}

func TestCallbacksConcurrent(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", cb("c")))
	mustRegister(t, h, "c", func(ctx context.Context, env Envelope) (Response, error) {
		if *env.TurnNumber%2 == 1 {
			return Response{Decision: DecisionDeny, Reason: fmt.Sprint(*env.TurnNumber)}, nil
		}
		return Response{}, nil
	})
	var wg sync.WaitGroup
	errs := make(chan error, 800)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				n := g*1000 + i
				ctx := context.Background()
				var cancel context.CancelFunc = func() {}
				if g%2 == 1 {
					ctx, cancel = context.WithTimeout(ctx, time.Minute)
				}
				out, err := h.Fire(ctx, Envelope{Event: "preToolUse", TurnNumber: Ptr(n)})
				cancel()
				if err != nil || out.Allowed != (n%2 == 0) || (!out.Allowed && out.Reason != fmt.Sprint(n)) {
					errs <- fmt.Errorf("%d: %+v %v", n, out, err)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestObserver(t *testing.T) {
	cfg := map[string]any{"hooks": map[string]any{
		"preToolUse":  []any{cb("c")},
		"postToolUse": []any{map[string]any{"command": "sleep 0.2; exit 3"}, cb("bg")},
	}}
	h := newTestHooks(t, cfg)
	mustRegister(t, h, "c", func(ctx context.Context, env Envelope) (Response, error) {
		return Response{Decision: DecisionDeny, Reason: "no"}, nil
	})
	mustRegister(t, h, "bg", func(ctx context.Context, env Envelope) (Response, error) {
		return Response{AdditionalContext: "bg ran"}, nil
	})
	records := make(chan Record, 10)
	if err := h.OnDecision(func(r Record) { records <- r }); err != nil {
		t.Fatal(err)
	}
	out := fireOK(t, h, Envelope{Event: "preToolUse", ToolName: "Bash"})
	// A fire on the calling thread delivers its record before Fire returns.
	select {
	case r := <-records:
		if r.Envelope.ToolName != "Bash" || r.Outcome.Reason != out.Reason || r.Outcome.Allowed || len(r.Raw) == 0 {
			t.Fatalf("record %+v for outcome %+v", r, out)
		}
	default:
		t.Fatal("no record when Fire returned")
	}
	if bg := fireOK(t, h, Envelope{Event: "postToolUse", ToolName: "Read"}); len(bg.Hooks) != 0 {
		t.Fatalf("a non-blocking fire returns before its hooks: %+v", bg)
	}
	select {
	case r := <-records:
		if len(r.Outcome.Hooks) != 2 || r.Outcome.Hooks[0].Type != HookCommand || *r.Outcome.Hooks[0].ExitCode != 3 ||
			r.Outcome.Hooks[1].Type != HookCallback {
			t.Fatalf("background record %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no record for the background hooks")
	}
	// A panicking observer is recovered; nil stops observing.
	if err := h.OnDecision(func(Record) { panic("audit log full") }); err != nil {
		t.Fatal(err)
	}
	fireOK(t, h, Envelope{Event: "preToolUse"})
	if err := h.OnDecision(nil); err != nil {
		t.Fatal(err)
	}
	fireOK(t, h, Envelope{Event: "preToolUse"})
	if len(records) != 0 {
		t.Fatalf("records after OnDecision(nil): %d", len(records))
	}
}

func TestFireCancelKillsHooks(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "finished")
	h := newTestHooks(t, hooksCfg("preToolUse", map[string]any{"command": "sleep 3; touch " + marker}))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := h.Fire(ctx, Envelope{Event: "preToolUse", ToolName: "Bash"})
	if !errors.Is(err, context.DeadlineExceeded) || out.Allowed {
		t.Fatalf("Fire: %+v, %v", out, err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Fire returned %v after a 150 ms deadline", took)
	}
	// Close does not wait for the hook: the engine stopped it.
	h.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("Close returned after %v: the cancelled hook kept running", took)
	}
	time.Sleep(3200*time.Millisecond - time.Since(start))
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the cancelled hook ran to completion")
	}
}

func TestFireCancelWithPendingCallback(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", cb("never", "timeout", 20000)))
	var sawCancel atomic.Bool
	mustRegister(t, h, "never", func(ctx context.Context, env Envelope) (Response, error) {
		<-ctx.Done() // cancelled by Close
		sawCancel.Store(true)
		return Response{}, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	start := time.Now()
	if _, err := h.Fire(ctx, Envelope{Event: "preToolUse"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Fire: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("cancel took %v with a pending callback", took)
	}
	h.Close()
	deadline := time.Now().Add(5 * time.Second)
	for !sawCancel.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !sawCancel.Load() {
		t.Fatal("Close did not cancel the callback's ctx")
	}
}

func TestCloseAnswersPendingCallbacks(t *testing.T) {
	h, err := New(Options{Trusted: Ptr(true), Config: hooksCfg("postToolUse", cb("stuck", "timeout", 20000))})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 1)
	block := make(chan struct{})
	defer close(block)
	if err := h.Register("stuck", func(ctx context.Context, env Envelope) (Response, error) {
		started <- struct{}{}
		<-block // ignores ctx on purpose
		return Response{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	records := make(chan Record, 1)
	if err := h.OnDecision(func(r Record) { records <- r }); err != nil {
		t.Fatal(err)
	}
	fireOK(t, h, Envelope{Event: "postToolUse"})
	<-started
	start := time.Now()
	h.Close()
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("Close waited %v for a callback that ignores its ctx", took)
	}
	select {
	case r := <-records:
		if len(r.Outcome.Hooks) != 1 || !strings.Contains(r.Outcome.Hooks[0].Reason+r.Outcome.Hooks[0].Error, "closed") {
			t.Fatalf("record %+v", r)
		}
	default:
		t.Fatal("the background hook's record did not arrive before Close returned")
	}
}

func TestRegisterJSONAndInline(t *testing.T) {
	h, err := New(Options{Trusted: Ptr(true), Strict: true, Config: hooksCfg("preToolUse", cb("raw"))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var got []byte
	if err := h.RegisterJSON("raw", func(ctx context.Context, req []byte) ([]byte, error) {
		got = append([]byte(nil), req...)
		return []byte(`{"decision":"deny","reason":"relayed"}`), nil
	}, Inline()); err != nil {
		t.Fatal(err)
	}
	out := fireOK(t, h, Envelope{Event: "preToolUse", ToolName: "Bash"})
	if out.Reason != "relayed" || string(got) != `{"event":"preToolUse","toolName":"Bash"}` {
		t.Fatalf("%+v, request %s", out, got)
	}
	for _, c := range []struct{ resp, reason string }{
		{`{"decision": `, "malformed hook response"},
		{"a\x00b", `callback "raw" failed: its response contains a NUL byte`},
	} {
		resp := c.resp
		if err := h.RegisterJSON("raw", func(context.Context, []byte) ([]byte, error) { return []byte(resp), nil }); err != nil {
			t.Fatal(err)
		}
		if out := fireOK(t, h, Envelope{Event: "preToolUse"}); out.Allowed || out.Reason != c.reason {
			t.Fatalf("answer %q: %+v", resp, out)
		}
	}
	// Inline runs on the firing thread: a panic there is still recovered.
	if err := h.Register("raw", func(context.Context, Envelope) (Response, error) { panic("inline boom") }, Inline()); err != nil {
		t.Fatal(err)
	}
	if out := fireOK(t, h, Envelope{Event: "preToolUse"}); out.Allowed || !strings.Contains(out.Reason, "inline boom") {
		t.Fatalf("%+v", out)
	}
}

// A callback that fires again while Close waits for the running fire: the inner fire fails at
// once (closed) instead of waiting for Close, which waits for the outer fire (no deadlock).
func TestCloseWhileACallbackFires(t *testing.T) {
	h, err := New(Options{Trusted: Ptr(true), Config: map[string]any{"hooks": map[string]any{
		"preToolUse": []any{cb("outer")}, "userPromptSubmit": []any{cb("inner")}}}})
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	var innerErr error
	if err := h.Register("outer", func(ctx context.Context, env Envelope) (Response, error) {
		go func() { h.Close(); close(closed) }()
		deadline := time.Now().Add(5 * time.Second)
		for {
			h.mu.Lock()
			closing := h.closing
			h.mu.Unlock()
			if closing || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		_, innerErr = h.Fire(context.Background(), Envelope{Event: "userPromptSubmit"})
		return Response{Decision: DecisionDeny, Reason: "outer"}, nil
	}, Inline()); err != nil {
		t.Fatal(err)
	}
	done := make(chan Outcome, 1)
	go func() {
		out, _ := h.Fire(context.Background(), Envelope{Event: "preToolUse"})
		done <- out
	}()
	select {
	case out := <-done:
		// Close answers the running call at once (its own answer then comes too late).
		if out.Allowed || (out.Reason != "outer" && out.Reason != "callback not answered: the engine was closed") {
			t.Fatalf("outer fire: %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock: the outer fire did not finish")
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock: Close did not return")
	}
	if !errors.Is(innerErr, ErrClosed) {
		t.Fatalf("the inner fire during Close: %v", innerErr)
	}
}

// A fire with a ctx that can end runs on the calling thread too (oh_hooks_fire_reserved): an
// Inline function of a blocking event sees the caller's OS thread, and the ctx still cancels.
func TestFireCancellableRunsOnTheCallingThread(t *testing.T) {
	h := newTestHooks(t, hooksCfg("preToolUse", cb("where")))
	var tid atomic.Int64
	if err := h.Register("where", func(context.Context, Envelope) (Response, error) {
		tid.Store(int64(syscall.Gettid()))
		return Response{}, nil
	}, Inline()); err != nil {
		t.Fatal(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := h.Fire(ctx, Envelope{Event: "preToolUse", ToolName: "Bash"}); err != nil {
		t.Fatal(err)
	}
	if got, me := tid.Load(), int64(syscall.Gettid()); got != me {
		t.Fatalf("the Inline function ran on thread %d, Fire was called on %d", got, me)
	}
}
