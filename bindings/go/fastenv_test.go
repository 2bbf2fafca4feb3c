package ohhooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var fastEnvelopeCases = []string{
	`{"event":"preToolUse"}`,
	`{"event":""}`,
	`{"event":"preToolUse","toolName":"Bash","toolArgs":"{\"command\":\"ls -la /tmp\"}","sessionId":"5f0c","turnNumber":3,"cwd":"/work/project"}`,
	`{"event":"preToolUse","toolName":"","prompt":"","turnNumber":0,"tokens":12,"cost":0.25,"worktreeForced":false}`,
	`{"event":"preToolUse","toolInput":{"command":"ls","n":[1,2.50,{"x":null}]},"ok":true,"no":false,"nil":null,"big":123456789012345678901234567890}`,
	`{"event":"preToolUse","toolName":5,"turnNumber":"3","tokens":1.5,"cost":1e400,"worktreeForced":null,"effort":{"level":"high","x":1}}`,
	`{"event":"preToolUse","message":"caf\u00e9 \ud83d\ude00 \n\t\"q\"","unicode":"naïve ✓"}`,
	`{"event":"preToolUse","toolName":"A","toolName":"B"}`,
	`{"event":"preToolUse","turnNumber":-0,"x":-1.5e-3,"y":01}`,
	`{"event":5}`,
	`{}`,
	`{"toolName":"x"}`,
	`{"event":"preToolUse",}`,
	`{"event":"preToolUse" , "x":1}`,
	`{"event":"preToolUse","x":[1,2}`,
	`{"event":"preToolUse","s":"bad \x01 control"}`,
	"{\"event\":\"preToolUse\",\"s\":\"\xff invalid utf8\"}",
	`{"event":"preToolUse","e":{"level":""}}`,
}

// The fast decoder agrees with Envelope.UnmarshalJSON whenever it accepts an input.
func TestFastEnvelopeMatchesUnmarshal(t *testing.T) {
	cases := append([]string{}, fastEnvelopeCases...)
	files, _ := filepath.Glob(filepath.Join(vectorsDir(), "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Fires []struct {
				Envelope json.RawMessage `json:"envelope"`
			} `json:"fires"`
		}
		if json.Unmarshal(b, &v) == nil {
			for _, fire := range v.Fires {
				if len(fire.Envelope) > 0 {
					c, _ := encodeJSON(json.RawMessage(fire.Envelope))
					cases = append(cases, string(c))
				}
			}
		}
	}
	fast := 0
	for _, c := range cases {
		var slow, quick Envelope
		slowErr := slow.UnmarshalJSON([]byte(c))
		if fastDecodeEnvelope([]byte(c), &quick) {
			fast++
			if slowErr != nil {
				t.Errorf("%s: the fast path accepted what UnmarshalJSON refuses (%v)", c, slowErr)
			} else if !reflect.DeepEqual(slow, quick) {
				t.Errorf("%s:\n fast %#v\n slow %#v", c, quick, slow)
			}
		}
		var viaDecode Envelope
		if err := decodeEnvelope([]byte(c), &viaDecode); (err == nil) != (slowErr == nil) || (err == nil && !reflect.DeepEqual(viaDecode, slow)) {
			t.Errorf("%s: decodeEnvelope %v / %#v, UnmarshalJSON %v / %#v", c, err, viaDecode, slowErr, slow)
		}
	}
	if fast < len(cases)/2 {
		t.Errorf("the fast path took only %d of %d cases", fast, len(cases))
	}
	t.Logf("fast path: %d of %d cases", fast, len(cases))
}

func FuzzFastEnvelope(f *testing.F) {
	for _, c := range fastEnvelopeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var slow, quick Envelope
		slowErr := slow.UnmarshalJSON(data)
		if fastDecodeEnvelope(data, &quick) && (slowErr != nil || !reflect.DeepEqual(slow, quick)) {
			t.Fatalf("%q: fast %#v, slow %#v (%v)", data, quick, slow, slowErr)
		}
	})
}

// The no-match fast path of Fire gives what decoding the engine's outcome gives.
func TestNothingRanOutcome(t *testing.T) {
	var decoded Outcome
	if err := json.Unmarshal(nothingRan, &decoded); err != nil {
		t.Fatal(err)
	}
	h := newTestHooks(t, hooksCfg("postToolUse", map[string]any{"command": "true"}))
	raw, err := h.FireJSON(context.Background(), []byte(`{"event":"preToolUse"}`))
	if err != nil || string(raw) != string(nothingRan) {
		t.Fatalf("the engine's no-match outcome is %s (err %v), not %s", raw, err, nothingRan)
	}
	out := fireOK(t, h, Envelope{Event: "preToolUse"})
	if !reflect.DeepEqual(out, decoded) {
		t.Fatalf("fast path %#v, decoded %#v", out, decoded)
	}
}
