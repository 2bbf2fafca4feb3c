// tests/dist.sh's Go harness: an app that requires github.com/oh-hooks/ohhooks through a replace
// to the unpacked module zip. argv: options JSON file, expected version, suite name.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/oh-hooks/ohhooks"
)

var passed, failed int

func check(ok bool, what string) {
	if ok {
		passed++
		fmt.Println("ok  ", what)
	} else {
		failed++
		fmt.Println("FAIL", what)
	}
}

func main() {
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	var opts ohhooks.Options
	if err := json.Unmarshal(raw, &opts); err != nil {
		panic(err)
	}
	check(ohhooks.Version() == os.Args[2], "Version() is the packaged version ("+ohhooks.Version()+")")
	h, err := ohhooks.New(opts)
	check(err == nil, fmt.Sprint("New with an inline config: ", err))
	if err == nil {
		ctx := context.Background()
		out, err := h.Fire(ctx, ohhooks.Envelope{Event: ohhooks.EventPreToolUse, ToolName: "Bash", ToolArgs: "ls"})
		check(err == nil && out.Allowed, "the hook allows `ls`")
		out, err = h.Fire(ctx, ohhooks.Envelope{Event: ohhooks.EventPreToolUse, ToolName: "Bash", ToolArgs: "rm -rf /"})
		check(err == nil && !out.Allowed, "the hook denies `rm -rf /`")
		h.Close()
	}
	_, err = ohhooks.NewJSON([]byte(`{"defaultTimeout": 5}`))
	var oe *ohhooks.Error
	check(errors.As(err, &oe) && oe.Code == "invalid_options" && strings.Contains(oe.Message, "defaultTimeoutMs"),
		"a misspelt option is refused with a suggestion")
	fmt.Printf("%s: %d passed, %d failed\n", os.Args[3], passed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}
