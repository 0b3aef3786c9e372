#!/usr/bin/env node
// Bundles the CLI after tsc: dist/src/cli/main.js and everything it imports
// become one file (plus chunks for what is loaded only when used: lint,
// diagram, the inspector, the YAML-reading language tasks). Loading some
// ninety modules and the dependencies' hundred more one by one took most of
// a short run's start (README, Benchmarks). The spawner process and the
// parse/render worker keep their own unbundled entries (tsc's output), as
// does piscina, which finds its worker file beside itself.
import { build } from 'esbuild';
import { chmodSync, readdirSync, rmSync } from 'node:fs';

const cli = new URL('../dist/src/cli/', import.meta.url).pathname;
// The chunks of an earlier bundle; tsc's own files in this folder are the input.
for (const name of readdirSync(cli)) if (name.startsWith('chunk-')) rmSync(cli + name);
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
chmodSync(`${cli}main.js`, 0o755);
// tsc's map describes the file the bundle replaced.
rmSync(`${cli}main.js.map`, { force: true });
