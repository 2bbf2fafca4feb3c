package ohhooks

// The host side of the engine: functions registered for callback hooks and prompt hooks, the
// decision observer, and the completion of asynchronous fires. The engine calls C trampolines
// (trampolines.c), which call the exported Go functions below with a runtime/cgo.Handle as
// user_data.

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "oh_hooks.h"

int ohhooks_register(const OhHooks *hooks, const char *name, uintptr_t handle, char **error_out);
int ohhooks_observe(const OhHooks *hooks, uintptr_t handle, char **error_out);
void ohhooks_respond(uintptr_t call, const char *response, size_t len);
*/
import "C"

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"runtime"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// CallbackFunc answers a callback hook (`callback: <name>` in the config). env is the envelope
// the hook was fired with. Return the zero Response for no decision; an error (or a panic) fails
// the hook: it denies on a blocking event, with the error's text as the reason in its trace.
//
// The function runs on a goroutine of its own, so the engine never waits for it beyond the hook's
// timeout: an answer that comes later is dropped. ctx is cancelled when the engine is closed;
// return when it ends. Calls may run concurrently.
type CallbackFunc func(ctx context.Context, env Envelope) (Response, error)

// PromptRequest is what the evaluator of prompt hooks is asked (see [Hooks.RegisterPrompt]).
type PromptRequest struct {
	// Prompt is the hook's question (its `prompt:` text).
	Prompt string `json:"prompt"`
	// Envelope is the event the hook was fired for.
	Envelope Envelope `json:"envelope"`
}

// PromptFunc evaluates a prompt hook: typically it asks a model the question about the envelope
// and answers Response{Decision: DecisionDeny, Reason: ...} or the zero Response. Threads,
// timeout and errors are as for [CallbackFunc].
type PromptFunc func(ctx context.Context, req PromptRequest) (Response, error)

// Response is a callback's answer, read like a jsonIO hook's output.
type Response struct {
	// Decision is the top-level decision: DecisionAllow or DecisionDeny ("" for none). A deny
	// stops the walk and blocks; an allow does not stop it.
	Decision Decision
	// Reason says why (shown as the outcome's Reason).
	Reason string
	// PermissionDecision is hookSpecificOutput.decision: DecisionAllow (stops the walk and
	// allows), DecisionDeny or DecisionAsk.
	PermissionDecision Decision
	// AdditionalContext is context for the model (hookSpecificOutput.additionalContext).
	AdditionalContext string
}

// MarshalJSON encodes the response in the wire shape a jsonIO hook prints:
// {"decision", "reason", "hookSpecificOutput": {"decision", "additionalContext"}}.
func (r Response) MarshalJSON() ([]byte, error) {
	type specific struct {
		Decision          Decision `json:"decision,omitempty"`
		AdditionalContext string   `json:"additionalContext,omitempty"`
	}
	type wire struct {
		Decision           Decision  `json:"decision,omitempty"`
		Reason             string    `json:"reason,omitempty"`
		HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
	}
	w := wire{Decision: r.Decision, Reason: r.Reason}
	if r.PermissionDecision != "" || r.AdditionalContext != "" {
		w.HookSpecificOutput = &specific{r.PermissionDecision, r.AdditionalContext}
	}
	return encodeJSON(w)
}

// Record is what the decision observer receives: one per fire, once every hook of that fire
// (background hooks included) has finished.
type Record struct {
	// Envelope is the event as fired; its Event is "" when the input was not a JSON object with
	// an event (then Outcome.Error says why).
	Envelope Envelope
	// Outcome is the fire's outcome with every hook's trace (for background hooks, their traces).
	Outcome Outcome
	// Raw is the record's JSON as the engine sent it.
	Raw json.RawMessage
}

// host is what the trampolines need of an engine. It never points back at the *Hooks, so the
// handles registered with the engine do not keep a forgotten *Hooks from being finalized.
type host struct {
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	mu       sync.Mutex
	closing  bool
	nextCall uint64
	calls    map[uint64]uintptr // callback calls a goroutine is answering: id -> OhHooksCall
	observer cgo.Handle         // 0 when not observing (guarded by the engine's lock, see Hooks)
}

func newHost() *host {
	ctx, cancel := context.WithCancel(context.Background())
	return &host{ctx: ctx, cancel: cancel, calls: map[uint64]uintptr{}}
}

var closedFailure = []byte(`{"decision":"deny","reason":"callback not answered: the engine was closed"}`)

// beginClosing answers every call still being worked on and every later one at once, and
// cancels the functions' ctx, so that freeing the engine (which waits for its calls) is prompt.
func (hs *host) beginClosing() {
	hs.mu.Lock()
	hs.closing = true
	calls := hs.calls
	hs.calls = map[uint64]uintptr{}
	hs.mu.Unlock()
	hs.cancel()
	for _, call := range calls {
		respond(call, closedFailure)
	}
}

// answer gives the engine the answer of call id, unless it was answered already (by Close).
func (hs *host) answer(id uint64, resp []byte) {
	hs.mu.Lock()
	call, ok := hs.calls[id]
	delete(hs.calls, id)
	hs.mu.Unlock()
	if ok {
		respond(call, resp)
	}
}

// answerInline is answer for an Inline function, which runs inside the trampoline: the answer
// goes back to it in its buffer (buf, bufCap bytes) when it fits, and the trampoline gives it to
// the engine, saving a call from Go into C. It returns the answer's length, noDecision, or
// answeredElsewhere (answered by Close, or here because it did not fit).
func (hs *host) answerInline(id uint64, resp []byte, buf *C.char, bufCap C.size_t) C.longlong {
	hs.mu.Lock()
	call, ok := hs.calls[id]
	delete(hs.calls, id)
	hs.mu.Unlock()
	switch {
	case !ok:
		return answeredElsewhere
	case resp == nil:
		return noDecision
	case len(resp) <= int(bufCap):
		copy(unsafe.Slice((*byte)(unsafe.Pointer(buf)), len(resp)), resp)
		return C.longlong(len(resp))
	}
	respond(call, resp)
	return answeredElsewhere
}

// What ohhooksGoCall returns besides an answer's length (trampolines.c has the same values).
const (
	noDecision        = -1
	answeredElsewhere = -2
)

func respond(call uintptr, resp []byte) {
	if resp == nil {
		C.ohhooks_respond(C.uintptr_t(call), nil, 0)
		return
	}
	// resp holds no Go pointers, and C reads it only during the call.
	C.ohhooks_respond(C.uintptr_t(call), (*C.char)(unsafe.Pointer(unsafe.SliceData(resp))), C.size_t(len(resp)))
}

// failure is how a failed callback answers: a deny whose reason says what went wrong.
func failure(name, what string) []byte {
	b, _ := encodeJSON(map[string]string{"decision": "deny", "reason": fmt.Sprintf("callback %q failed: %s", name, what)})
	return b
}

type registration struct {
	host   *host
	name   string
	inline bool
	// borrows is set when fn keeps nothing of its request once it returns (it decodes it into
	// copies), so that an Inline call can hand it the engine's memory without copying it first.
	borrows bool
	fn      JSONCallbackFunc
}

// RegisterOption changes how a registered function is run.
type RegisterOption func(*registration)

// Inline runs the function on the thread that runs its hook (the caller of Fire for a blocking
// event, an engine thread for background hooks) instead of a goroutine of its own. That saves a
// goroutine switch and a thread wake-up per call, which is most of a callback hook's cost, but
// the hook's timeout and Fire's cancellation cannot stop a function that blocks (Fire returns
// only when it does): use it only for functions that answer at once, without waiting on I/O,
// locks held by a fire, or other goroutines.
func Inline() RegisterOption { return func(r *registration) { r.inline = true } }

// run computes one answer; nothing the host function does (a panic included) escapes.
func (r *registration) run(request []byte) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = failure(r.name, fmt.Sprintf("it panicked: %v", p))
		}
	}()
	resp, err := r.fn(r.host.ctx, request)
	if err != nil {
		return failure(r.name, err.Error())
	}
	if bytes.IndexByte(resp, 0) >= 0 {
		return failure(r.name, "its response contains a NUL byte")
	}
	return resp
}

// answer turns a typed answer into response JSON (nil: no decision).
func (resp Response) answer() ([]byte, error) {
	if resp == (Response{}) {
		return nil, nil
	}
	b, err := resp.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("its response cannot be encoded: %v", err)
	}
	return b, nil
}

// ohhooksGoCall runs a registered function for call_trampoline (trampolines.c), whose request
// is the n bytes at req. It returns what answerInline returns; a function not Inline answers
// from its goroutine (answeredElsewhere).
//
//export ohhooksGoCall
func ohhooksGoCall(ud C.uintptr_t, req *C.char, n C.size_t, call C.uintptr_t, buf *C.char, bufCap C.size_t) C.longlong {
	r := cgo.Handle(ud).Value().(*registration)
	var request []byte
	if r.inline && r.borrows {
		// Read before this function returns, while the engine holds it.
		request = unsafe.Slice((*byte)(unsafe.Pointer(req)), int(n))
	} else {
		request = C.GoBytes(unsafe.Pointer(req), C.int(n))
	}
	hs := r.host
	hs.mu.Lock()
	if hs.closing {
		hs.mu.Unlock()
		respond(uintptr(call), closedFailure)
		return answeredElsewhere
	}
	hs.nextCall++
	id := hs.nextCall
	hs.calls[id] = uintptr(call)
	hs.mu.Unlock()
	if r.inline {
		return hs.answerInline(id, r.run(request), buf, bufCap)
	}
	// The answer comes from a goroutine of its own, so the engine (which waits for the answer
	// with the hook's timeout) bounds a function that blocks.
	go func() { hs.answer(id, r.run(request)) }()
	// This thread is about to go back into C, where the engine waits, with its P still attached:
	// the new goroutine would sit in that P's queue until the runtime noticed (about 0.1 ms).
	// Yielding hands the P over now (measured: about 100 µs down to about 25 µs a call).
	runtime.Gosched()
	return answeredElsewhere
}

//export ohhooksGoRelease
func ohhooksGoRelease(ud C.uintptr_t) {
	cgo.Handle(ud).Delete()
}

type observer struct {
	fn func(Record)
}

//export ohhooksGoRecord
func ohhooksGoRecord(ud C.uintptr_t, rec *C.char) {
	o := cgo.Handle(ud).Value().(*observer)
	raw := C.GoBytes(unsafe.Pointer(rec), C.int(C.strlen(rec)))
	defer func() {
		// A panic cannot unwind through the engine's C frames: report it as net/http does
		// for a handler, and keep the engine running.
		if p := recover(); p != nil {
			log.Printf("ohhooks: the OnDecision observer panicked: %v", p)
		}
	}()
	var r Record
	if err := decodeRecord(raw, &r); err != nil {
		log.Printf("ohhooks: cannot decode a decision record: %v", err)
		return
	}
	o.fn(r)
}

func decodeRecord(raw []byte, r *Record) error {
	var w struct {
		Envelope json.RawMessage `json:"envelope"`
		Outcome  Outcome         `json:"outcome"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return err
	}
	r.Outcome = w.Outcome
	r.Raw = raw
	if len(w.Envelope) > 0 && !bytes.Equal(w.Envelope, []byte("null")) {
		return decodeEnvelope(w.Envelope, &r.Envelope)
	}
	return nil
}

// Register makes fn answer the config's `callback: <name>` hooks, replacing any function
// registered under name; a nil fn removes the registration. The name "prompt" is the evaluator
// of prompt hooks: use [Hooks.RegisterPrompt] for it, which decodes its request. Safe to call
// concurrently with fires. By default fn runs on a goroutine of its own (see [CallbackFunc]);
// [Inline] trades that for speed.
func (h *Hooks) Register(name string, fn CallbackFunc, opts ...RegisterOption) error {
	if fn == nil {
		return h.register(name, nil, nil)
	}
	// decodeEnvelope copies what it keeps (Envelope's strings share one copy of the text).
	borrow := func(r *registration) { r.borrows = true }
	return h.register(name, append(opts[:len(opts):len(opts)], borrow), func(ctx context.Context, request []byte) ([]byte, error) {
		var env Envelope
		if err := decodeEnvelope(request, &env); err != nil {
			return nil, fmt.Errorf("cannot decode the envelope: %v", err)
		}
		resp, err := fn(ctx, env)
		if err != nil {
			return nil, err
		}
		return resp.answer()
	})
}

// RegisterPrompt makes fn the evaluator of the config's prompt hooks (`prompt: <question>`),
// registered under the name "prompt". Without one, a prompt hook on a blocking event denies with
// reason "prompt hook has no evaluator". A nil fn removes it. Options as for [Hooks.Register].
func (h *Hooks) RegisterPrompt(fn PromptFunc, opts ...RegisterOption) error {
	if fn == nil {
		return h.register("prompt", nil, nil)
	}
	return h.register("prompt", opts, func(ctx context.Context, request []byte) ([]byte, error) {
		var req PromptRequest
		if err := json.Unmarshal(request, &req); err != nil {
			return nil, fmt.Errorf("cannot decode the prompt request: %v", err)
		}
		resp, err := fn(ctx, req)
		if err != nil {
			return nil, err
		}
		return resp.answer()
	})
}

// JSONCallbackFunc is a callback working on JSON text, as [Hooks.FireJSON] does: request is the
// engine's request exactly as sent (the envelope, or for "prompt" {"prompt", "envelope"}), and the
// response is given to the engine as it is, read like a jsonIO hook's output (nil: no decision;
// text that is not JSON is a malformed response). An error fails the hook.
type JSONCallbackFunc func(ctx context.Context, request []byte) ([]byte, error)

// RegisterJSON is [Hooks.Register] for a [JSONCallbackFunc]: no decoding or encoding on the
// binding's side, for hosts that relay JSON or want the exact request.
func (h *Hooks) RegisterJSON(name string, fn JSONCallbackFunc, opts ...RegisterOption) error {
	if fn == nil {
		return h.register(name, nil, nil)
	}
	return h.register(name, opts, fn)
}

func (h *Hooks) register(name string, opts []RegisterOption, fn JSONCallbackFunc) error {
	if name == "" || bytes.IndexByte([]byte(name), 0) >= 0 {
		return &Error{Code: CodeInvalidOptions, Message: "a callback name must be a non-empty string without NUL bytes"}
	}
	ptr := h.acquire(false)
	if ptr == nil {
		return closedError()
	}
	defer h.release()
	var handle cgo.Handle
	if fn != nil {
		r := &registration{host: h.host, name: name, fn: fn}
		for _, o := range opts {
			o(r)
		}
		handle = cgo.NewHandle(r)
	}
	cName := C.CString(name)
	defer C.free(unsafe.Pointer(cName))
	var errOut *C.char
	rc := C.ohhooks_register(ptr, cName, C.uintptr_t(handle), &errOut)
	runtime.KeepAlive(h)
	return handedOver("oh_hooks_register", rc, handle, errOut)
}

// OnDecision makes fn receive one [Record] per fire, once all its hooks (background ones
// included) have finished: the way to write an audit log. It replaces any previous observer; nil
// stops observing. fn runs on the firing goroutine's thread (before Fire returns) or, when a
// background hook finished last, on an engine thread, and records of concurrent fires may
// arrive concurrently: keep it short and safe for concurrent use, and hand slow work to a
// goroutine. A panic in fn is recovered and logged.
func (h *Hooks) OnDecision(fn func(Record)) error {
	ptr := h.acquire(false)
	if ptr == nil {
		return closedError()
	}
	defer h.release()
	var handle cgo.Handle
	if fn != nil {
		handle = cgo.NewHandle(&observer{fn: fn})
	}
	var errOut *C.char
	rc := C.ohhooks_observe(ptr, C.uintptr_t(handle), &errOut)
	runtime.KeepAlive(h)
	return handedOver("oh_hooks_observe", rc, handle, errOut)
}

// handedOver reads the result of a call that handed the engine a cgo.Handle: on success the
// engine owns it (and releases it), on failure it keeps nothing, so the handle is deleted here.
func handedOver(function string, rc C.int, handle cgo.Handle, errOut *C.char) error {
	if rc != 0 {
		if handle != 0 {
			handle.Delete()
		}
		if errOut == nil {
			return &Error{Code: CodeInternal, Message: fmt.Sprintf("%s failed (%d) without an error", function, int(rc))}
		}
		return takeError(errOut)
	}
	if errOut != nil {
		C.oh_hooks_string_free(errOut)
	}
	return nil
}

// fireCancellable fires on the calling goroutine's thread, as a fire with a ctx that cannot end
// does, under a fire id the engine reserved for it, and cancels that id in the engine when ctx
// ends, so that the fire's running hooks are stopped rather than abandoned. Before this, such a
// fire ran on an engine thread whose completion called into Go from that foreign thread: about
// 70 µs a round trip against a few µs here (docs/performance.md). It releases h.
func (h *Hooks) fireCancellable(ctx context.Context, ptr *C.OhHooks, buf *[]byte) ([]byte, error) {
	id := C.oh_hooks_reserve_fire(ptr)
	stop := context.AfterFunc(ctx, func() {
		// While Close waits for this fire, the cancel still goes through (so the fire stops
		// instead of holding Close up); once the engine is being freed the fire is over.
		if p := h.acquire(true); p != nil {
			C.oh_hooks_cancel(p, id)
			h.release()
		}
	})
	raw := fireInto(ptr, buf, true, id)
	cancelled := !stop() // the AfterFunc ran (or is running): ctx ended during the fire
	h.release()
	runtime.KeepAlive(h)
	// A fire that finished at the moment ctx ended keeps its answer.
	if cancelled && bytes.Contains(raw, []byte(`"code":"cancelled"`)) {
		return nil, ctx.Err()
	}
	return raw, nil
}
