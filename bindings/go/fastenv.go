package ohhooks

// A fast path for decoding the envelope a callback receives. The engine sends compact JSON whose
// values are mostly plain strings; encoding/json's reflection-driven decoding of Envelope costs
// more than the rest of a callback hook together. This decoder handles the common shapes and
// gives up (returns false) on anything else, so that Envelope.UnmarshalJSON decides those: the
// result is the same either way (TestFastEnvelopeMatchesUnmarshal checks it).

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

func decodeEnvelope(data []byte, e *Envelope) error {
	if fastDecodeEnvelope(data, e) {
		return nil
	}
	*e = Envelope{}
	return e.UnmarshalJSON(data)
}

// stringField returns the typed string field named key, or nil.
func (e *Envelope) stringField(key string) *string {
	switch key {
	case "toolName":
		return &e.ToolName
	case "toolArgs":
		return &e.ToolArgs
	case "toolOutput":
		return &e.ToolOutput
	case "toolInputJson":
		return &e.ToolInputJSON
	case "sessionId":
		return &e.SessionID
	case "model":
		return &e.Model
	case "provider":
		return &e.Provider
	case "permissionMode":
		return &e.PermissionMode
	case "filePath":
		return &e.FilePath
	case "newCwd":
		return &e.NewCwd
	case "agentId":
		return &e.AgentID
	case "message":
		return &e.Message
	case "prompt":
		return &e.Prompt
	case "toolError":
		return &e.ToolError
	case "errorMessage":
		return &e.ErrorMessage
	case "permissionAction":
		return &e.PermissionAction
	case "turnReason":
		return &e.TurnReason
	case "worktreePath":
		return &e.WorktreePath
	case "worktreeParent":
		return &e.WorktreeParent
	case "elicitationServer":
		return &e.ElicitationServer
	case "elicitationMessage":
		return &e.ElicitationMessage
	case "elicitationSchema":
		return &e.ElicitationSchema
	case "elicitationAction":
		return &e.ElicitationAction
	case "elicitationContent":
		return &e.ElicitationContent
	}
	return nil
}

func fastDecodeEnvelope(d []byte, e *Envelope) bool {
	*e = Envelope{}
	if len(d) < 2 || d[0] != '{' {
		return false
	}
	i := 1
	if d[i] == '}' {
		return false // no event: let the slow path decide
	}
	var seen [32]string
	nseen := 0
	hasEvent := false
	for {
		key, ni, ok := fastString(d, i)
		if !ok || ni >= len(d) || d[ni] != ':' {
			return false
		}
		for _, k := range seen[:nseen] {
			if k == key {
				return false // a repeated key: the slow path keeps the last one
			}
		}
		if nseen == len(seen) {
			return false
		}
		seen[nseen] = key
		nseen++
		i = ni + 1
		if i >= len(d) {
			return false
		}
		if d[i] == '"' {
			val, ni, ok := fastString(d, i)
			if !ok {
				return false
			}
			i = ni
			switch p := e.stringField(key); {
			case key == "event":
				e.Event, hasEvent = val, true
			case p != nil && val != "":
				*p = val
			case key == "turnNumber" || key == "tokens" || key == "cost" || key == "worktreeForced" || key == "effort":
				return false
			default:
				e.setExtra(key, val)
			}
		} else {
			end := valueEnd(d, i)
			if end < 0 {
				return false
			}
			lit := d[i:end]
			i = end
			switch {
			case key == "event" || key == "effort" || e.stringField(key) != nil:
				return false
			case key == "turnNumber":
				n, err := strconv.Atoi(string(lit))
				if err != nil {
					return false
				}
				e.TurnNumber = &n
			case key == "tokens":
				n, err := strconv.ParseInt(string(lit), 10, 64)
				if err != nil {
					return false
				}
				e.Tokens = &n
			case key == "cost":
				if !isNumber(lit) {
					return false
				}
				f, err := strconv.ParseFloat(string(lit), 64)
				if err != nil {
					return false
				}
				e.Cost = &f
			case key == "worktreeForced":
				switch string(lit) {
				case "true", "false":
					b := lit[0] == 't'
					e.WorktreeForced = &b
				default:
					return false
				}
			default:
				v, ok := extraValue(lit)
				if !ok {
					return false
				}
				e.setExtra(key, v)
			}
		}
		if i >= len(d) {
			return false
		}
		switch d[i] {
		case ',':
			i++
		case '}':
			return hasEvent && i+1 == len(d)
		default:
			return false
		}
	}
}

func (e *Envelope) setExtra(key string, v any) {
	if e.Extra == nil {
		e.Extra = map[string]any{}
	}
	e.Extra[key] = v
}

// fastString reads the JSON string at d[i] and returns it and the index after it.
func fastString(d []byte, i int) (string, int, bool) {
	if i >= len(d) || d[i] != '"' {
		return "", 0, false
	}
	escaped := false
	for j := i + 1; j < len(d); j++ {
		switch c := d[j]; {
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return "", 0, false
		case c == '"':
			if escaped {
				var s string
				if json.Unmarshal(d[i:j+1], &s) != nil {
					return "", 0, false
				}
				return s, j + 1, true
			}
			seg := d[i+1 : j]
			if !utf8.Valid(seg) {
				return "", 0, false
			}
			return string(seg), j + 1, true
		}
	}
	return "", 0, false
}

// valueEnd returns the index just after the JSON value that starts at d[i] (not a string), or -1.
// Nested strings and brackets are skipped; validity is checked by whoever decodes the value.
func valueEnd(d []byte, i int) int {
	depth := 0
	for j := i; j < len(d); j++ {
		switch d[j] {
		case '"':
			_, nj, ok := fastStringSpan(d, j)
			if !ok {
				return -1
			}
			j = nj - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',':
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// fastStringSpan skips the JSON string at d[i] without decoding it.
func fastStringSpan(d []byte, i int) (int, int, bool) {
	for j := i + 1; j < len(d); j++ {
		switch d[j] {
		case '\\':
			j++
		case '"':
			return i, j + 1, true
		}
	}
	return 0, 0, false
}

func isNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == start || (b[start] == '0' && i-start > 1) {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == s {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == s {
			return false
		}
	}
	return i == len(b)
}

// extraValue decodes a non-string value of Extra as the slow path does (numbers as json.Number).
func extraValue(lit []byte) (any, bool) {
	switch string(lit) {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	if isNumber(lit) {
		return json.Number(lit), true
	}
	dec := json.NewDecoder(bytes.NewReader(lit))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return v, true
}
