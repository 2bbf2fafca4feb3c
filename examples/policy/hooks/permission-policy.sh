#!/bin/sh
# permissionRequest, jsonIO: approve read-only tools, refuse network tools, ask for the rest.
cat > /dev/null
case "$OH_TOOL_NAME" in
  Read | Grep | Glob | LS)
    printf '%s\n' '{"hookSpecificOutput":{"decision":"allow"}}' ;;
  WebFetch | WebSearch)
    printf '%s\n' '{"hookSpecificOutput":{"decision":"deny","reason":"network tools are disabled in this project"}}' ;;
  *)
    printf '%s\n' '{"hookSpecificOutput":{"decision":"ask"}}' ;;
esac
