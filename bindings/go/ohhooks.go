// Package ohhooks is the Go binding of oh-hooks, an embeddable engine for openHarness hooks.
//
// A harness creates one engine with [New], fires an event with [Hooks.Fire] at each point of its
// loop (before a tool runs, when the user submits a prompt, ...), acts on the returned [Outcome],
// and calls [Hooks.Close] when done:
//
//	h, err := ohhooks.New(ohhooks.Options{Cwd: projectDir})
//	if err != nil {
//		return err // *ohhooks.Error: a bad option or a bad .oh/config.yaml, with file, line and path
//	}
//	defer h.Close()
//	out, err := h.Fire(ctx, ohhooks.Envelope{Event: "preToolUse", ToolName: "Bash"})
//	if err != nil || !out.Allowed {
//		// do not run the tool; out.Reason says why
//	}
//
// # Errors
//
// Every error this package returns is either an [*Error] (with a Code such as "invalid_options",
// "invalid_envelope" or "closed") or, from Fire and FireJSON, the context's own error
// (ctx.Err()) when the context ends before the engine answers.
//
// When the engine rejects an envelope (bad JSON, no event, an unknown event, ...) it still answers
// with an outcome: one whose "error" is set, whose "allowed" is false and whose "hooks" is empty.
// Fire and FireJSON then return that outcome AND a non-nil [*Error] carrying the same code and
// message. The error is what a Go caller checks first; the outcome is returned too so that code
// which only looks at Allowed still fails closed. The binding's own checks of an envelope (an Extra
// key that collides with a typed field, a NUL byte in raw JSON) follow the same rule. On every
// other error (closed engine, cancelled context) the returned Outcome is the zero value, whose
// Allowed is false, and FireJSON returns nil bytes.
//
// # Concurrency
//
// A *Hooks may be used by any number of goroutines at once. Close waits for fires still running
// (including ones whose caller stopped waiting because its context ended), then releases the engine;
// fires that start after Close return an *Error with Code "closed". A finalizer closes an engine
// that becomes unreachable without Close, but Close should be called explicitly: the finalizer runs
// at an unknown time and the engine holds threads and child processes until then.
//
// # Host functions
//
// A config's `callback: <name>` hooks call the Go function registered with [Hooks.Register]
// (or [Hooks.RegisterJSON]) under that name, and its prompt hooks call the evaluator registered
// with [Hooks.RegisterPrompt]; [Hooks.OnDecision] receives one [Record] per fire, for audit logs.
// Each call runs on a goroutine of its own unless registered with [Inline]; an error or a panic
// fails the hook, and the hook's timeout bounds the wait for an answer.
//
// # Linking
//
// The published module links the static library it carries for the platform
// (lib/<goos>-<goarch>/liboh_hooks.a) with -L and -loh_hooks, so CGO_LDFLAGS="-L<dir>" links
// another build instead; the build tag ohhooks_system links the system's install through
// pkg-config. In the repository, the package links target/release/liboh_hooks.a (the build tag
// ohhooks_shared: target/release/liboh_hooks.so). See the README's "Install" section.
package ohhooks

/*
#include <stdlib.h>
#include <string.h>
#include "oh_hooks.h"

// One fire in one cgo call (each call costs about 100-200 ns): runs oh_hooks_fire, or
// oh_hooks_fire_reserved when reserved is set, on the NUL-terminated envelope in buf, then copies
// the outcome over buf when it fits in cap bytes (the envelope is no longer needed) and frees it.
// out is NULL when the engine returned no outcome (out of memory), buf when the outcome was
// copied there, else the engine's string, which the caller frees with oh_hooks_string_free.
typedef struct {
	char *out;
	size_t len;
} ohhooks_fired;

static ohhooks_fired ohhooks_fire(const OhHooks *hooks, char *buf, size_t cap, int reserved, uint64_t id) {
	ohhooks_fired r;
	r.out = reserved ? oh_hooks_fire_reserved(hooks, buf, id) : oh_hooks_fire(hooks, buf);
	r.len = r.out ? strlen(r.out) : 0;
	if (r.out != NULL && r.len <= cap) {
		memcpy(buf, r.out, r.len);
		oh_hooks_string_free(r.out);
		r.out = buf;
	}
	return r;
}
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// Version returns the version of the linked engine, e.g. "0.1.0".
func Version() string {
	return C.GoString(C.oh_hooks_version())
}

// headerVersion is the version the header this package was compiled against declares.
func headerVersion() string {
	return fmt.Sprintf("%d.%d.%d", int(C.OH_HOOKS_VERSION_MAJOR), int(C.OH_HOOKS_VERSION_MINOR),
		int(C.OH_HOOKS_VERSION_PATCH))
}

// Hooks is one hook engine: a validated configuration plus the machinery that runs its hooks.
// Create it with [New] or [NewJSON]; it is safe for concurrent use.
type Hooks struct {
	// mu guards the fields below. Every C call that uses ptr is counted in users for as long as
	// it runs; Close sets closing (so no new call starts, and a call made from inside a running
	// one, such as a callback firing again, fails at once instead of waiting), waits for users to
	// drop to 0, and only then frees the engine. A sync.RWMutex would deadlock there: a read lock
	// taken again by a callback while Close waits for the write lock never comes.
	mu      sync.Mutex
	idle    sync.Cond // signalled when users drops to 0, and when the engine is freed
	ptr     *C.OhHooks
	users   int
	closing bool
	freeing bool // oh_hooks_free is running: not even a cancel may use ptr
	host    *host
}

// acquire returns the engine for one C call, or nil when it is closed (or closing). Pair it with
// release. evenClosing lets a cancel through while Close waits for the calls in flight, so that a
// cancelled fire stops its hooks instead of holding Close up.
func (h *Hooks) acquire(evenClosing bool) *C.OhHooks {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ptr == nil || h.freeing || (h.closing && !evenClosing) {
		return nil
	}
	h.users++
	return h.ptr
}

func (h *Hooks) release() {
	h.mu.Lock()
	h.users--
	if h.users == 0 {
		h.idle.Broadcast()
	}
	h.mu.Unlock()
}

// New creates an engine from typed options. The configuration (the layers, ConfigPath or Config)
// is read and validated now: a problem is returned as an [*Error] with Code "invalid_options",
// "invalid_config" (with File, Line and Path where known) or "io_error".
func New(opts Options) (*Hooks, error) {
	b, err := opts.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return NewJSON(b)
}

// NewJSON creates an engine from options given as raw JSON (the object of docs/options.md "Options"). nil means
// all defaults. Errors are as for [New].
func NewJSON(options []byte) (*Hooks, error) {
	var cOpts *C.char
	if options != nil {
		if bytes.IndexByte(options, 0) >= 0 {
			return nil, &Error{Code: CodeInvalidOptions,
				Message: "options JSON contains a NUL byte; pass a JSON object without NUL bytes"}
		}
		cOpts = cBytes(options)
		defer C.free(unsafe.Pointer(cOpts))
	}
	var errOut *C.char
	p := C.oh_hooks_new(cOpts, &errOut)
	if p == nil {
		if errOut == nil {
			return nil, &Error{Code: CodeInternal, Message: "oh_hooks_new failed without an error"}
		}
		return nil, takeError(errOut)
	}
	if errOut != nil { // not expected on success; never leak it
		C.oh_hooks_string_free(errOut)
	}
	h := &Hooks{ptr: p, host: newHost()}
	h.idle.L = &h.mu
	runtime.SetFinalizer(h, func(h *Hooks) { h.Close() })
	return h, nil
}

// Fire fires one event and returns the merged outcome.
//
// On a blocking event (preToolUse, userPromptSubmit, permissionRequest, elicitation) it waits for
// the event's hooks, run in order; on any other event it returns at once with Allowed true (unless
// the engine was created with WaitNonBlocking).
//
// The fire runs on the calling thread (no thread hand-off). With a ctx that can end, Fire has the
// engine reserve the fire a cancellable id first (oh_hooks_reserve_fire), and when ctx ends
// before the fire completes Fire cancels it in the engine: its running hooks are stopped (their
// process groups killed, pending callback calls dropped) and Fire returns ctx.Err() once they
// are (at once for callbacks and hooks that exit on SIGTERM; at most about 0.5 s for a hook that
// ignores it). With a ctx that can never end (context.Background(), context.TODO()), nothing can
// cancel it but the hooks' own timeouts.
//
// Registered functions run, by default, each call on a goroutine of its own. An [Inline]
// function runs on the thread running its hook, which for a blocking event is the calling
// goroutine (inside this Fire call), so an Inline function must not take a lock the caller of
// Fire may hold. The outcome is the same either way.
//
// An envelope the engine rejects yields an Outcome whose Error is set AND a non-nil *Error with
// the same code (see the package documentation).
func (h *Hooks) Fire(ctx context.Context, env Envelope) (Outcome, error) {
	buf := getFireBuf()
	defer putFireBuf(buf)
	in, err := env.appendJSON((*buf)[:0])
	if err != nil {
		return rejected(err), err
	}
	if bytes.IndexByte(in, 0) >= 0 { // cannot happen (encoding escapes it), but C would cut there
		e := nulInEnvelope()
		return rejected(e), e
	}
	*buf = append(in, 0)
	raw, err := h.fire(ctx, buf)
	if raw == nil {
		return Outcome{}, err
	}
	// raw is an outcome; err is non-nil exactly when that outcome reports rejected input.
	if bytes.Equal(raw, nothingRan) {
		// The most common outcome (no hook for the event) by far: skip the decoding.
		return Outcome{Allowed: true, Hooks: []HookTrace{}}, err
	}
	var out Outcome
	if jerr := decodeOutcome(raw, &out); jerr != nil {
		return Outcome{}, &Error{Code: CodeInternal, Message: fmt.Sprintf("cannot decode the engine's outcome: %v", jerr)}
	}
	return out, err
}

// nothingRan is the engine's outcome when no hook matched (a constant of the engine).
var nothingRan = []byte(`{"allowed":true,"hooks":[]}`)

// FireJSON fires an envelope given as raw JSON and returns the engine's outcome JSON unchanged.
// It is the fast path for harnesses that already hold the envelope as JSON, and the way to send
// anything the typed [Envelope] cannot express. Context handling is as for [Hooks.Fire]. When the
// engine rejects the envelope, FireJSON returns its outcome JSON (with "error" set) AND a non-nil
// *Error with the same code.
func (h *Hooks) FireJSON(ctx context.Context, envelope []byte) ([]byte, error) {
	if bytes.IndexByte(envelope, 0) >= 0 {
		e := nulInEnvelope()
		return rejectedJSON(e), e
	}
	buf := getFireBuf()
	defer putFireBuf(buf)
	*buf = append(append((*buf)[:0], envelope...), 0)
	raw, err := h.fire(ctx, buf)
	if raw == nil {
		return nil, err
	}
	return append([]byte(nil), raw...), err // raw is in buf, which goes back to the pool
}

func nulInEnvelope() *Error {
	return &Error{Code: CodeInvalidEnvelope, Message: "envelope JSON contains a NUL byte; pass a JSON object without NUL bytes"}
}

// fireBufs holds the buffers fires pass to C: the envelope goes in, the outcome comes back in
// the same memory (ohhooks_fire), with no C allocation or cgo call for either.
var fireBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

func getFireBuf() *[]byte { return fireBufs.Get().(*[]byte) }

func putFireBuf(b *[]byte) {
	if cap(*b) <= 64<<10 { // a large envelope's buffer is left to the collector
		fireBufs.Put(b)
	}
}

// fire runs oh_hooks_fire on the envelope in *buf (JSON text then a NUL byte, with no NUL byte
// before it). It returns the outcome JSON, and an *Error too when that outcome reports rejected
// input; or nil and ctx.Err() / a closed or internal *Error. The outcome may be in *buf's memory:
// it is valid until buf is reused.
func (h *Hooks) fire(ctx context.Context, buf *[]byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ptr := h.acquire(false)
	if ptr == nil {
		return nil, closedError()
	}
	var raw []byte
	if ctx.Done() == nil {
		// Nothing can cancel it: fire on this thread (callback hooks of a blocking event are
		// called from here too), holding Close off until it returns.
		raw = fireInto(ptr, buf, false, 0)
		h.release()
		runtime.KeepAlive(h)
	} else {
		var err error
		if raw, err = h.fireCancellable(ctx, ptr, buf); err != nil {
			return nil, err
		}
	}
	if raw == nil {
		return nil, &Error{Code: CodeInternal, Message: "oh_hooks_fire returned no outcome (out of memory)"}
	}
	// Only the outcome's own error is an object under "error" (a trace's "error" is a string,
	// and quotes inside strings are escaped): skip the decoding on the common path.
	if !bytes.Contains(raw, []byte(`"error":{`)) {
		return raw, nil
	}
	var probe struct {
		Error *OutcomeError `json:"error"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, &Error{Code: CodeInternal, Message: fmt.Sprintf("cannot decode the engine's outcome: %v", err)}
	}
	if probe.Error != nil {
		return raw, probe.Error.err()
	}
	return raw, nil
}

// fireInto fires the envelope in *buf (see fire) through ohhooks_fire, under the reserved fire
// id when reserved is set, and returns the outcome: in buf's memory, or copied out of the
// engine's string (then freed); nil for none.
func fireInto(ptr *C.OhHooks, buf *[]byte, reserved bool, id C.uint64_t) []byte {
	var res C.int
	if reserved {
		res = 1
	}
	r := C.ohhooks_fire(ptr, (*C.char)(unsafe.Pointer(&(*buf)[0])), C.size_t(cap(*buf)), res, id)
	switch {
	case r.out == nil:
		return nil
	case unsafe.Pointer(r.out) == unsafe.Pointer(&(*buf)[0]):
		return (*buf)[:int(r.len)]
	}
	raw := C.GoBytes(unsafe.Pointer(r.out), C.int(r.len))
	C.oh_hooks_string_free(r.out)
	return raw
}

// Reload re-reads and re-validates the configuration files now (the engine also notices changed
// files by itself, on fire). On failure the previous configuration stays in force and the error is
// an *Error as for [New].
func (h *Hooks) Reload() error {
	ptr := h.acquire(false)
	if ptr == nil {
		return closedError()
	}
	defer h.release()
	var errOut *C.char
	rc := C.oh_hooks_reload(ptr, &errOut)
	runtime.KeepAlive(h)
	if rc == 0 {
		if errOut != nil {
			C.oh_hooks_string_free(errOut)
		}
		return nil
	}
	if errOut == nil {
		return &Error{Code: CodeInternal, Message: fmt.Sprintf("oh_hooks_reload failed (%d) without an error", int(rc))}
	}
	return takeError(errOut)
}

// Close waits for fires still running on this engine, waits for hooks the engine still runs in
// the background, and releases the engine. Callback calls still being answered fail at once
// (deny, reason "callback not answered: the engine was closed") and the ctx given to callback
// functions is cancelled. It is idempotent and safe to
// call from several goroutines; it always returns nil (it has the io.Closer signature). After Close,
// Fire, FireJSON and Reload return an *Error with Code "closed".
func (h *Hooks) Close() error {
	if h == nil {
		return nil
	}
	if h.host != nil {
		h.host.beginClosing() // callbacks answer at once: freeing the engine does not wait for them
	}
	h.mu.Lock()
	if h.closing {
		// Another Close is at work: return once it has freed the engine.
		for h.ptr != nil {
			h.idle.Wait()
		}
		h.mu.Unlock()
		return nil
	}
	if h.ptr == nil {
		h.mu.Unlock()
		return nil
	}
	h.closing = true
	for h.users > 0 {
		h.idle.Wait()
	}
	h.freeing = true
	p := h.ptr
	h.mu.Unlock()
	C.oh_hooks_free(p) // waits for async fires and background hooks; no lock held meanwhile
	h.mu.Lock()
	h.ptr = nil
	h.idle.Broadcast()
	h.mu.Unlock()
	runtime.SetFinalizer(h, nil)
	return nil
}

// cBytes copies b into a new NUL-terminated C string; free it with C.free.
func cBytes(b []byte) *C.char {
	p := C.malloc(C.size_t(len(b) + 1))
	dst := unsafe.Slice((*byte)(p), len(b)+1)
	copy(dst, b)
	dst[len(b)] = 0
	return (*C.char)(p)
}

// takeError parses and frees an owned error JSON from the engine.
func takeError(s *C.char) *Error {
	raw := C.GoString(s)
	C.oh_hooks_string_free(s)
	var e Error
	if err := json.Unmarshal([]byte(raw), &e); err != nil || e.Code == "" {
		return &Error{Code: CodeInternal, Message: "unreadable error from the engine: " + raw}
	}
	return &e
}

func closedError() *Error {
	return &Error{Code: CodeClosed, Message: "the engine is closed; create a new one with New"}
}

// rejected is the Outcome returned with an *Error for input that was not processed.
func rejected(err error) Outcome {
	out := Outcome{Allowed: false, Hooks: []HookTrace{}}
	if e, ok := err.(*Error); ok {
		out.Error = &OutcomeError{Code: e.Code, Message: e.Message}
	}
	return out
}

func rejectedJSON(e *Error) []byte {
	b, _ := json.Marshal(rejected(e))
	return b
}
