#!/usr/bin/env node
// Bundles the three entries after tsc: the CLI (dist/src/cli/main.js), the
// spawner process (dist/src/executors/spawner.main.js) and the parse/render
// worker (dist/src/language/language.worker.js) each become one file over
// tsc's, sharing chunks (dist/src/cli/chunk-*.js) for the code they have in
// common and for what the CLI loads only when used (lint, diagram, the
// inspector). Loading some ninety modules and the dependencies' hundred more
// one by one took most of a short run's start (README, Benchmarks), and with
// every dependency inside the bundle an install needs no other package.
// Piscina finds its own worker file beside itself (`__dirname/worker.js`): it
// is bundled as dist/src/cli/worker.js, next to the chunk that holds piscina.
import { build } from 'esbuild';
import { chmodSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const src = new URL('../dist/src/', import.meta.url).pathname;
const cli = `${src}cli/`;
// The chunks of an earlier bundle; tsc's own files are the input.
for (const name of readdirSync(cli)) if (name.startsWith('chunk-')) rmSync(cli + name);
// piscina exports only its entry: its worker file sits beside it.
const piscinaWorker = createRequire(import.meta.url).resolve('piscina').replace(/[^/]+$/, 'worker.js');
const entries = ['cli/main', 'executors/spawner.main', 'language/language.worker'];
await build({
  entryPoints: [
    ...entries.map((name) => ({ in: `${src}${name}.js`, out: name })),
    { in: piscinaWorker, out: 'cli/worker' },
  ],
  outdir: src,
  allowOverwrite: true,
  bundle: true,
  // Minified, the bundle and its dependencies fit a 3 MB install; names are kept for the libraries that read
  // a class's or a function's name (error names, stack traces in a bug report).
  minify: true,
  keepNames: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'cli/chunk-[hash]',
  // Piscina's worker loads this native module only for a `niceIncrement` Raymond does not set, and goes on without it.
  external: ['@napi-rs/nice'],
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
// tsc's maps describe the files the bundle replaced.
for (const name of entries) rmSync(`${src}${name}.js.map`, { force: true });
