#!/usr/bin/env bash
# A postToolUse hook that adds context for the model.
cat >/dev/null
printf '{"additional_context":"Remember: run cargo fmt after editing Rust files."}\n'
