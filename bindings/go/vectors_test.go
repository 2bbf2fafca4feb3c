package ohhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
)

// vectorsDir is the shared vectors directory, tests/vectors of the repository (override with
// OH_HOOKS_VECTORS).
func vectorsDir() string {
	if d := os.Getenv("OH_HOOKS_VECTORS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "tests", "vectors")
}

type vector struct {
	Description string                     `json:"description"`
	Options     json.RawMessage            `json:"options"`
	NewError    json.RawMessage            `json:"newError"`
	Files       map[string]string          `json:"files"`
	Callbacks   map[string]json.RawMessage `json:"callbacks"`
	Fires       []struct {
		Envelope json.RawMessage            `json:"envelope"`
		Raw      *string                    `json:"raw"`
		Requests map[string]json.RawMessage `json:"requests"`
		Outcome  json.RawMessage            `json:"outcome"`
	} `json:"fires"`
}

// parse decodes JSON into generic values (float64 numbers) for deep comparison.
func parse(b []byte) (any, error) {
	var v any
	err := json.Unmarshal(b, &v)
	return v, err
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	va, err := parse(a)
	if err != nil {
		t.Fatalf("bad JSON %q: %v", a, err)
	}
	vb, err := parse(b)
	if err != nil {
		t.Fatalf("bad JSON %q: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// withoutDurations parses an outcome and deletes durationMs from every hook trace.
func withoutDurations(b []byte) (any, error) {
	v, err := parse(b)
	if err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		if hooks, ok := m["hooks"].([]any); ok {
			for _, h := range hooks {
				if hm, ok := h.(map[string]any); ok {
					delete(hm, "durationMs")
				}
			}
		}
	}
	return v, nil
}

// topKeys lists the keys of a JSON object in document order.
func topKeys(b []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return keys
}

// typedRoundTrip reports whether raw survives decoding into T and re-encoding unchanged (same
// values, and for envelopes the same key order, which hooks can see). Only then can a vector go
// through the typed API without changing what it tests.
func typedRoundTrip[T any](raw []byte, strict bool, encode func(T) ([]byte, error)) (T, bool) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(raw))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&v); err != nil {
		return v, false
	}
	back, err := encode(v)
	if err != nil {
		return v, false
	}
	a, err1 := parse(raw)
	b, err2 := parse(back)
	return v, err1 == nil && err2 == nil && reflect.DeepEqual(a, b) &&
		reflect.DeepEqual(topKeys(raw), topKeys(back))
}

func TestVectors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(vectorsDir(), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no vectors in %s", vectorsDir())
	}
	var typedNew, rawNew, typedFires, rawFires int
	for _, file := range files {
		name := filepath.Base(file)
		name = name[:len(name)-len(".json")]
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			// @HOME@ and @CWD@ stand for a fresh home and cwd, where the vector's files go.
			data = bytes.ReplaceAll(data, []byte("@HOME@"), []byte(t.TempDir()))
			data = bytes.ReplaceAll(data, []byte("@CWD@"), []byte(t.TempDir()))
			var v vector
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatalf("bad vector: %v", err)
			}
			for path, content := range v.Files {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}

			// Create the engine: through the typed Options when they express the vector's
			// options exactly, else as raw JSON (malformed options, unknown keys, ...).
			var h *Hooks
			var newErr error
			opts := bytes.TrimSpace(v.Options)
			if len(opts) == 0 || string(opts) == "null" {
				h, newErr = NewJSON(nil)
			} else if o, ok := typedRoundTrip(opts, true, func(o Options) ([]byte, error) { return o.MarshalJSON() }); ok {
				typedNew++
				h, newErr = New(o)
			} else {
				rawNew++
				var c bytes.Buffer
				if err := json.Compact(&c, opts); err != nil {
					t.Fatal(err)
				}
				h, newErr = NewJSON(c.Bytes())
			}

			if len(v.NewError) > 0 && string(v.NewError) != "null" {
				if newErr == nil {
					h.Close()
					t.Fatalf("New succeeded, want error %s", v.NewError)
				}
				var e *Error
				if !errors.As(newErr, &e) {
					t.Fatalf("error %v is not an *Error", newErr)
				}
				got, _ := json.Marshal(e)
				if !jsonEqual(t, got, v.NewError) {
					t.Fatalf("New error\n got: %s\nwant: %s", got, v.NewError)
				}
				return
			}
			if newErr != nil {
				t.Fatalf("New: %v", newErr)
			}
			defer h.Close()

			// The vector's host functions: each answers at once, on the calling thread, with its
			// canned response (a JSON string as its exact text, null as no decision, anything else
			// as its JSON) and records its requests.
			var mu sync.Mutex
			requests := map[string][]json.RawMessage{}
			for name, canned := range v.Callbacks {
				var answer []byte
				var text string
				switch {
				case string(canned) == "null":
				case json.Unmarshal(canned, &text) == nil:
					answer = []byte(text)
				default:
					var c bytes.Buffer
					if err := json.Compact(&c, canned); err != nil {
						t.Fatal(err)
					}
					answer = c.Bytes()
				}
				name := name
				requests[name] = nil
				if err := h.RegisterJSON(name, func(ctx context.Context, req []byte) ([]byte, error) {
					mu.Lock()
					requests[name] = append(requests[name], append(json.RawMessage(nil), req...))
					mu.Unlock()
					return answer, nil
				}, Inline()); err != nil {
					t.Fatalf("RegisterJSON(%q): %v", name, err)
				}
			}

			for i, f := range v.Fires {
				for name := range requests {
					requests[name] = nil
				}
				want, err := withoutDurations(f.Outcome)
				if err != nil {
					t.Fatalf("fire %d: bad expected outcome: %v", i, err)
				}
				var got []byte
				var fireErr error
				how := "raw"
				if f.Raw != nil {
					rawFires++
					got, fireErr = h.FireJSON(context.Background(), []byte(*f.Raw))
				} else if env, ok := typedRoundTrip(f.Envelope, false, func(e Envelope) ([]byte, error) { return e.MarshalJSON() }); ok {
					typedFires++
					how = "typed"
					var out Outcome
					out, fireErr = h.Fire(context.Background(), env)
					got, err = json.Marshal(out)
					if err != nil {
						t.Fatal(err)
					}
				} else {
					rawFires++
					var c bytes.Buffer
					if err := json.Compact(&c, f.Envelope); err != nil {
						t.Fatal(err)
					}
					got, fireErr = h.FireJSON(context.Background(), c.Bytes())
				}
				if f.Requests != nil {
					mu.Lock()
					for name, reqs := range requests {
						want := f.Requests[name]
						if want == nil {
							want = json.RawMessage("[]")
						}
						gotR, _ := json.Marshal(append([]json.RawMessage{}, reqs...))
						if !jsonEqual(t, gotR, want) {
							t.Errorf("fire %d (%s): requests to %s\n got: %s\nwant: %s", i, how, name, gotR, want)
						}
					}
					mu.Unlock()
				}
				if how == "raw" && got != nil {
					checkOutcomeDecoders(t, got) // Fire's decoder reads every outcome a vector yields
				}
				gotV, err := withoutDurations(got)
				if err != nil {
					t.Fatalf("fire %d (%s): outcome %q is not JSON: %v", i, how, got, err)
				}
				if !reflect.DeepEqual(gotV, want) {
					g, _ := json.Marshal(gotV)
					w, _ := json.Marshal(want)
					t.Errorf("fire %d (%s) of %q\n got: %s\nwant: %s", i, how, v.Description, g, w)
				}
				// The error return agrees with the outcome's "error".
				wm, _ := want.(map[string]any)
				if we, ok := wm["error"].(map[string]any); ok {
					var e *Error
					if !errors.As(fireErr, &e) || e.Code != we["code"] {
						t.Errorf("fire %d (%s): outcome has error %v but Fire returned %v", i, how, we, fireErr)
					}
				} else if fireErr != nil {
					t.Errorf("fire %d (%s): unexpected error %v", i, how, fireErr)
				}
				// With host functions, an envelope fire runs again with a context that can end:
				// the engine's asynchronous fire, whose hooks run on engine threads.
				if len(v.Callbacks) > 0 && f.Raw == nil {
					for name := range requests {
						requests[name] = nil
					}
					var c bytes.Buffer
					if err := json.Compact(&c, f.Envelope); err != nil {
						t.Fatal(err)
					}
					ctx, cancel := context.WithCancel(context.Background())
					got, _ := h.FireJSON(ctx, c.Bytes())
					cancel()
					gotV, err := withoutDurations(got)
					if err != nil || !reflect.DeepEqual(gotV, want) {
						t.Errorf("fire %d (async) of %q\n got: %s\nwant: %s", i, v.Description, got, f.Outcome)
					}
					mu.Lock()
					for name, reqs := range requests {
						if f.Requests == nil {
							break
						}
						want := f.Requests[name]
						if want == nil {
							want = json.RawMessage("[]")
						}
						gotR, _ := json.Marshal(append([]json.RawMessage{}, reqs...))
						if !jsonEqual(t, gotR, want) {
							t.Errorf("fire %d (async): requests to %s\n got: %s\nwant: %s", i, name, gotR, want)
						}
					}
					mu.Unlock()
				}
			}
		})
	}
	t.Logf("%d vectors: engines from typed Options %d, from raw JSON %d; fires typed %d, raw %d",
		len(files), typedNew, rawNew, typedFires, rawFires)
}
