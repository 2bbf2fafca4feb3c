package ohhooks

import (
	"encoding/json"
	"reflect"
	"testing"
)

var fastOutcomeCases = []string{
	`{"allowed":true,"hooks":[]}`,
	`{"allowed":true,"hooks":[{"index":0,"type":"callback","timedOut":false,"durationMs":0.011,"result":"none"}]}`,
	`{"allowed":true,"reason":"checked by the bench","hooks":[{"index":0,"type":"callback","timedOut":false,"durationMs":0.011,"result":"none","reason":"checked by the bench"}]}`,
	`{"allowed":false,"permissionDecision":"deny","reason":"no \"rm\" \u00e9 \ud83d\ude00","additionalContext":"a\nb","updatedPrompt":"p","interrupt":true,"continue":false,"stopReason":"s","systemMessage":"m","hooks":[{"index":12,"type":"command","jsonIO":true,"persistent":false,"exitCode":-2,"signal":9,"status":503,"timedOut":true,"durationMs":1e-7,"result":"deny","reason":"r","stderr":"e","error":"x","dialect":"claude","source":"/s","failure":"f"},{"index":1,"type":"http","durationMs":0,"result":"allow"}],"warnings":["w1","w\"2"]}`,
	`{"allowed":true,"hooks":[],"warnings":[]}`,
	// Left to json.Unmarshal: each must decode the same there.
	`{"allowed":true,"hooks":[],"error":{"code":"internal","message":"x"}}`,
	`{"allowed":true,"updatedInput":{"command":"ls"},"hooks":[]}`,
	`{"allowed":true,"llmRequest":{"a":1},"hooks":[]}`,
	`{"allowed":true,"hooks":[{"index":0,"type":"command","durationMs":1,"result":"none","exitCode":null}]}`,
	`{"allowed":true,"reason":"a","reason":"b","hooks":[]}`,
	`{"Allowed":true,"hooks":[]}`,
	`{ "allowed":true,"hooks":[]}`,
	`{"allowed":true,"hooks":[{"index":1.5,"type":"command","durationMs":1,"result":"none"}]}`,
	`{"allowed":true,"hooks":[{"index":99999999999999999999,"type":"command","durationMs":1,"result":"none"}]}`,
	`{"allowed":true,"hooks":[{"index":0,"type":"command","durationMs":1e999,"result":"none"}]}`,
	`{"allowed":tru,"hooks":[]}`,
	`{"allowed":true,"hooks":[]}x`,
	`{"allowed":true,"reason":"bad utf-8 ` + "\xff" + `","hooks":[]}`,
	`{"allowed":true,"hooks":[{"index":0,"type":"command","durationMs":01,"result":"none"}]}`,
	`{"allowed":true,"hooks":[{"index":-0,"type":"command","durationMs":-0.5,"result":"none"}]}`,
	`{"allowed":true,"hooks":[{}]}`,
}

// The fast decoder agrees with json.Unmarshal whenever it accepts an input, and decodeOutcome
// (fast path or not) always returns what json.Unmarshal returns.
func TestFastOutcomeMatchesUnmarshal(t *testing.T) {
	fast := 0
	for _, c := range fastOutcomeCases {
		var quick Outcome
		if fastDecodeOutcome([]byte(c), &quick) {
			fast++
		}
		checkOutcomeDecoders(t, []byte(c))
	}
	if fast < 6 {
		t.Errorf("the fast path took only %d of the cases", fast)
	}
}

// checkOutcomeDecoders fails the test when decodeOutcome and json.Unmarshal disagree on data.
func checkOutcomeDecoders(t *testing.T, data []byte) {
	t.Helper()
	var slow, got Outcome
	slowErr := json.Unmarshal(data, &slow)
	err := decodeOutcome(data, &got)
	if (err == nil) != (slowErr == nil) || (err == nil && !reflect.DeepEqual(got, slow)) {
		t.Errorf("%s: decodeOutcome %v / %#v, json.Unmarshal %v / %#v", data, err, got, slowErr, slow)
	}
}
