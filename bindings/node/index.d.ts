/// <reference lib="esnext.disposable" />
// TypeScript declarations for the oh-hooks Node.js binding. The lib reference above declares
// Symbol.dispose and Symbol.asyncDispose (TypeScript 5.2+) for projects whose `lib` predates them.
// The shapes follow docs/options.md "Options", docs/envelope.md "The envelope", "The outcome" and docs/abi.md "Errors" sections.

/** Events whose hooks can block (`allowed` can be false). */
export type BlockingEvent = 'preToolUse' | 'userPromptSubmit' | 'permissionRequest' | 'elicitation';

/** Events whose hooks are notify-only (`allowed` is always true). */
export type NonBlockingEvent =
  | 'sessionStart'
  | 'sessionEnd'
  | 'postToolUse'
  | 'postToolUseFailure'
  | 'postToolBatch'
  | 'userPromptExpansion'
  | 'permissionDenied'
  | 'fileChanged'
  | 'cwdChanged'
  | 'subagentStart'
  | 'subagentStop'
  | 'preCompact'
  | 'postCompact'
  | 'configChange'
  | 'notification'
  | 'turnStart'
  | 'turnStop'
  | 'taskCreated'
  | 'taskCompleted'
  | 'worktreeCreate'
  | 'worktreeRemove'
  | 'elicitationResult'
  | 'instructionsLoaded'
  | 'stopFailure'
  | 'setup'
  | 'teammateIdle'
  | 'messageDisplay'
  | 'directoryAdded'
  | 'preModelSwitch'
  | 'postModelSwitch'
  // Gemini CLI's model events
  | 'beforeModel'
  | 'afterModel'
  | 'beforeToolSelection'
  // Cursor's events with no engine event before (docs/dialects/cursor.md)
  | 'afterAgentResponse'
  | 'afterAgentThought'
  | 'beforeTabFileRead'
  | 'afterTabFileEdit'
  | 'workspaceOpen';

export type HookEvent = BlockingEvent | NonBlockingEvent;

/** One hook entry of a config (`hooks.<event>[i]`): exactly one of command / http / prompt / callback. */
export interface HookEntry {
  command?: string;
  http?: string;
  /** A question for the host's evaluator: the function registered as `prompt`. */
  prompt?: string;
  /** The name of a host function registered with `hooks.register(name, fn)`. */
  callback?: string;
  /** Tool-name filter: substring, `glob*`, or `/regex/flags`. */
  match?: string;
  /** Positive integer milliseconds. */
  timeout?: number;
  /** Command hooks only: envelope on stdin, JSON response on stdout. */
  jsonIO?: boolean;
  /** Command hooks only: keep the process and send one envelope per line (docs/config.md "Persistent hooks"). */
  persistent?: boolean | 'eager';
  /** Persistent hooks: at most this many processes at once (1 to 64, default 4). */
  workers?: number;
}

/** The shape of `.oh/config.yaml` (or an inline `config`). Other top-level keys are ignored. */
export interface HooksConfig {
  disableAllHooks?: boolean;
  hooks?: { [event in HookEvent]?: HookEntry[] | null } | null;
  [harnessKey: string]: unknown;
}

/** Engine options (docs/options.md "Options"). Every key is optional. */
export interface HooksOptions {
  /** Directory the project layers are read from and hooks run in. Default: process cwd. */
  cwd?: string;
  /** Base of the user layer `<home>/.oh/config.yaml` and the trust store; an absolute path (`~` is not expanded). Default: $HOME, else the password database's home. */
  home?: string;
  /** Which layers to read. Default: all three. */
  layers?: Array<'user' | 'project' | 'local'>;
  /** Read this one YAML or JSON file instead of the layers. */
  configPath?: string;
  /** An inline config instead of any file (not watched). */
  config?: HooksConfig;
  /** Force trust on or off; absent = openHarness's trust store, which trusts every project when `~/.oh/trusted-dirs.json` does not exist: a harness embedding a security policy passes it explicitly. */
  trusted?: boolean;
  /** Timeout of hooks without `timeout`. Default 10000. */
  defaultTimeoutMs?: number;
  /** Extra environment for every hook. */
  env?: Record<string, string>;
  /** Malformed hook responses deny on blocking events. Default false. */
  strict?: boolean;
  /** Cap on a hook's stdout (jsonIO) or HTTP body. Default 1048576. */
  maxOutputBytes?: number;
  /** fire() on a non-blocking event waits for its hooks and reports them. Default false. */
  waitNonBlocking?: boolean;
  /** Also read Claude Code's settings files (docs/dialects/claude.md "Claude Code hooks"). Default false. */
  claude?: boolean;
  /** Claude Code plugin directories whose `hooks/hooks.json` is read. */
  claudePlugins?: Array<string | { root: string; data?: string }>;
  /** `CLAUDE_PROJECT_DIR` for Claude Code hooks. Default: `cwd`. */
  claudeProjectDir?: string;
  /** Also run Codex's hooks (`~/.codex/hooks.json`, `config.toml` `[hooks]`, the project's `.codex/`), as Codex would (docs/dialects/codex.md); the object form adds own `files` and `plugins`. Default false. */
  codex?: boolean | DialectFiles;
  /** Also run Gemini CLI's hooks (docs/dialects/gemini.md): `true`, or the files and extension directories to read too. Default false. */
  gemini?: boolean | DialectFiles;
  /** Also read Cursor's `.cursor/hooks.json` files (docs/dialects/cursor.md): `true`, or the host's own
   * `files` and Cursor `plugins` (directories with `.cursor-plugin/plugin.json`) besides. Default false. */
  cursor?: boolean | DialectFiles;
  /** Also run GitHub Copilot's hooks (`~/.copilot/hooks/*.json`, the project's `.github/hooks/*.json`, Copilot `settings.json` hooks), as the Copilot CLI would (docs/dialects/copilot.md); the object form adds own `files` and `plugins`. Default false. */
  copilot?: boolean | DialectFiles;
  /** false: config files are not watched for changes (reload() still re-reads them). Default true. */
  watch?: boolean;
  /** Proxy URL for HTTP hooks (the *_proxy environment variables are never read). */
  httpProxy?: string;
  /** How long closing waits for background hooks and async fires before cancelling them. Default 5000. */
  shutdownTimeoutMs?: number;
  /**
   * The host's tools and their kinds, so other harnesses' hooks see them under their own names
   * and field names (docs/envelope.md "Host tools"): `{shell: {kind: 'shell', fields: {command: 'cmd'}}}`.
   * Claude Code's tool names are known without it.
   */
  tools?: Record<string, ToolKind | { kind: ToolKind; fields?: Record<string, string> }>;
}

/** The object form of a dialect option (`gemini`, …): more own files, and plugin or extension directories. */
export interface DialectFiles {
  files?: string[];
  plugins?: Array<string | { root: string; data?: string }>;
}

/** A kind of host tool (docs/envelope.md "Host tools"); `fields` maps its canonical fields to the host's. */
export type ToolKind = 'shell' | 'read' | 'write' | 'edit' | 'fetch' | 'search' | 'glob' | 'agent' | 'mcp';

/** What a hook is told about (docs/envelope.md "The envelope"). Unknown fields are passed to hooks unchanged. */
export interface Envelope {
  event: HookEvent;
  toolName?: string;
  toolArgs?: string;
  toolOutput?: string;
  toolInputJson?: string;
  sessionId?: string;
  model?: string;
  provider?: string;
  permissionMode?: string;
  cost?: number | string;
  tokens?: number | string;
  filePath?: string;
  newCwd?: string;
  agentId?: string;
  message?: string;
  prompt?: string;
  toolError?: string;
  errorMessage?: string;
  permissionAction?: 'ask' | 'allow' | 'deny' | string;
  turnNumber?: number;
  turnReason?: 'completed' | 'max_turns' | 'error' | 'interrupted' | string;
  worktreePath?: string;
  worktreeParent?: string;
  worktreeForced?: boolean;
  elicitationServer?: string;
  elicitationMessage?: string;
  elicitationSchema?: string;
  elicitationAction?: string;
  elicitationContent?: string;
  effort?: { level?: string; [key: string]: unknown };
  [field: string]: unknown;
}

/** The trace of one hook that matched (docs/envelope.md "The outcome"). */
export interface HookTrace {
  /** Position in the event's configured list. */
  index: number;
  type: 'command' | 'http' | 'prompt' | 'callback';
  /** Only on jsonIO command hooks. */
  jsonIO?: true;
  /** Only on persistent command hooks. */
  persistent?: true;
  /** Command hooks whose shell exited normally. */
  exitCode?: number;
  /** Command hooks whose shell was killed by a signal. */
  signal?: number;
  /** HTTP hooks that got a response. */
  status?: number;
  /** Command, HTTP, callback and prompt hooks. */
  timedOut?: boolean;
  /** Always present; the only field that varies from run to run. */
  durationMs: number;
  /** `cancelled`: the fire's cancel stopped this hook before it finished. */
  result: 'allow' | 'deny' | 'ask' | 'defer' | 'none' | 'cancelled';
  reason?: string;
  /** First 4 KiB of stderr, when non-empty. */
  stderr?: string;
  /** What went wrong (spawn failure, bad response, ...), when anything did. */
  error?: string;
  /** The hook's dialect (docs/dialects.md): `"claude"`, `"codex"`, `"cursor"`, `"copilot"` or `"gemini"`; absent on openHarness hooks. */
  dialect?: 'claude' | 'codex' | 'cursor' | 'copilot' | 'gemini';
  /** Claude Code hooks: the settings or plugin `hooks.json` file the hook came from. */
  source?: string;
  /** Claude Code hooks: why a failure (exit 1, timeout, bad JSON, ...) let the action through. */
  failure?: string;
}

export type OutcomeErrorCode =
  | 'invalid_envelope'
  | 'unknown_event'
  | 'null_argument'
  | 'invalid_utf8'
  | 'internal'
  /** The fire was cancelled (fire() with an AbortSignal that aborted): `allowed` is false. */
  | 'cancelled';

/**
 * The merged result of one fire (docs/envelope.md "The outcome").
 *
 * Bad input (malformed JSON, a missing or unknown `event`, ...) is NOT thrown:
 * fire()/fireSync() return an outcome with `error` set, `allowed: false` and
 * `hooks: []`. Check `outcome.error` (or just `outcome.allowed`) — it is data,
 * not an exception.
 */
export interface Outcome {
  /** Always present. False when a blocking hook denied, or when `error` is set. */
  allowed: boolean;
  /** Present when some hook gave a permission decision (`defer`: Claude Code hooks only). */
  permissionDecision?: 'allow' | 'deny' | 'ask' | 'defer';
  reason?: string;
  /** Context to prepend (hooks' additionalContext joined by "\n\n"). */
  additionalContext?: string;
  /** The tool input to use instead of the one sent (preToolUse, permissionRequest). */
  updatedInput?: Record<string, unknown>;
  /** The prompt to use instead of the one sent (userPromptSubmit). */
  updatedPrompt?: string;
  /** Permission-rule updates a Claude Code PermissionRequest hook asked for (its `updatedPermissions`). */
  updatedPermissions?: unknown[];
  /** A Claude Code PermissionRequest deny asked to interrupt the agent. */
  interrupt?: boolean;
  /** Only ever `false`: a hook asked the harness to stop the agent; `stopReason` says why. */
  continue?: false;
  stopReason?: string;
  /** Messages for the user (not the model), joined by "\n". */
  systemMessage?: string;
  /** Gemini CLI beforeModel: the partial model request to apply (docs/dialects/gemini.md). */
  llmRequest?: Record<string, unknown>;
  /** Gemini CLI: the model response to use instead (beforeModel with a deny, afterModel). */
  llmResponse?: Record<string, unknown>;
  /** Gemini CLI beforeToolSelection: `{mode, allowedFunctionNames}`. */
  toolConfig?: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames: string[] };
  /** Gemini CLI postToolUse: a tool to run next, `{name, args}`. */
  tailToolCallRequest?: Record<string, unknown>;
  /** Gemini CLI turnStop: clear the conversation. */
  clearContext?: boolean;
  /** Always present (may be empty): one trace per matching hook that ran, in list order. */
  hooks: HookTrace[];
  /** E.g. a changed config file that failed validation (old config stays in force). */
  warnings?: string[];
  /** Only for bad input; then `allowed` is false and `hooks` is empty. */
  error?: { code: OutcomeErrorCode | string; message: string };
}

export type OhHooksErrorCode =
  | 'invalid_options'
  | 'invalid_config'
  | 'io_error'
  | 'internal'
  | 'closed'
  /** fireSync ran a callback that returned a Promise (use `await hooks.fire()`). */
  | 'promise_in_fire_sync'
  /** closeSync() was called from a callback that fireSync is running. */
  | 'closed_in_callback';

/**
 * What a callback function answers, read like a jsonIO hook's output. `null` or `undefined`
 * means "no decision". Anything else (a string, a number, an array) fails the hook.
 */
export interface CallbackResponse {
  /** `deny` blocks (stops the walk); `allow` does not stop it. */
  decision?: 'allow' | 'deny';
  reason?: string;
  hookSpecificOutput?: {
    /** The permission decision: `allow` stops the walk and allows; `deny` blocks; `ask` asks. */
    decision?: 'allow' | 'deny' | 'ask';
    additionalContext?: string;
    reason?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** A callback's answer as response text, given to the engine exactly as it is. */
export class RawResponse {
  constructor(text: string);
  readonly text: string;
}

export type CallbackAnswer = CallbackResponse | RawResponse | null | undefined;

/** What the evaluator of prompt hooks (the function registered as `prompt`) receives. */
export interface PromptRequest {
  /** The hook's question (its `prompt:` text). */
  prompt: string;
  /** The event the hook was fired for. */
  envelope: Envelope;
}

/** A host function for `callback: <name>` hooks, or (registered as `prompt`) the prompt evaluator. */
export type CallbackFunction<Req = Envelope> = (request: Req) => CallbackAnswer | PromiseLike<CallbackAnswer>;

/** What the decision observer receives: one record per fire, once all its hooks have finished. */
export interface DecisionRecord {
  /** The envelope as fired; `null` when the input was not a JSON object with an `event`. */
  envelope: Envelope | null;
  /** The fire's outcome with every hook's trace (for background hooks, their traces). */
  outcome: Outcome;
}

/**
 * What fire() needs of an AbortSignal (Node's and the DOM's fit it), spelled out so that projects
 * without `@types/node` or the DOM lib compile too.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface FireOptions {
  /** Aborting it cancels the fire in the engine (running hooks are stopped) and rejects with an AbortError. */
  signal?: AbortSignalLike;
}

/** The rejection of a fire() whose signal aborted. */
export interface AbortError extends Error {
  name: 'AbortError';
  code: 'ABORT_ERR';
  /** The signal's reason. */
  cause: unknown;
  /** The engine's outcome of the cancelled fire (`error.code` `cancelled`), when it ran. */
  outcome?: Outcome;
}

/** Thrown by `new Hooks()`, `reload()`, and by any use of a closed instance. */
export class OhHooksError extends Error {
  readonly name: 'OhHooksError';
  readonly code: OhHooksErrorCode | string;
  /** Config file the error is about, when known. */
  readonly file?: string;
  /** 1-based line in `file`, when known. */
  readonly line?: number;
  /** Path inside the config, e.g. `hooks.preToolUse[0].timeout`, when known. */
  readonly path?: string;
  /** The error object exactly as the engine returned it. */
  readonly details: { code: string; message: string; file?: string; line?: number; path?: string; [key: string]: unknown };
}

/** A hook engine. Call close() when done (a finalizer is only a safety net). */
export class Hooks {
  /**
   * Loads and validates the configuration.
   * @throws OhHooksError with code `invalid_options`, `invalid_config` or `io_error`.
   */
  constructor(options?: HooksOptions | null);

  /**
   * Fires an event and blocks the calling thread until the blocking hooks have run.
   * A string is passed through as raw JSON text.
   * Never throws for bad input: the returned outcome carries `error` instead.
   * Callback hooks of a blocking event run synchronously, right here on this thread; one whose
   * function returns a Promise fails, and fireSync throws `promise_in_fire_sync` after the fire.
   * @throws OhHooksError `closed` after close(), `promise_in_fire_sync`; TypeError for a value that cannot be serialized.
   */
  fireSync(envelope: Envelope | string): Outcome;

  /**
   * Fires an event on the engine's own threads (a bounded pool; no libuv thread is used), so the
   * event loop keeps running while hooks run; callback functions are called on the event loop.
   * Resolves with the outcome — also when its `error` is set.
   * Rejects with OhHooksError `closed` after close(), a TypeError for a value that cannot be
   * serialized, or an AbortError when `options.signal` aborts: the engine then stops the fire's
   * running hooks (process groups killed as on a timeout, pending callbacks dropped). Where the
   * system kept the instance's completion pipe small (256 records), also rejects with an Error
   * whose `code` is `internal` once that many fires are in flight (see the README's "Threads").
   */
  fire(envelope: Envelope | string, options?: FireOptions): Promise<Outcome>;

  /**
   * Registers `fn` for the config's `callback: <name>` hooks, replacing any function registered
   * under that name (`null` removes it). Under the name `prompt` it is the evaluator of prompt
   * hooks and receives a PromptRequest. `fn` gets the envelope and returns a CallbackResponse,
   * a RawResponse, null for no decision, or a Promise of one (not with fireSync). A throw, a
   * rejection or another kind of value fails the hook (deny on a blocking event, the error's text
   * as the reason); no answer within the hook's `timeout` fails it like a timed-out hook.
   * @throws OhHooksError `closed`; TypeError for a bad name or fn.
   */
  register(name: 'prompt', fn: CallbackFunction<PromptRequest> | null): void;
  register(name: string, fn: CallbackFunction | null): void;

  /**
   * Calls `fn` with one DecisionRecord per fire, once all its hooks (background ones included)
   * have finished: an audit log or telemetry. Runs on the event loop, never inside fireSync; a
   * throw becomes a process warning. `null` stops observing. Replaces any previous observer.
   * @throws OhHooksError `closed`; TypeError when fn is not a function or null.
   */
  onDecision(fn: ((record: DecisionRecord) => void) | null): void;

  /**
   * Re-reads the configuration files now.
   * @throws OhHooksError (e.g. `invalid_config`); the previous configuration stays in force.
   */
  reload(): void;

  /**
   * Closes the instance for new calls at once, then releases the engine off the event loop: after
   * the fire() calls in flight settle (they still resolve, their callbacks still answered), the
   * engine is freed on the libuv thread pool, which waits for its background hooks. Callbacks still
   * waiting for an answer then fail (deny, "the Hooks instance was closed") instead of holding it
   * up. May be called from a callback (the release happens after it returns). Idempotent: every
   * call returns the same promise.
   */
  close(): Promise<void>;

  /**
   * Releases the engine now, blocking this thread while its background hooks finish (with fire()
   * calls in flight, the last of them releases it). Idempotent.
   * @throws OhHooksError `closed_in_callback` when called from a callback that fireSync runs.
   */
  closeSync(): void;

  /** `using hooks = new Hooks()`: closeSync() at the end of the block. */
  [Symbol.dispose](): void;

  /** `await using hooks = new Hooks()`: await close() at the end of the block. */
  [Symbol.asyncDispose](): Promise<void>;

  /** True once close() has been called. */
  readonly closed: boolean;

  /** Number of fire() calls not yet settled. */
  readonly pendingFires: number;
}

/** Version of the loaded liboh_hooks, from oh_hooks_version(). */
export const version: string;
/** Version of oh_hooks.h the addon was compiled against ("" if the header has no version macros). */
export const headerVersion: string;
