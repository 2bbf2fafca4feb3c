#!/usr/bin/env bash
# Plain text on stdout, exit 0: Claude Code adds it as context on UserPromptSubmit and
# SessionStart, and ignores it (debug log only) on PreToolUse.
echo "Project rule: $1"
