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
	"strings"
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
func (e *Envelope) stringField(key []byte) *string {
	switch string(key) {
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
	var seen [32][]byte
	nseen := 0
	hasEvent := false
	var text string // string(d), made at the first plain string value
	for {
		key, ni, ok := fastKey(d, i)
		if !ok || ni >= len(d) || d[ni] != ':' {
			return false
		}
		for _, k := range seen[:nseen] {
			if bytes.Equal(k, key) {
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
			ni, escaped, ok := fastSpan(d, i)
			if !ok {
				return false
			}
			var val string
			switch {
			case escaped:
				if val, ok = unescape(d[i:ni]); !ok {
					return false
				}
			case !utf8.Valid(d[i+1 : ni-1]):
				return false
			default:
				// The plain strings share one copy of the text (one allocation, not one a
				// field), so nothing refers to d once the decoding is done.
				if text == "" {
					text = string(d)
				}
				val = text[i+1 : ni-1]
			}
			i = ni
			switch p := e.stringField(key); {
			case string(key) == "event":
				e.Event, hasEvent = val, true
			case p != nil && val != "":
				*p = val
			case isTypedNonString(key):
				return false
			default:
				e.setExtra(string(key), val)
			}
		} else {
			end := valueEnd(d, i)
			if end < 0 {
				return false
			}
			lit := d[i:end]
			i = end
			switch {
			case string(key) == "event" || string(key) == "effort" || e.stringField(key) != nil:
				return false
			case string(key) == "turnNumber":
				n, err := strconv.Atoi(string(lit))
				if err != nil {
					return false
				}
				e.TurnNumber = &n
			case string(key) == "tokens":
				n, err := strconv.ParseInt(string(lit), 10, 64)
				if err != nil {
					return false
				}
				e.Tokens = &n
			case string(key) == "cost":
				if !isNumber(lit) {
					return false
				}
				f, err := strconv.ParseFloat(string(lit), 64)
				if err != nil {
					return false
				}
				e.Cost = &f
			case string(key) == "worktreeForced":
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
				e.setExtra(string(key), v)
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

func isTypedNonString(key []byte) bool {
	switch string(key) {
	case "turnNumber", "tokens", "cost", "worktreeForced", "effort":
		return true
	}
	return false
}

// fastSpan finds the JSON string at d[i]: it returns the index after it and whether it holds an
// escape; false for a control character or no closing quote.
func fastSpan(d []byte, i int) (next int, escaped bool, ok bool) {
	if i >= len(d) || d[i] != '"' {
		return 0, false, false
	}
	for j := i + 1; j < len(d); j++ {
		switch c := d[j]; {
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return 0, false, false
		case c == '"':
			return j + 1, escaped, true
		}
	}
	return 0, false, false
}

// fastString reads the JSON string at d[i] and returns it and the index after it.
func fastString(d []byte, i int) (string, int, bool) {
	j, escaped, ok := fastSpan(d, i)
	if !ok {
		return "", 0, false
	}
	if escaped {
		s, ok := unescape(d[i:j])
		return s, j, ok
	}
	seg := d[i+1 : j-1]
	if !utf8.Valid(seg) {
		return "", 0, false
	}
	return string(seg), j, true
}

// fastKey is fastString for an object's key, which is only compared: an unescaped key is
// returned as the bytes of d, without a copy.
func fastKey(d []byte, i int) ([]byte, int, bool) {
	j, escaped, ok := fastSpan(d, i)
	if !ok {
		return nil, 0, false
	}
	if escaped {
		s, ok := unescape(d[i:j])
		return []byte(s), j, ok
	}
	seg := d[i+1 : j-1]
	if !utf8.Valid(seg) {
		return nil, 0, false
	}
	return seg, j, true
}

// unescape decodes the quoted JSON string q (which holds an escape) as json.Unmarshal does: ASCII
// text with one-character escapes here, anything else (a \u escape, a byte above 0x7f, which
// json.Unmarshal checks as UTF-8) by json.Unmarshal itself.
func unescape(q []byte) (string, bool) {
	seg := q[1 : len(q)-1]
	var b strings.Builder
	b.Grow(len(seg))
	for k := 0; k < len(seg); k++ {
		c := seg[k]
		if c >= utf8.RuneSelf {
			return unescapeSlow(q)
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if k++; k == len(seg) {
			return "", false
		}
		switch seg[k] {
		case '"', '\\', '/':
			b.WriteByte(seg[k])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			return unescapeSlow(q)
		}
	}
	return b.String(), true
}

func unescapeSlow(q []byte) (string, bool) {
	var s string
	if json.Unmarshal(q, &s) != nil {
		return "", false
	}
	return s, true
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
