// tests/dist.sh's TypeScript check: compiled with `tsc --strict --noEmit` against the installed
// package's index.d.ts. The @ts-expect-error lines must stay errors: a typo in an option name or
// an envelope field of the wrong type is caught.
import { Hooks, HooksOptions, Outcome, OhHooksError } from 'oh-hooks';

async function main(): Promise<void> {
  const options: HooksOptions = { trusted: true, config: { hooks: { preToolUse: [{ command: 'true' }] } } };
  {
    using hooks = new Hooks(options); // Symbol.dispose
    const out: Outcome = hooks.fireSync({ event: 'preToolUse', toolName: 'Bash' });
    console.log(out.allowed);
  }
  {
    await using hooks = new Hooks(options); // Symbol.asyncDispose
    const out: Outcome = await hooks.fire({ event: 'preToolUse', toolName: 'Bash', toolArgs: 'ls' });
    console.log(out.allowed, out.reason);
    const closed: Promise<void> = hooks.close();
    await closed;
  }
  // @ts-expect-error: misspelt option
  new Hooks({ defaultTimeout: 5 });
  // @ts-expect-error: toolName must be a string
  new Hooks().fireSync({ event: 'preToolUse', toolName: 5 });
  const e: OhHooksError | undefined = undefined;
  console.log(e);
}
void main();
