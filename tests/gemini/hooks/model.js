#!/usr/bin/env node
// A Gemini CLI model hook: BeforeModel swaps the model, BeforeToolSelection allows only
// read-only tools, AfterModel replaces the response text.
let text = '';
process.stdin.on('data', (c) => (text += c));
process.stdin.on('end', () => {
  const input = JSON.parse(text);
  const event = input.hook_event_name;
  let out = {};
  if (event === 'BeforeModel') {
    out = { hookSpecificOutput: { hookEventName: event, llm_request: { model: 'gemini-2.5-flash', messages: input.llm_request.messages } } };
  } else if (event === 'BeforeToolSelection') {
    out = { hookSpecificOutput: { hookEventName: event, toolConfig: { mode: 'ANY', allowedFunctionNames: ['read_file', 'glob'] } } };
  } else if (event === 'AfterModel') {
    out = { hookSpecificOutput: { hookEventName: event, llm_response: { candidates: [{ content: { role: 'model', parts: ['[redacted]'] }, finishReason: 'STOP' }] } } };
  }
  process.stdout.write(JSON.stringify(out));
});
