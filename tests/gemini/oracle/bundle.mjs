// Bundles gemini-cli's own hook code (registry, planner, runner, aggregator) from a checkout
// into one module, with the packages it imports but the hooks never call stubbed out.
// Nothing of gemini-cli is copied into this repository: the checkout is read at run time.
import * as esbuild from 'esbuild';
import path from 'node:path';

const GENAI = `module.exports = { FunctionCallingConfigMode: { MODE_UNSPECIFIED: 'MODE_UNSPECIFIED', AUTO: 'AUTO', ANY: 'ANY', NONE: 'NONE', VALIDATED: 'VALIDATED' } };`;
// Any other package: a module whose every export is a do-nothing function or class.
// Every property, call and construction gives another such stub (`then` excepted, so nothing
// mistakes one for a promise); esbuild's CommonJS interop finds named exports through the
// prototype.
const STUB = `const h = {
  get(t, k) { if (k === 'then' || k === '__esModule') return undefined; if (k === Symbol.toPrimitive) return () => ''; if (!(k in t)) t[k] = mk(); return t[k]; },
  apply() { return mk(); }, construct() { return mk(); },
};
function mk() { return new Proxy(function () {}, h); }
const proto = mk();
module.exports = new Proxy(function () {}, { ...h, getPrototypeOf() { return proto; } });`;

export async function bundle(src, out) {
  const core = path.join(src, 'packages/core/src/hooks');
  await esbuild.build({
    stdin: {
      contents: ['hookRunner', 'hookAggregator', 'hookPlanner', 'hookRegistry']
        .map((m) => `export * from ${JSON.stringify(path.join(core, m + '.ts'))};`).join('\n'),
      resolveDir: core,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'error',
    nodePaths: [path.join(import.meta.dirname, 'node_modules')],
    plugins: [{
      name: 'stubs',
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (a) => {
          if (a.path.startsWith('node:') || a.path === 'shell-quote') return undefined;
          if (['fs', 'path', 'os', 'child_process', 'util', 'crypto', 'events', 'url', 'readline', 'stream', 'process'].includes(a.path)) return undefined;
          return { path: a.path, namespace: 'stub' };
        });
        b.onLoad({ filter: /.*/, namespace: 'stub' }, (a) => ({ contents: a.path === '@google/genai' ? GENAI : STUB, loader: 'js' }));
      },
    }],
  });
}
