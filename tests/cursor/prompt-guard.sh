#!/usr/bin/env bash
# A beforeSubmitPrompt hook: refuses prompts that look like they carry a password.
input=$(cat)
if printf '%s' "$input" | grep -qi 'password'; then
  printf '{"continue":false,"user_message":"Remove the password from your prompt."}\n'
else
  printf '{"continue":true}\n'
fi
