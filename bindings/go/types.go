package ohhooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Error codes. The first three come from New, NewJSON and Reload; the next five from an outcome's
// "error" (rejected input); CodeClosed is the binding's own, for use after Close.
const (
	CodeInvalidOptions  = "invalid_options"
	CodeInvalidConfig   = "invalid_config"
	CodeIOError         = "io_error"
	CodeInvalidEnvelope = "invalid_envelope"
	CodeUnknownEvent    = "unknown_event"
	CodeNullArgument    = "null_argument"
	CodeInvalidUTF8     = "invalid_utf8"
	CodeInternal        = "internal"
	CodeCancelled       = "cancelled" // an asynchronous fire cancelled in the engine
	CodeClosed          = "closed"
)

// Error is an error reported by the engine (or by the binding, with the same codes). File, Line and
// Path are set for configuration errors where they are known: the file, its 1-based line, and the
// path inside it such as "hooks.preToolUse[0].timeout".
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
}

// ErrClosed matches, with errors.Is, the error returned by an engine used after Close.
var ErrClosed error = &Error{Code: CodeClosed, Message: "the engine is closed"}

// Error returns "oh-hooks: <code>: <message>". The engine's messages already name the file, line
// and path where they apply; the fields carry them for programs.
func (e *Error) Error() string {
	return "oh-hooks: " + e.Code + ": " + e.Message
}

// Is reports whether target is an *Error with the same Code, so that
// errors.Is(err, &ohhooks.Error{Code: ohhooks.CodeInvalidConfig}) and errors.Is(err, ErrClosed) work.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// Ptr returns a pointer to v, for the optional fields of Options and Envelope:
// Options{Trusted: ohhooks.Ptr(true)}.
func Ptr[T any](v T) *T { return &v }

// Options configures an engine (docs/options.md "Options"). The zero value means all defaults: the user, project
// and local layers of the process's working directory, with openHarness's trust store.
type Options struct {
	// Cwd is the directory the project layers are read from and hooks run in (default: the
	// process's working directory when the engine is created).
	Cwd string `json:"cwd,omitempty"`
	// Home is the base of the user layer <home>/.oh/config.yaml and of the trust store: an
	// absolute path ("~" is not expanded). Default: $HOME, else the password database's home.
	Home string `json:"home,omitempty"`
	// Layers is the subset of "user", "project", "local" to read; nil means all three and an
	// empty non-nil slice means none.
	Layers []string `json:"layers,omitempty"`
	// ConfigPath reads this one YAML or JSON file instead of the layers.
	ConfigPath string `json:"configPath,omitempty"`
	// Config is an inline configuration (the same shape as a file) instead of any file: anything
	// encoding/json turns into an object, such as a map[string]any, a json.RawMessage or a struct.
	// nil (or a value that encodes as JSON null) means none.
	Config any `json:"config,omitempty"`
	// Trusted forces trust on (Ptr(true)) or off (Ptr(false)); nil leaves it to openHarness's
	// trust store <home>/.oh/trusted-dirs.json, which trusts every project when the file does not
	// exist: a harness embedding a security policy sets Trusted explicitly.
	Trusted *bool `json:"trusted,omitempty"`
	// DefaultTimeoutMs is the timeout of hooks without their own (0: the engine's 10000).
	DefaultTimeoutMs int `json:"defaultTimeoutMs,omitempty"`
	// Env is extra environment for every hook.
	Env map[string]string `json:"env,omitempty"`
	// Strict makes malformed jsonIO responses deny on blocking events.
	Strict bool `json:"strict,omitempty"`
	// MaxOutputBytes caps what one hook may print (jsonIO) or return over HTTP (0: 1 MiB).
	MaxOutputBytes int `json:"maxOutputBytes,omitempty"`
	// WaitNonBlocking makes a fire of a non-blocking event wait for its hooks and report them.
	WaitNonBlocking bool `json:"waitNonBlocking,omitempty"`
	// Watch: Ptr(false) pins the config read at creation (files are re-read only by Reload);
	// nil means the default, true: changed files are noticed on fire.
	Watch *bool `json:"watch,omitempty"`
	// HTTPProxy is the proxy URL for HTTP hooks; the *_proxy environment variables are never
	// read. Empty means direct connections.
	HTTPProxy string `json:"httpProxy,omitempty"`
	// ShutdownTimeoutMs is how long Close waits for background hooks and asynchronous fires
	// before it cancels them (0: the engine's 5000).
	ShutdownTimeoutMs int `json:"shutdownTimeoutMs,omitempty"`
	// Claude also reads Claude Code's settings files and runs their hooks as Claude Code would
	// (docs/dialects/claude.md "Claude Code hooks").
	Claude bool `json:"claude,omitempty"`
	// ClaudePlugins are Claude Code plugin directories whose hooks/hooks.json is read.
	ClaudePlugins []ClaudePlugin `json:"claudePlugins,omitempty"`
	// ClaudeProjectDir is CLAUDE_PROJECT_DIR for Claude Code hooks ("": Cwd).
	ClaudeProjectDir string `json:"claudeProjectDir,omitempty"`
	// Gemini also runs Gemini CLI's hooks (docs/dialects/gemini.md); nil: off.
	Gemini *DialectFiles `json:"gemini,omitempty"`
	// Cursor also runs Cursor's .cursor/hooks.json hooks as Cursor would (docs/dialects/cursor.md);
	// nil: off.
	Cursor *DialectFiles `json:"cursor,omitempty"`
	// Tools tells the engine what the host's tools are, so other harnesses' hooks see them under
	// their own names and field names (docs/envelope.md "Host tools"), e.g.
	// map[string]Tool{"shell": {Kind: "shell", Fields: map[string]string{"command": "cmd"}}}.
	// Claude Code's tool names are known without it.
	Tools map[string]Tool `json:"tools,omitempty"`
	// Codex also runs Codex's hooks (~/.codex/hooks.json, config.toml [hooks], the project's
	// .codex/) as Codex would (docs/dialects/codex.md); nil: off.
	Codex *DialectFiles `json:"codex,omitempty"`
	// Copilot also runs GitHub Copilot's hooks (~/.copilot/hooks/*.json, the project's
	// .github/hooks/*.json and Copilot settings.json hooks) as the Copilot CLI would
	// (docs/dialects/copilot.md); nil: off.
	Copilot *DialectFiles `json:"copilot,omitempty"`
}

// Tool is one host tool of Options.Tools: its kind (shell, read, write, edit, fetch, search,
// glob, agent, mcp) and, where the host's field names differ from the kind's canonical ones,
// canonical field → the host's field.
type Tool struct {
	Kind   string            `json:"kind"`
	Fields map[string]string `json:"fields,omitempty"`
}

// DialectFiles turns on another harness's hooks (docs/dialects.md "Dialects"): with neither Files nor
// Plugins it is the option `true`; otherwise the object form, whose Files are more own files and
// Plugins plugin or extension directories.
type DialectFiles struct {
	Files   []string       `json:"files,omitempty"`
	Plugins []ClaudePlugin `json:"plugins,omitempty"`
}

// MarshalJSON writes `true` for an empty DialectFiles.
func (d DialectFiles) MarshalJSON() ([]byte, error) {
	if len(d.Files) == 0 && len(d.Plugins) == 0 {
		return []byte("true"), nil
	}
	type plain DialectFiles
	return json.Marshal(plain(d))
}

// ClaudePlugin is a Claude Code plugin directory; Data, when set, becomes CLAUDE_PLUGIN_DATA.
type ClaudePlugin struct {
	Root string `json:"root"`
	Data string `json:"data,omitempty"`
}

// MarshalJSON encodes the options as the engine expects them: zero fields are left out (so the
// engine's defaults apply), except that an empty non-nil Layers is sent as [].
func (o Options) MarshalJSON() ([]byte, error) {
	type plain Options
	var cfg json.RawMessage
	if o.Config != nil {
		b, err := json.Marshal(o.Config)
		if err != nil {
			return nil, &Error{Code: CodeInvalidOptions, Message: fmt.Sprintf("cannot encode Options.Config as JSON: %v", err)}
		}
		if string(b) != "null" {
			cfg = b
		}
	}
	var layers *[]string
	if o.Layers != nil {
		layers = &o.Layers
	}
	b, err := json.Marshal(struct {
		plain
		Config json.RawMessage `json:"config,omitempty"`
		Layers *[]string       `json:"layers,omitempty"`
	}{plain(o), cfg, layers})
	if err != nil {
		return nil, &Error{Code: CodeInvalidOptions, Message: fmt.Sprintf("cannot encode options as JSON: %v", err)}
	}
	return b, nil
}

// Effort is the envelope's "effort" object; its level feeds OH_EFFORT.
type Effort struct {
	Level string `json:"level,omitempty"`
}

// Envelope is one event with its context (docs/envelope.md "The envelope"). Event is required; every other field
// is optional and left out when zero (numbers and booleans are pointers, so that 0 and false can be
// sent: TurnNumber: ohhooks.Ptr(0)).
//
// It is encoded with "event" first, then the typed fields that are set, in the order below, then
// the keys of Extra in sorted order, all at the top level. Extra carries any other context
// (toolInput, your own fields, ...). It may also carry a known field's key when that typed field is
// zero, to send a value the typed field cannot express (an explicit empty prompt, an object as
// toolArgs); a key in Extra that is "event" or that names a typed field which is also set is
// rejected with an *Error of Code "invalid_envelope".
type Envelope struct {
	Event string `json:"event,omitempty"`

	ToolName           string   `json:"toolName,omitempty"`
	ToolArgs           string   `json:"toolArgs,omitempty"`
	ToolOutput         string   `json:"toolOutput,omitempty"`
	ToolInputJSON      string   `json:"toolInputJson,omitempty"`
	SessionID          string   `json:"sessionId,omitempty"`
	Model              string   `json:"model,omitempty"`
	Provider           string   `json:"provider,omitempty"`
	PermissionMode     string   `json:"permissionMode,omitempty"`
	Cost               *float64 `json:"cost,omitempty"`
	Tokens             *int64   `json:"tokens,omitempty"`
	FilePath           string   `json:"filePath,omitempty"`
	NewCwd             string   `json:"newCwd,omitempty"`
	AgentID            string   `json:"agentId,omitempty"`
	Message            string   `json:"message,omitempty"`
	Prompt             string   `json:"prompt,omitempty"`
	ToolError          string   `json:"toolError,omitempty"`
	ErrorMessage       string   `json:"errorMessage,omitempty"`
	PermissionAction   string   `json:"permissionAction,omitempty"`
	TurnNumber         *int     `json:"turnNumber,omitempty"`
	TurnReason         string   `json:"turnReason,omitempty"`
	WorktreePath       string   `json:"worktreePath,omitempty"`
	WorktreeParent     string   `json:"worktreeParent,omitempty"`
	WorktreeForced     *bool    `json:"worktreeForced,omitempty"`
	ElicitationServer  string   `json:"elicitationServer,omitempty"`
	ElicitationMessage string   `json:"elicitationMessage,omitempty"`
	ElicitationSchema  string   `json:"elicitationSchema,omitempty"`
	ElicitationAction  string   `json:"elicitationAction,omitempty"`
	ElicitationContent string   `json:"elicitationContent,omitempty"`
	Effort             *Effort  `json:"effort,omitempty"`

	// Extra is any other context, flattened into the envelope's top level.
	Extra map[string]any `json:"-"`
}

// envelopeFields maps each typed field's JSON name to its index in Envelope.
var envelopeFields = func() map[string]int {
	m := map[string]int{}
	t := reflect.TypeOf(Envelope{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	return m
}()

func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MarshalJSON encodes the envelope as described on [Envelope]. Its errors are *Error values with
// Code "invalid_envelope".
func (e Envelope) MarshalJSON() ([]byte, error) {
	return e.appendJSON(nil)
}

// appendJSON appends the envelope's JSON (MarshalJSON's) to b; on an error it returns nil.
func (e *Envelope) appendJSON(b []byte) ([]byte, error) {
	out, ok, err := e.appendEnvelope(b)
	if err != nil {
		return nil, err
	}
	if ok {
		return out, nil
	}
	// What appendEnvelope leaves to encoding/json (a NaN or infinite Cost, which it refuses).
	type plain Envelope
	typed, err := encodeJSON(plain(*e))
	if err != nil {
		return nil, &Error{Code: CodeInvalidEnvelope, Message: fmt.Sprintf("cannot encode the envelope as JSON: %v", err)}
	}
	b = append(b, typed...)
	if len(e.Extra) == 0 {
		return b, nil
	}
	start := len(b) - len(typed)
	keys := sortedKeys(e.Extra, make([]string, 0, len(e.Extra)))
	b = b[:len(b)-1] // reopen the object
	for _, k := range keys {
		if err := e.extraKeyError(k); err != nil {
			return nil, err
		}
		kb, _ := encodeJSON(k)
		vb, err := encodeJSON(e.Extra[k])
		if err != nil {
			return nil, extraValueError(k, err)
		}
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, vb...)
	}
	return append(b, '}'), nil
}

// extraKeyError is the error for an Extra key that cannot be sent: "event", or the key of a
// typed field that is set.
func (e *Envelope) extraKeyError(k string) error {
	if k == "event" {
		return &Error{Code: CodeInvalidEnvelope, Message: `Envelope.Extra has the key "event"; set Envelope.Event instead`}
	}
	if i, ok := envelopeFields[k]; ok && !reflect.ValueOf(e).Elem().Field(i).IsZero() {
		return &Error{Code: CodeInvalidEnvelope, Message: fmt.Sprintf(
			"Envelope.Extra has the key %q, which Envelope.%s also sets; set only one of them",
			k, reflect.TypeOf(e).Elem().Field(i).Name)}
	}
	return nil
}

func extraValueError(k string, err error) error {
	return &Error{Code: CodeInvalidEnvelope, Message: fmt.Sprintf("cannot encode Envelope.Extra[%q] as JSON: %v", k, err)}
}

// UnmarshalJSON decodes an envelope object: "event" into Event, each known context field whose value
// fits its typed field (and is not the zero value) into that field, everything else into Extra
// (numbers there as json.Number, so they keep their exact text).
func (e *Envelope) UnmarshalJSON(data []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("ohhooks: an envelope must be a JSON object, not null")
	}
	*e = Envelope{}
	v := reflect.ValueOf(e).Elem()
	for k, raw := range m {
		if k == "event" {
			if err := json.Unmarshal(raw, &e.Event); err != nil {
				return fmt.Errorf("ohhooks: the envelope's event must be a string: %w", err)
			}
			continue
		}
		if i, ok := envelopeFields[k]; ok {
			p := reflect.New(v.Field(i).Type())
			if err := json.Unmarshal(raw, p.Interface()); err == nil && !p.Elem().IsZero() {
				v.Field(i).Set(p.Elem())
				continue
			}
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return err
		}
		if e.Extra == nil {
			e.Extra = map[string]any{}
		}
		e.Extra[k] = x
	}
	return nil
}

// Decision is a permission decision.
type Decision string

// Permission decisions of an Outcome.
const (
	DecisionAllow Decision = "allow"
	DecisionDeny  Decision = "deny"
	DecisionAsk   Decision = "ask"
	DecisionDefer Decision = "defer" // Claude Code hooks only: the harness decides later
)

// HookResult is what one hook decided.
type HookResult string

// Hook results of a HookTrace.
const (
	ResultAllow HookResult = "allow"
	ResultDeny  HookResult = "deny"
	ResultAsk   HookResult = "ask"
	ResultDefer HookResult = "defer" // Claude Code hooks only
	ResultNone  HookResult = "none"  // no decision
	// ResultCancelled: the fire's cancel (its ctx ending) stopped the hook before it finished.
	ResultCancelled HookResult = "cancelled"
	// Deprecated: never produced since version 1.1, which does not load an untrusted
	// project's hooks at all (the outcome's Warnings say so instead).
	ResultSkipped HookResult = "skipped"
)

// HookType is the kind of a hook.
type HookType string

// Hook types of a HookTrace.
const (
	HookCommand  HookType = "command"
	HookHTTP     HookType = "http"
	HookPrompt   HookType = "prompt"
	HookCallback HookType = "callback" // a function registered with Hooks.Register
)

// Outcome is the merged result of one fire (docs/envelope.md "The outcome").
type Outcome struct {
	// Allowed is false when the harness must not go on (the tool must not run, the prompt must not
	// be sent). It is always true on non-blocking events and false when Error is set.
	Allowed bool `json:"allowed"`
	// PermissionDecision is "allow", "deny", "ask", "defer" (Claude Code hooks only), or "" when
	// no hook made one.
	PermissionDecision Decision `json:"permissionDecision,omitempty"`
	// Reason is the deny reason (or the first reason a hook gave).
	Reason string `json:"reason,omitempty"`
	// AdditionalContext is the context hooks asked to prepend, joined by "\n\n".
	AdditionalContext string `json:"additionalContext,omitempty"`
	// UpdatedInput is the tool input to use instead of the one sent (preToolUse,
	// permissionRequest), or nil.
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
	// UpdatedPrompt is the prompt to use instead of the one sent (userPromptSubmit), or "".
	UpdatedPrompt string `json:"updatedPrompt,omitempty"`
	// UpdatedPermissions are the permission-rule updates a Claude Code PermissionRequest hook
	// asked for, as the hook wrote them.
	UpdatedPermissions []json.RawMessage `json:"updatedPermissions,omitempty"`
	// Interrupt is true when a Claude Code PermissionRequest deny asked to interrupt the agent.
	Interrupt bool `json:"interrupt,omitempty"`
	// Continue is nil, or false when a hook asked the harness to stop the agent (StopReason says
	// why).
	Continue   *bool  `json:"continue,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// SystemMessage is for the user, not the model: the hooks' messages joined by "\n".
	SystemMessage string `json:"systemMessage,omitempty"`
	// Gemini CLI hooks' answers with no other harness's equivalent (docs/dialects/gemini.md), as
	// the hooks wrote them: the partial model request to apply (beforeModel), the model response
	// to use instead (beforeModel with a deny, afterModel), the tool config
	// {mode, allowedFunctionNames} (beforeToolSelection), a tool to run next (postToolUse), and a
	// request to clear the conversation (turnStop).
	LLMRequest          json.RawMessage `json:"llmRequest,omitempty"`
	LLMResponse         json.RawMessage `json:"llmResponse,omitempty"`
	ToolConfig          json.RawMessage `json:"toolConfig,omitempty"`
	TailToolCallRequest json.RawMessage `json:"tailToolCallRequest,omitempty"`
	ClearContext        bool            `json:"clearContext,omitempty"`
	// Hooks traces every matching hook that ran, in list order.
	Hooks []HookTrace `json:"hooks"`
	// Warnings are problems the engine noticed, such as a changed config file that failed to load.
	Warnings []string `json:"warnings,omitempty"`
	// Error is set when the input was not processed (a bad envelope); Fire then also returns it as
	// an *Error.
	Error *OutcomeError `json:"error,omitempty"`
}

// OutcomeError is the "error" of an outcome: why the envelope was rejected.
type OutcomeError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (o *OutcomeError) err() *Error { return &Error{Code: o.Code, Message: o.Message} }

// HookTrace is what one hook did. Optional numbers are pointers: nil means absent.
type HookTrace struct {
	Index int      `json:"index"` // position in the event's configured list
	Type  HookType `json:"type"`
	// JSONIO is true on jsonIO command hooks.
	JSONIO bool `json:"jsonIO,omitempty"`
	// Persistent is true on persistent command hooks.
	Persistent bool `json:"persistent,omitempty"`
	// ExitCode is set for command hooks whose shell exited normally.
	ExitCode *int `json:"exitCode,omitempty"`
	// Signal is set for command hooks whose shell was killed by a signal.
	Signal *int `json:"signal,omitempty"`
	// Status is set for HTTP hooks that got a response.
	Status *int `json:"status,omitempty"`
	// TimedOut is set for command and HTTP hooks.
	TimedOut   *bool      `json:"timedOut,omitempty"`
	DurationMs float64    `json:"durationMs"`
	Result     HookResult `json:"result"`
	Reason     string     `json:"reason,omitempty"`
	Stderr     string     `json:"stderr,omitempty"`
	Error      string     `json:"error,omitempty"`
	// Dialect is the hook's dialect (docs/dialects.md): "claude", "codex", "cursor", "copilot" or
	// "gemini"; "" on openHarness hooks.
	Dialect string `json:"dialect,omitempty"`
	// Source is the settings or plugin hooks.json file a Claude Code hook came from.
	Source string `json:"source,omitempty"`
	// Failure says why a Claude Code hook's failure (exit 1, timeout, bad JSON, ...) let the
	// action through.
	Failure string `json:"failure,omitempty"`
}

// sortedKeys appends m's keys to buf in sorted order: Extra's members are written in this order
// by both envelope encoders (appendEnvelope and the encoding/json one).
func sortedKeys(m map[string]any, buf []string) []string {
	for k := range m {
		buf = append(buf, k)
	}
	sort.Strings(buf)
	return buf
}
