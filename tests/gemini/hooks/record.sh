#!/usr/bin/env bash
# Saves what the hook received (stdin, the Gemini variables, its argv) into $RECORD_DIR/$1.*
# and answers with $2 (default: nothing).
cat > "$RECORD_DIR/$1.stdin"
env | grep -E '^(GEMINI_|CLAUDE_PROJECT_DIR|HOOK_ENV)' | sort > "$RECORD_DIR/$1.env"
printf '%s' "${2-}"
