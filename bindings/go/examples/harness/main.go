// Command harness is a miniature agent harness loop driven by oh-hooks: a prompt is submitted, the
// "model" asks for a few tool calls, and for each one the harness asks permission, checks
// preToolUse, "runs" the tool (it only prints it) and reports postToolUse, doing with each decision
// what a real harness would.
//
// Its config is examples/harness.yaml: the project policy of examples/policy plus the harness's
// own hooks, which call back into this process: `callback: canUseTool` (its permission check,
// a Go function) and a prompt hook judged by its "model" (the prompt evaluator, a stub here).
// The decision observer writes every decision to an audit log.
//
//	go run ./examples/harness                       # from bindings/go: finds examples/
//	go run ./examples/harness -policy /path/to/dir -config /path/to/hooks.yaml
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	ohhooks "github.com/oh-hooks/ohhooks"
)

type toolCall struct {
	name string
	args map[string]any
}

func main() {
	policy := flag.String("policy", "", "directory the hooks run in (default: examples/policy of the repository)")
	config := flag.String("config", "", "the config file (default: examples/harness.yaml of the repository)")
	prompt := flag.String("prompt", "Tidy up the repository and show me what is in it.", "the user's prompt")
	answer := flag.Bool("approve", true, "the simulated user's answer when a permission is left to ask")
	flag.Parse()

	dir, cfg := *policy, *config
	if dir == "" || cfg == "" {
		examples, err := findExamples()
		if err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			os.Exit(2)
		}
		if dir == "" {
			dir = filepath.Join(examples, "policy")
		}
		if cfg == "" {
			cfg = filepath.Join(examples, "harness.yaml")
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, dir, cfg, *prompt, *answer); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

// findExamples looks for examples/harness.yaml in the working directory and its parents.
func findExamples() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(d, "examples")
		if _, err := os.Stat(filepath.Join(p, "harness.yaml")); err == nil {
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("no examples/harness.yaml above the working directory; pass -policy DIR -config FILE")
		}
		d = parent
	}
}

// session is the harness's state that its hook functions read. They run on goroutines of their
// own, concurrently with the loop, hence the lock.
type session struct {
	mu       sync.Mutex
	approved map[string]bool // tools the user approved "always, for this session"
}

// canUseTool is the function behind `callback: canUseTool`: allow what the user already approved,
// no opinion otherwise (the zero Response), so that the project's permission policy decides.
func (s *session) canUseTool(ctx context.Context, env ohhooks.Envelope) (ohhooks.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.approved[env.ToolName] {
		return ohhooks.Response{PermissionDecision: ohhooks.DecisionAllow, Reason: env.ToolName + " was approved for this session"}, nil
	}
	return ohhooks.Response{}, nil
}

var forcePush = regexp.MustCompile(`git\s+push\s+(.*\s)?(--force|-f)\b`)

// model is the prompt evaluator: a stub "model" answering the hook's question about the envelope.
// A real one would call a model API with ctx, which the engine bounds by the hook's timeout.
func model(ctx context.Context, req ohhooks.PromptRequest) (ohhooks.Response, error) {
	select {
	case <-time.After(20 * time.Millisecond): // the model "thinks"
	case <-ctx.Done():
		return ohhooks.Response{}, ctx.Err()
	}
	if forcePush.MatchString(req.Envelope.ToolArgs) {
		return ohhooks.Response{Decision: ohhooks.DecisionDeny,
			Reason: "model: a force-push rewrites shared history (asked: " + req.Prompt + ")"}, nil
	}
	return ohhooks.Response{}, nil // no objection: the other hooks decide
}

// auditLog is the decision observer: one JSON line per fire, once all its hooks (background ones
// included) have finished. Records of concurrent fires may arrive concurrently.
type auditLog struct {
	mu    sync.Mutex
	f     *os.File
	count int
}

func (a *auditLog) record(r ohhooks.Record) {
	hooks := make([]string, len(r.Outcome.Hooks))
	for i, h := range r.Outcome.Hooks {
		hooks[i] = fmt.Sprintf("%s:%s", h.Type, h.Result)
	}
	line, _ := json.Marshal(struct {
		Event              string           `json:"event"`
		ToolName           string           `json:"toolName,omitempty"`
		Allowed            bool             `json:"allowed"`
		PermissionDecision ohhooks.Decision `json:"permissionDecision,omitempty"`
		Reason             string           `json:"reason,omitempty"`
		Hooks              []string         `json:"hooks"`
	}{r.Envelope.Event, r.Envelope.ToolName, r.Outcome.Allowed, r.Outcome.PermissionDecision, r.Outcome.Reason, hooks})
	a.mu.Lock()
	defer a.mu.Unlock()
	a.f.Write(append(line, '\n'))
	a.count++
}

func run(ctx context.Context, dir, cfg, prompt string, approve bool) error {
	tmp, err := os.MkdirTemp("", "oh-hooks-harness-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// Trusted because this is our own example; a real harness leaves Trusted nil and lets
	// openHarness's trust store decide. Env reaches every hook (audit-log.sh).
	hooks, err := ohhooks.New(ohhooks.Options{Cwd: dir, ConfigPath: cfg, Trusted: ohhooks.Ptr(true),
		Env: map[string]string{"OH_HOOKS_AUDIT_LOG": filepath.Join(tmp, "tools.log")}})
	if err != nil {
		return fmt.Errorf("loading hooks from %s: %w", cfg, err)
	}
	defer hooks.Close()
	sess := &session{approved: map[string]bool{}}
	if err := hooks.Register("canUseTool", sess.canUseTool); err != nil {
		return err
	}
	if err := hooks.RegisterPrompt(model); err != nil {
		return err
	}
	auditPath := filepath.Join(tmp, "decisions.jsonl")
	f, err := os.Create(auditPath)
	if err != nil {
		return err
	}
	defer f.Close()
	audit := &auditLog{f: f}
	if err := hooks.OnDecision(audit.record); err != nil {
		return err
	}
	fmt.Printf("oh-hooks %s, config %s, hooks run in %s\n\n", ohhooks.Version(), cfg, dir)
	if err := loop(ctx, hooks, sess, prompt, approve); err != nil {
		return err
	}
	hooks.Close() // waits for the background hooks, whose records arrive before it returns
	audit.mu.Lock()
	defer audit.mu.Unlock()
	b, err := os.ReadFile(auditPath)
	if err != nil {
		return err
	}
	fmt.Printf("\n%d decision(s) recorded by the observer (%s):\n%s", audit.count, auditPath, b)
	return nil
}

func loop(ctx context.Context, hooks *ohhooks.Hooks, sess *session, prompt string, approve bool) error {
	session := fmt.Sprintf("demo-%d", os.Getpid())
	base := ohhooks.Envelope{SessionID: session, Model: "anthropic/claude-opus-4-7", Provider: "anthropic",
		PermissionMode: "ask"}
	fire := func(env ohhooks.Envelope) (ohhooks.Outcome, error) {
		env.SessionID, env.Model, env.Provider, env.PermissionMode = base.SessionID, base.Model, base.Provider, base.PermissionMode
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		out, err := hooks.Fire(fctx, env)
		show(env.Event, out, err)
		return out, err
	}

	if _, err := fire(ohhooks.Envelope{Event: "sessionStart"}); err != nil {
		return err
	}

	// 1. The user submits a prompt.
	fmt.Printf("user> %s\n", prompt)
	out, err := fire(ohhooks.Envelope{Event: "userPromptSubmit", Prompt: prompt, TurnNumber: ohhooks.Ptr(0)})
	if err != nil {
		return err
	}
	if !out.Allowed {
		fmt.Printf("harness: prompt blocked, not sent to the model: %s\n", orDefault(out.Reason, "(no reason given)"))
		return nil
	}
	if out.AdditionalContext != "" {
		fmt.Printf("harness: sending the prompt with this context prepended:\n%s\n", indent(out.AdditionalContext))
	} else {
		fmt.Println("harness: sending the prompt to the model unchanged")
	}

	// 2. The model asks for tool calls.
	calls := []toolCall{
		{"Read", map[string]any{"file_path": "README.md"}},
		{"Bash", map[string]any{"command": "ls -la"}},
		{"Bash", map[string]any{"command": "git push --force origin main"}},
		{"WebFetch", map[string]any{"url": "https://example.com"}},
		{"Bash", map[string]any{"command": "rm -rf /"}},
	}
	for _, c := range calls {
		argsJSON, _ := json.Marshal(c.args)
		fmt.Printf("\nmodel> call %s %s\n", c.name, argsJSON)
		tool := ohhooks.Envelope{ToolName: c.name, ToolArgs: string(argsJSON), ToolInputJSON: string(argsJSON)}

		// 2a. The permission check says "needs approval": ask the hooks first.
		req := tool
		req.Event, req.PermissionAction = "permissionRequest", "ask"
		out, err := fire(req)
		if err != nil {
			return err
		}
		switch {
		case !out.Allowed || out.PermissionDecision == ohhooks.DecisionDeny:
			fmt.Printf("harness: permission denied by policy (%s); telling the model the call was refused\n",
				orDefault(out.Reason, "no reason given"))
			denied := tool
			denied.Event, denied.PermissionAction = "permissionDenied", "deny"
			if _, err := fire(denied); err != nil {
				return err
			}
			continue
		case out.PermissionDecision == ohhooks.DecisionAllow:
			fmt.Println("harness: permission granted by a hook, no prompt shown to the user")
		default:
			verdict := "yes"
			if !approve {
				verdict = "no"
			}
			fmt.Printf("harness: policy leaves it to the user: \"Allow %s?\" (simulated answer: %s, always for this session)\n", c.name, verdict)
			if !approve {
				continue
			}
			sess.mu.Lock()
			sess.approved[c.name] = true
			sess.mu.Unlock()
		}

		// 2b. preToolUse can still block it.
		pre := tool
		pre.Event = "preToolUse"
		out, err = fire(pre)
		if err != nil {
			return err
		}
		if !out.Allowed {
			fmt.Printf("harness: tool blocked by preToolUse (%s); the model is told it did not run\n",
				orDefault(out.Reason, "no reason given"))
			continue
		}
		if out.AdditionalContext != "" {
			fmt.Printf("harness: adding context for the model:\n%s\n", indent(out.AdditionalContext))
		}

		// 2c. The tool "runs".
		fmt.Printf("harness: running %s %s ... (simulated)\n", c.name, argsJSON)
		post := tool
		post.Event, post.ToolOutput = "postToolUse", fmt.Sprintf("(simulated output of %s)", c.name)
		if _, err := fire(post); err != nil {
			return err
		}
	}

	fmt.Println()
	_, err = fire(ohhooks.Envelope{Event: "sessionEnd"})
	return err
}

// show prints what the engine answered for one fire.
func show(event string, out ohhooks.Outcome, err error) {
	if err != nil && out.Error == nil {
		fmt.Printf("  [%s] error: %v\n", event, err)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  [%s] allowed=%v", event, out.Allowed)
	if out.PermissionDecision != "" {
		fmt.Fprintf(&b, " permission=%s", out.PermissionDecision)
	}
	if out.Reason != "" {
		fmt.Fprintf(&b, " reason=%q", out.Reason)
	}
	if out.Error != nil {
		fmt.Fprintf(&b, " error=%s: %s", out.Error.Code, out.Error.Message)
	}
	fmt.Println(b.String())
	for _, h := range out.Hooks {
		line := fmt.Sprintf("    hook #%d %s -> %s", h.Index, h.Type, h.Result)
		if h.ExitCode != nil {
			line += fmt.Sprintf(" exit=%d", *h.ExitCode)
		}
		if h.TimedOut != nil && *h.TimedOut {
			line += " timed out"
		}
		if h.Reason != "" {
			line += fmt.Sprintf(" reason=%q", h.Reason)
		}
		fmt.Printf("%s (%.1f ms)\n", line, h.DurationMs)
	}
	for _, w := range out.Warnings {
		fmt.Printf("    warning: %s\n", w)
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func indent(s string) string {
	return "    | " + strings.ReplaceAll(s, "\n", "\n    | ")
}
