#!/usr/bin/env bash
# A Codex UserPromptSubmit / SessionStart hook: plain stdout is context for the model.
cat > /dev/null
echo "Project rules: run \`cargo test\` before committing."
