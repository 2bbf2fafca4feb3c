package ohhooks

// A fast path for encoding the envelope Fire sends. encoding/json's reflection over Envelope cost
// most of a typed Fire that runs no hook (about 3 µs of its 4, docs/performance.md "Round 6");
// the envelope's fields are strings, a few numbers and booleans, written here directly with
// encoding/json's rules (SetEscapeHTML(false)). A value this encoder does not write itself (a
// NaN or infinite Cost, an Extra value other than a string, a bool or nil) goes to encodeJSON as
// before; TestAppendEnvelopeMatchesEncodeJSON checks both write the same bytes.

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped as encoding/json escapes it with
// SetEscapeHTML(false): `"`, `\` and control characters escaped, invalid UTF-8 as \ufffd, and
// U+2028 / U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json writes a float64; false for NaN and infinities
// (which encoding/json refuses).
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendTyped appends the envelope's typed fields as an object, in Envelope's order, leaving out
// the zero ones (encoding/json's omitempty); false for a Cost that encoding/json refuses.
func (e *Envelope) appendTyped(b []byte) ([]byte, bool) {
	first := true
	key := func(k string) {
		if first {
			first = false
		} else {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
	}
	str := func(k, v string) {
		if v != "" {
			key(k)
			b = appendJSONString(b, v)
		}
	}
	b = append(b, '{')
	str("event", e.Event)
	str("toolName", e.ToolName)
	str("toolArgs", e.ToolArgs)
	str("toolOutput", e.ToolOutput)
	str("toolInputJson", e.ToolInputJSON)
	str("sessionId", e.SessionID)
	str("model", e.Model)
	str("provider", e.Provider)
	str("permissionMode", e.PermissionMode)
	if e.Cost != nil {
		key("cost")
		var ok bool
		if b, ok = appendJSONFloat(b, *e.Cost); !ok {
			return nil, false
		}
	}
	if e.Tokens != nil {
		key("tokens")
		b = strconv.AppendInt(b, *e.Tokens, 10)
	}
	str("filePath", e.FilePath)
	str("newCwd", e.NewCwd)
	str("agentId", e.AgentID)
	str("message", e.Message)
	str("prompt", e.Prompt)
	str("toolError", e.ToolError)
	str("errorMessage", e.ErrorMessage)
	str("permissionAction", e.PermissionAction)
	if e.TurnNumber != nil {
		key("turnNumber")
		b = strconv.AppendInt(b, int64(*e.TurnNumber), 10)
	}
	str("turnReason", e.TurnReason)
	str("worktreePath", e.WorktreePath)
	str("worktreeParent", e.WorktreeParent)
	if e.WorktreeForced != nil {
		key("worktreeForced")
		b = strconv.AppendBool(b, *e.WorktreeForced)
	}
	str("elicitationServer", e.ElicitationServer)
	str("elicitationMessage", e.ElicitationMessage)
	str("elicitationSchema", e.ElicitationSchema)
	str("elicitationAction", e.ElicitationAction)
	str("elicitationContent", e.ElicitationContent)
	if e.Effort != nil {
		key("effort")
		b = append(b, '{')
		if e.Effort.Level != "" {
			b = append(b, `"level":`...)
			b = appendJSONString(b, e.Effort.Level)
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}

// appendExtraValue appends an Extra value; false when encodeJSON must write it.
func appendExtraValue(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	}
	return b, false
}

// appendEnvelope appends the envelope's JSON as MarshalJSON writes it; ok is false when the
// typed fields need encodeJSON (a NaN or infinite Cost), err is MarshalJSON's error for a bad
// Extra.
func (e *Envelope) appendEnvelope(b []byte) (out []byte, ok bool, err error) {
	start := len(b)
	if b, ok = e.appendTyped(b); !ok {
		return b[:start], false, nil
	}
	if len(e.Extra) == 0 {
		return b, true, nil
	}
	var small [8]string
	keys := sortedKeys(e.Extra, small[:0])
	b = b[:len(b)-1] // reopen the object
	for _, k := range keys {
		if err := e.extraKeyError(k); err != nil {
			return b[:start], true, err
		}
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		v := e.Extra[k]
		var done bool
		if b, done = appendExtraValue(b, v); !done {
			vb, err := encodeJSON(v)
			if err != nil {
				return b[:start], true, extraValueError(k, err)
			}
			b = append(b, vb...)
		}
	}
	return append(b, '}'), true, nil
}
