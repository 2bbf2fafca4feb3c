// Command harness is a miniature agent harness loop driven by oh-hooks: a prompt is submitted, the
// "model" asks for a few tool calls, and for each one the harness asks permission, checks
// preToolUse, "runs" the tool (it only prints it) and reports postToolUse, doing with each decision
// what a real harness would.
//
//	go run ./examples/harness                       # from bindings/go: finds examples/policy
//	go run ./examples/harness -policy /path/to/dir  # any directory with a .oh/config.yaml
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
	"strings"
	"time"

	ohhooks "github.com/oh-hooks/ohhooks"
)

type toolCall struct {
	name string
	args map[string]any
}

func main() {
	policy := flag.String("policy", "", "directory whose .oh/config.yaml holds the hooks (default: examples/policy of the repository)")
	prompt := flag.String("prompt", "Tidy up the repository and show me what is in it.", "the user's prompt")
	answer := flag.Bool("approve", true, "the simulated user's answer when a permission is left to ask")
	flag.Parse()

	dir := *policy
	if dir == "" {
		var err error
		if dir, err = findPolicy(); err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, dir, *prompt, *answer); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

// findPolicy looks for examples/policy/.oh/config.yaml in the working directory and its parents.
func findPolicy() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(d, "examples", "policy")
		if _, err := os.Stat(filepath.Join(p, ".oh", "config.yaml")); err == nil {
			return p, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", errors.New("no examples/policy/.oh/config.yaml above the working directory; pass -policy DIR")
		}
		d = parent
	}
}

func run(ctx context.Context, dir, prompt string, approve bool) error {
	hooks, err := ohhooks.New(ohhooks.Options{Cwd: dir, Trusted: ohhooks.Ptr(true)})
	if err != nil {
		return fmt.Errorf("loading hooks from %s: %w", dir, err)
	}
	defer hooks.Close()
	fmt.Printf("oh-hooks %s, policy %s\n\n", ohhooks.Version(), dir)

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
			fmt.Println("harness: permission granted by policy, no prompt shown to the user")
		default:
			verdict := "yes"
			if !approve {
				verdict = "no"
			}
			fmt.Printf("harness: policy leaves it to the user: \"Allow %s?\" (simulated answer: %s)\n", c.name, verdict)
			if !approve {
				continue
			}
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
