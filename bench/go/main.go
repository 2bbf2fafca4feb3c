// Go part of `make bench`: per-call time of a fire through the binding.
//
//	gobench ENVELOPE_FILE SAMPLES OUT_FILE
//
// Rows (interleaved, order shuffled each round): Fire(ctx, Envelope) with the typed envelope and
// FireJSON(ctx, []byte) with the raw text, ctx = context.Background() (the calling thread), on an
// engine with no hook for preToolUse; the same Fire with a cancellable ctx (on the calling thread
// under a reserved fire id, cancelled in the engine if ctx ends); a goroutine woken by a C thread
// (floor.go: the floor of the foreign-thread completion Fire(ctx) used before); and Fire(context.Background(), Envelope) on an
// engine whose one preToolUse hook is `callback: bench`, a Go function that answers at once with
// no decision, registered as usual (a goroutine per call) and with ohhooks.Inline(). One sample = a batch of calls timed as a whole; ns per call is appended to
// OUT_FILE as `<row> <ns>` lines.
package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	ohhooks "github.com/oh-hooks/ohhooks"
)

const batch = 1000

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "error: go bench: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: gobench ENVELOPE_FILE SAMPLES OUT_FILE")
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	text := bytes.TrimSpace(raw)
	samples, err := strconv.Atoi(os.Args[2])
	if err != nil || samples < 1 {
		fail("bad SAMPLES %q", os.Args[2])
	}
	cwd, _ := os.Getwd()
	h, err := ohhooks.New(ohhooks.Options{
		Cwd:     cwd,
		Trusted: ohhooks.Ptr(true),
		Config:  map[string]any{"hooks": map[string]any{"postToolUse": []any{map[string]any{"command": "true"}}}},
	})
	if err != nil {
		fail("New: %v", err)
	}
	defer h.Close()

	// The typed envelope carrying the same fields, in the same order, as ENVELOPE_FILE.
	env := ohhooks.Envelope{
		Event:          "preToolUse",
		ToolName:       "Bash",
		ToolArgs:       `{"command":"ls -la /tmp","description":"List files"}`,
		SessionID:      "5f0c2e9a-8b1d-4c3e-9f7a-2d6b1e0c4a11",
		Model:          "claude-sonnet-4",
		Provider:       "anthropic",
		PermissionMode: "default",
		TurnNumber:     ohhooks.Ptr(3),
		Extra:          map[string]any{"cwd": "/work/project"},
	}
	if m, err := env.MarshalJSON(); err != nil || !bytes.Equal(m, text) {
		fmt.Fprintf(os.Stderr, "note: go bench: the typed envelope marshals to %s (err %v), not to the file's text\n", m, err)
	}
	ctx := context.Background()
	out, err := h.Fire(ctx, env)
	if err != nil || !out.Allowed || len(out.Hooks) != 0 {
		fail("unexpected outcome %+v (err %v)", out, err)
	}
	if o, err := h.FireJSON(ctx, text); err != nil || string(o) != `{"allowed":true,"hooks":[]}` {
		fail("unexpected outcome %s (err %v)", o, err)
	}

	cbh, err := ohhooks.New(ohhooks.Options{
		Cwd:     cwd,
		Trusted: ohhooks.Ptr(true),
		Config:  map[string]any{"hooks": map[string]any{env.Event: []any{map[string]any{"callback": "bench"}}}},
	})
	if err != nil {
		fail("New: %v", err)
	}
	defer cbh.Close()
	var calls int64
	if err := cbh.Register("bench", func(ctx context.Context, e ohhooks.Envelope) (ohhooks.Response, error) {
		atomic.AddInt64(&calls, 1)
		return ohhooks.Response{}, nil
	}); err != nil {
		fail("Register: %v", err)
	}
	if out, err := cbh.Fire(ctx, env); err != nil || !out.Allowed || len(out.Hooks) != 1 ||
		out.Hooks[0].Type != ohhooks.HookCallback || atomic.LoadInt64(&calls) != 1 {
		fail("unexpected callback outcome %+v (err %v)", out, err)
	}
	// The same function run on the hook's own thread (ohhooks.Inline()).
	inh, err := ohhooks.New(ohhooks.Options{
		Cwd:     cwd,
		Trusted: ohhooks.Ptr(true),
		Config:  map[string]any{"hooks": map[string]any{env.Event: []any{map[string]any{"callback": "bench"}}}},
	})
	if err != nil {
		fail("New: %v", err)
	}
	defer inh.Close()
	if err := inh.Register("bench", func(ctx context.Context, e ohhooks.Envelope) (ohhooks.Response, error) {
		atomic.AddInt64(&calls, 1)
		return ohhooks.Response{}, nil
	}, ohhooks.Inline()); err != nil {
		fail("Register: %v", err)
	}
	if out, err := inh.Fire(ctx, env); err != nil || !out.Allowed || len(out.Hooks) != 1 || atomic.LoadInt64(&calls) != 2 {
		fail("unexpected inline callback outcome %+v (err %v)", out, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if out, err := h.Fire(cctx, env); err != nil || !out.Allowed || len(out.Hooks) != 0 {
		fail("unexpected outcome with a cancellable ctx %+v (err %v)", out, err)
	}

	rows := map[string]func() float64{
		"go.Fire.cb": func() float64 {
			t0 := time.Now()
			for i := 0; i < batch; i++ {
				if _, err := cbh.Fire(ctx, env); err != nil {
					fail("Fire: %v", err)
				}
			}
			return float64(time.Since(t0).Nanoseconds()) / batch
		},
		"go.Fire.cb.inline": func() float64 {
			t0 := time.Now()
			for i := 0; i < batch; i++ {
				if _, err := inh.Fire(ctx, env); err != nil {
					fail("Fire: %v", err)
				}
			}
			return float64(time.Since(t0).Nanoseconds()) / batch
		},
		"go.Fire.ctx": func() float64 {
			t0 := time.Now()
			for i := 0; i < batch; i++ {
				if _, err := h.Fire(cctx, env); err != nil {
					fail("Fire: %v", err)
				}
			}
			return float64(time.Since(t0).Nanoseconds()) / batch
		},
		"go.floor.cwake": func() float64 {
			t0 := time.Now()
			for i := 0; i < batch/5; i++ {
				floorRoundTrip()
			}
			return float64(time.Since(t0).Nanoseconds()) / (batch / 5)
		},
		"go.Fire": func() float64 {
			t0 := time.Now()
			for i := 0; i < batch; i++ {
				if _, err := h.Fire(ctx, env); err != nil {
					fail("Fire: %v", err)
				}
			}
			return float64(time.Since(t0).Nanoseconds()) / batch
		},
		"go.FireJSON": func() float64 {
			t0 := time.Now()
			for i := 0; i < batch; i++ {
				if _, err := h.FireJSON(ctx, text); err != nil {
					fail("FireJSON: %v", err)
				}
			}
			return float64(time.Since(t0).Nanoseconds()) / batch
		},
	}
	startFloor()
	names := []string{"go.Fire", "go.FireJSON", "go.Fire.cb", "go.Fire.cb.inline", "go.Fire.ctx", "go.floor.cwake"}
	for w := 0; w < 2; w++ {
		for _, n := range names {
			rows[n]()
		}
	}
	var sb strings.Builder
	for s := 0; s < samples; s++ {
		rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		for _, n := range names {
			fmt.Fprintf(&sb, "%s %.1f\n", n, rows[n]())
		}
	}
	f, err := os.OpenFile(os.Args[3], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fail("%v", err)
	}
	if _, err := f.WriteString(sb.String()); err != nil {
		fail("%v", err)
	}
	if err := f.Close(); err != nil {
		fail("%v", err)
	}
}
