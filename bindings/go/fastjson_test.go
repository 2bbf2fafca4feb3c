package ohhooks

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"testing"
	"unicode/utf8"
)

// referenceMarshal is Envelope.MarshalJSON as it was before the fast path: encoding/json over the
// typed fields, then the Extra keys.
func referenceMarshal(e Envelope) ([]byte, error) {
	type plain Envelope
	b, err := encodeJSON(plain(e))
	if err != nil {
		return nil, &Error{Code: CodeInvalidEnvelope, Message: fmt.Sprintf("cannot encode the envelope as JSON: %v", err)}
	}
	if len(e.Extra) == 0 {
		return b, nil
	}
	keys := make([]string, 0, len(e.Extra))
	for k := range e.Extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	v := reflect.ValueOf(e)
	b = b[:len(b)-1]
	for _, k := range keys {
		if k == "event" {
			return nil, &Error{Code: CodeInvalidEnvelope, Message: `Envelope.Extra has the key "event"; set Envelope.Event instead`}
		}
		if i, ok := envelopeFields[k]; ok && !v.Field(i).IsZero() {
			return nil, &Error{Code: CodeInvalidEnvelope, Message: fmt.Sprintf(
				"Envelope.Extra has the key %q, which Envelope.%s also sets; set only one of them",
				k, reflect.TypeOf(e).Field(i).Name)}
		}
		kb, _ := encodeJSON(k)
		vb, err := encodeJSON(e.Extra[k])
		if err != nil {
			return nil, &Error{Code: CodeInvalidEnvelope, Message: fmt.Sprintf("cannot encode Envelope.Extra[%q] as JSON: %v", k, err)}
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, vb...)
	}
	return append(b, '}'), nil
}

func checkMarshal(t *testing.T, e Envelope) bool {
	t.Helper()
	want, wantErr := referenceMarshal(e)
	got, gotErr := e.MarshalJSON()
	if string(got) != string(want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Errorf("%#v:\n got  %s (%v)\n want %s (%v)", e, got, gotErr, want, wantErr)
		return false
	}
	// Appending to a buffer that already holds text gives the same bytes after it.
	if gotErr == nil {
		prefix := []byte("xyz")
		if b, err := e.appendJSON(prefix); err != nil || string(b) != "xyz"+string(want) {
			t.Errorf("%#v: appendJSON after a prefix gives %s (%v)", e, b, err)
		}
	}
	return true
}

var awkwardStrings = []string{
	"", "plain", `q"uo\te`, "\x00\x01\x1f\x7f", "\b\f\n\r\t", "café ✓ 😀", "\u2028\u2029", "\xff\xfe bad",
	"a\xc3", "\xed\xa0\x80", "<script>&amp;</script>", "\ufffd", "\U0010ffff", string([]byte{0xf4, 0x90, 0x80, 0x80}),
}

var awkwardFloats = []float64{0, math.Copysign(0, -1), 1, -1.5, 0.25, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.125,
	5e-324, math.MaxFloat64, -1e-10, 3.0e100, math.NaN(), math.Inf(1), math.Inf(-1)}

func TestAppendEnvelopeMatchesEncodeJSON(t *testing.T) {
	cases := []Envelope{
		{},
		{Event: "preToolUse"},
		{Event: "preToolUse", ToolName: "Bash", ToolArgs: `{"command":"ls -la /tmp","description":"List files"}`,
			SessionID: "5f0c", Model: "m", Provider: "p", PermissionMode: "default", TurnNumber: Ptr(3),
			Extra: map[string]any{"cwd": "/work/project"}},
		{Event: "x", Effort: &Effort{}, WorktreeForced: Ptr(false), Tokens: Ptr(int64(-7)), TurnNumber: Ptr(0)},
		{Event: "x", Effort: &Effort{Level: "high"}, Cost: Ptr(0.1)},
		{Event: "x", Extra: map[string]any{"event": "y"}},
		{Event: "x", ToolName: "Bash", Extra: map[string]any{"toolName": "y", "a": 1}},
		{Event: "x", Extra: map[string]any{"toolName": "y", "b": nil, "c": true, "d": 1.5, "e": json.Number("12"),
			"f": json.RawMessage(` { "a" : 1 } `), "g": map[string]any{"z": "<&>", "a": []any{1, "x"}}, "h": []string{"\u2028"}}},
		{Event: "x", Extra: map[string]any{"bad": func() {}}},
		{Event: "x", Extra: map[string]any{"nan": math.NaN(), "a": "ok"}},
		{Event: "x", Extra: map[string]any{"bad\x00key\u2028": "v", "": ""}},
		{Event: "x", Extra: map[string]any{}},
		{Extra: map[string]any{"a": "b"}},
	}
	for _, s := range awkwardStrings {
		cases = append(cases, Envelope{Event: s, ToolArgs: s, ElicitationContent: s, Effort: &Effort{Level: s},
			Extra: map[string]any{s + "k": s}})
	}
	for _, f := range awkwardFloats {
		cases = append(cases, Envelope{Event: "x", Cost: Ptr(f), Extra: map[string]any{"a": "b"}})
	}
	for _, e := range cases {
		checkMarshal(t, e)
	}

	// Random envelopes: every field set or not, strings of random bytes and runes.
	rng := rand.New(rand.NewSource(20))
	randString := func() string {
		n := rng.Intn(12)
		var b []byte
		for i := 0; i < n; i++ {
			switch rng.Intn(4) {
			case 0:
				b = append(b, byte(rng.Intn(256)))
			case 1:
				b = utf8.AppendRune(b, rune(rng.Intn(0x110000)))
			default:
				b = append(b, byte(0x20+rng.Intn(0x60)))
			}
		}
		return string(b)
	}
	v := reflect.ValueOf(&Envelope{}).Elem()
	for n := 0; n < 20000; n++ {
		var e Envelope
		ev := reflect.ValueOf(&e).Elem()
		for i := 0; i < v.NumField(); i++ {
			if rng.Intn(3) != 0 {
				continue
			}
			f := ev.Field(i)
			switch f.Interface().(type) {
			case string:
				f.SetString(randString())
			case *float64:
				x := awkwardFloats[rng.Intn(len(awkwardFloats))] * float64(rng.Intn(3))
				if rng.Intn(2) == 0 {
					x = rng.NormFloat64() * math.Pow(10, float64(rng.Intn(60)-30))
				}
				f.Set(reflect.ValueOf(&x))
			case *int64:
				f.Set(reflect.ValueOf(Ptr(rng.Int63() - rng.Int63())))
			case *int:
				f.Set(reflect.ValueOf(Ptr(rng.Intn(1000) - 500)))
			case *bool:
				f.Set(reflect.ValueOf(Ptr(rng.Intn(2) == 0)))
			case *Effort:
				f.Set(reflect.ValueOf(&Effort{Level: randString()}))
			case map[string]any:
				m := map[string]any{}
				for k := rng.Intn(4); k > 0; k-- {
					var val any
					switch rng.Intn(5) {
					case 0:
						val = randString()
					case 1:
						val = rng.Intn(2) == 0
					case 2:
						val = nil
					case 3:
						val = rng.Float64()
					default:
						val = map[string]any{randString(): randString()}
					}
					m[randString()] = val
				}
				f.Set(reflect.ValueOf(m))
			}
		}
		if !checkMarshal(t, e) {
			break
		}
	}
}

// unescape decodes every quoted string as json.Unmarshal does, and refuses what it refuses.
func TestUnescapeMatchesUnmarshal(t *testing.T) {
	cases := []string{`"\""`, `"a\\b\/c\b\f\n\r\t"`, `"\u00e9\n"`, `"\ud83d\ude00\t"`, `"\ud800\n"`, `"caf\u00e9\\"`,
		`"é\n"`, "\"\xff\\n\"", `"\x"`, `"\"`, `"\u12"`, `"tab\	x"`, `"{\"command\":\"ls -la /tmp\"}"`}
	rng := rand.New(rand.NewSource(6))
	alphabet := []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\ud83d`, `\ude00`, `\x`, `a`, " ", "é", "\xff", "\x01", `\`}
	for n := 0; n < 20000; n++ {
		s := `"`
		for k := rng.Intn(8); k >= 0; k-- {
			s += alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, s+`"`)
	}
	for _, c := range cases {
		var want string
		wantErr := json.Unmarshal([]byte(c), &want)
		j, escaped, ok := fastSpan([]byte(c), 0)
		if !ok || j != len(c) || !escaped {
			continue // fastString refuses it before unescape sees it, or it has no escape
		}
		got, ok := unescape([]byte(c))
		if ok != (wantErr == nil) || got != want {
			t.Errorf("%q: unescape %q %v, json.Unmarshal %q %v", c, got, ok, want, wantErr)
		}
	}
}

// An Inline typed callback decodes the engine's memory in place: what it decodes must keep
// nothing of the text it read.
func TestDecodedEnvelopeKeepsNothingOfItsText(t *testing.T) {
	for _, c := range append(fastEnvelopeCases,
		`{"event":"preToolUse","toolName":"Bash","toolArgs":"{\"a\":1}","cwd":"/w","n":12,"o":{"k":"v"},"esc\"key":"x"}`) {
		buf := []byte(c)
		var e Envelope
		if decodeEnvelope(buf, &e) != nil {
			continue
		}
		want := fmt.Sprintf("%#v", e)
		for i := range buf {
			buf[i] = 'Z'
		}
		if got := fmt.Sprintf("%#v", e); got != want {
			t.Errorf("%s: after the text was overwritten the envelope is\n %s\nnot\n %s", c, got, want)
		}
	}
}
