#!/usr/bin/env node
// BeforeModel: a short last message goes to the flash model.
// BeforeToolSelection: a question gets only read-only tools.
let text = '';
process.stdin.on('data', (c) => (text += c));
process.stdin.on('end', () => {
  const input = JSON.parse(text);
  const messages = (input.llm_request && input.llm_request.messages) || [];
  const last = messages.length ? String(messages[messages.length - 1].content) : '';
  let out = {};
  if (input.hook_event_name === 'BeforeModel' && last.length < 40) {
    out = { hookSpecificOutput: { hookEventName: 'BeforeModel', llm_request: { model: 'gemini-2.5-flash' } } };
  } else if (input.hook_event_name === 'BeforeToolSelection' && last.trim().endsWith('?')) {
    out = { hookSpecificOutput: { hookEventName: 'BeforeToolSelection', toolConfig: { mode: 'ANY', allowedFunctionNames: ['read_file', 'glob', 'grep_search'] } } };
  }
  process.stdout.write(JSON.stringify(out));
});
