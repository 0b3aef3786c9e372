#!/usr/bin/env node
// Bundles the CLI after tsc: dist/src/cli/main.js and everything it imports
// become one file (plus chunks for what is loaded only when used: lint,
// diagram, the inspector, the YAML-reading language tasks). Loading some
// ninety modules and the dependencies' hundred more one by one took most of
// a short run's start (README, Benchmarks). The spawner process and the
// parse/render worker keep their own unbundled entries (tsc's output), as
// does piscina, which finds its worker file beside itself.
//
// The pages' scripts (src/web/client/*.ts, browser code that tsc only
// checks) are bundled first, one classic script per page, and the CLI's
// bundle takes them as strings in place of src/web/client-scripts.ts, which
// builds them from source when the tests run the source tree. The pages
// inline them: an installed package reads no file for them.
import { build } from 'esbuild';
import { chmodSync, readdirSync, rmSync } from 'node:fs';
import { basename } from 'node:path';

const cli = new URL('../dist/src/cli/', import.meta.url).pathname;
// The chunks of an earlier bundle; tsc's own files in this folder are the input.
for (const name of readdirSync(cli)) if (name.startsWith('chunk-')) rmSync(cli + name);

const { clientBuildOptions } = await import('../dist/src/web/client-scripts.js');
const clientDir = new URL('../src/web/client/', import.meta.url).pathname;
const pages = ['live-page', 'serve-index', 'diagram-page'];
const client = await build(clientBuildOptions(pages.map((page) => `${clientDir}${page}.ts`)));
const scripts = Object.fromEntries(client.outputFiles.map((f) => [basename(f.path, '.js'), f.text]));
for (const page of pages) if (!scripts[page]) throw new Error(`bundle: no script was built for the page ${page}`);
let replaced = false;
const clientScripts = {
  name: 'client-scripts',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]src[\\/]web[\\/]client-scripts\.js$/ }, () => {
      replaced = true;
      return { contents: `const SCRIPTS = ${JSON.stringify(scripts)};\nexport function clientScript(name) { return SCRIPTS[name]; }\n`, loader: 'js' };
    });
  },
};

await build({
  entryPoints: { main: `${cli}main.js` },
  outdir: cli,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  external: ['piscina'],
  plugins: [clientScripts],
  // Bundled CommonJS dependencies call require() for Node's own modules, and write-file-atomic names its temporary files from __filename.
  banner: {
    js: [
      "import { createRequire as __raymondRequire } from 'node:module';",
      "import { fileURLToPath as __raymondPath } from 'node:url';",
      'const require = __raymondRequire(import.meta.url);',
      'const __filename = __raymondPath(import.meta.url);',
      "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
    ].join(' '),
  },
  logLevel: 'warning',
});
// Else the bundle would build the scripts from a source tree an installed package does not have.
if (!replaced) throw new Error('bundle: src/web/client-scripts.ts was not replaced by the built page scripts');
chmodSync(`${cli}main.js`, 0o755);
// tsc's map describes the file the bundle replaced.
rmSync(`${cli}main.js.map`, { force: true });
