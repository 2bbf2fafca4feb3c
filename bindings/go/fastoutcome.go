package ohhooks

// A fast path for decoding the outcome of a fire whose hooks ran. encoding/json's reflection over
// Outcome and HookTrace cost more than the engine's whole fire of a callback hook; the engine
// writes compact JSON with a known set of keys, which this decoder reads directly. It gives up
// (returns false) on anything else (a key it does not know, a repeated key, whitespace, an
// escape it cannot take as it is), and json.Unmarshal decides those: the result is the same
// either way (TestFastOutcomeMatchesUnmarshal checks it).

import (
	"bytes"
	"encoding/json"
	"strconv"
)

func decodeOutcome(data []byte, o *Outcome) error {
	if fastDecodeOutcome(data, o) {
		return nil
	}
	*o = Outcome{}
	return json.Unmarshal(data, o)
}

// fastObject calls field for each key of the object at d[i] (field reads the value at the index
// it is given and returns the index after it, or -1), and returns the index after the object.
func fastObject(d []byte, i int, field func(key []byte, i int) int) int {
	if i >= len(d) || d[i] != '{' {
		return -1
	}
	i++
	if i < len(d) && d[i] == '}' {
		return i + 1
	}
	var seen [24][]byte
	nseen := 0
	for {
		key, ni, ok := fastKey(d, i)
		if !ok || ni >= len(d) || d[ni] != ':' || nseen == len(seen) {
			return -1
		}
		for _, k := range seen[:nseen] {
			if bytes.Equal(k, key) {
				return -1 // a repeated key: json.Unmarshal keeps the last one
			}
		}
		seen[nseen] = key
		nseen++
		if i = field(key, ni+1); i < 0 || i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i++
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// fastLiteral returns the literal (a number, true, false) at d[i] and the index after it.
func fastLiteral(d []byte, i int) ([]byte, int) {
	j := i
	for j < len(d) && d[j] != ',' && d[j] != '}' && d[j] != ']' {
		switch c := d[j]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E',
			c >= 'a' && c <= 'z':
			j++
		default:
			return nil, -1
		}
	}
	if j == i {
		return nil, -1
	}
	return d[i:j], j
}

func fastBool(d []byte, i int, p *bool) int {
	lit, j := fastLiteral(d, i)
	switch string(lit) {
	case "true":
		*p = true
	case "false":
		*p = false
	default:
		return -1
	}
	return j
}

func fastInt(d []byte, i int, p *int) int {
	lit, j := fastLiteral(d, i)
	for k, c := range lit {
		if !(c >= '0' && c <= '9' || c == '-' && k == 0) {
			return -1
		}
	}
	if j < 0 || !isNumber(lit) {
		return -1
	}
	n, err := strconv.Atoi(string(lit))
	if err != nil {
		return -1
	}
	*p = n
	return j
}

func fastStringTo(d []byte, i int, p *string) int {
	s, j, ok := fastString(d, i)
	if !ok {
		return -1
	}
	*p = s
	return j
}

func fastTrace(d []byte, i int, t *HookTrace) int {
	return fastObject(d, i, func(key []byte, i int) int {
		switch string(key) {
		case "index":
			return fastInt(d, i, &t.Index)
		case "type":
			var s string
			j := fastStringTo(d, i, &s)
			t.Type = HookType(s)
			return j
		case "result":
			var s string
			j := fastStringTo(d, i, &s)
			t.Result = HookResult(s)
			return j
		case "jsonIO":
			return fastBool(d, i, &t.JSONIO)
		case "persistent":
			return fastBool(d, i, &t.Persistent)
		case "exitCode", "signal", "status":
			n := new(int)
			j := fastInt(d, i, n)
			switch string(key) {
			case "exitCode":
				t.ExitCode = n
			case "signal":
				t.Signal = n
			default:
				t.Status = n
			}
			return j
		case "timedOut":
			b := new(bool)
			t.TimedOut = b
			return fastBool(d, i, b)
		case "durationMs":
			lit, j := fastLiteral(d, i)
			if j < 0 || !isNumber(lit) {
				return -1
			}
			f, err := strconv.ParseFloat(string(lit), 64)
			if err != nil {
				return -1
			}
			t.DurationMs = f
			return j
		case "reason":
			return fastStringTo(d, i, &t.Reason)
		case "stderr":
			return fastStringTo(d, i, &t.Stderr)
		case "error":
			return fastStringTo(d, i, &t.Error)
		case "dialect":
			return fastStringTo(d, i, &t.Dialect)
		case "source":
			return fastStringTo(d, i, &t.Source)
		case "failure":
			return fastStringTo(d, i, &t.Failure)
		}
		return -1
	})
}

// fastArray calls elem for each element of the array at d[i] and returns the index after it.
func fastArray(d []byte, i int, elem func(i int) int) int {
	if i >= len(d) || d[i] != '[' {
		return -1
	}
	i++
	if i < len(d) && d[i] == ']' {
		return i + 1
	}
	for {
		if i = elem(i); i < 0 || i >= len(d) {
			return -1
		}
		switch d[i] {
		case ',':
			i++
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

func fastDecodeOutcome(d []byte, o *Outcome) bool {
	*o = Outcome{}
	end := fastObject(d, 0, func(key []byte, i int) int {
		switch string(key) {
		case "allowed":
			return fastBool(d, i, &o.Allowed)
		case "permissionDecision":
			var s string
			j := fastStringTo(d, i, &s)
			o.PermissionDecision = Decision(s)
			return j
		case "reason":
			return fastStringTo(d, i, &o.Reason)
		case "additionalContext":
			return fastStringTo(d, i, &o.AdditionalContext)
		case "updatedPrompt":
			return fastStringTo(d, i, &o.UpdatedPrompt)
		case "stopReason":
			return fastStringTo(d, i, &o.StopReason)
		case "systemMessage":
			return fastStringTo(d, i, &o.SystemMessage)
		case "interrupt":
			return fastBool(d, i, &o.Interrupt)
		case "continue":
			b := new(bool)
			o.Continue = b
			return fastBool(d, i, b)
		case "hooks":
			o.Hooks = make([]HookTrace, 0, 1)
			return fastArray(d, i, func(i int) int {
				o.Hooks = append(o.Hooks, HookTrace{})
				return fastTrace(d, i, &o.Hooks[len(o.Hooks)-1])
			})
		case "warnings":
			o.Warnings = []string{}
			return fastArray(d, i, func(i int) int {
				var s string
				j := fastStringTo(d, i, &s)
				o.Warnings = append(o.Warnings, s)
				return j
			})
		}
		return -1
	})
	return end == len(d)
}
