#!/usr/bin/env node
// Bundles the three entries after tsc: the CLI (dist/src/cli/main.js), the
// spawner process (dist/src/executors/spawner.main.js) and the parse/render
// worker (dist/src/language/language.worker.js) each become one file over
// tsc's, sharing chunks (dist/src/cli/chunk-*.js) for the code they have in
// common and for what the CLI loads only when used (lint, diagram, the
// inspector). Loading some ninety modules and the dependencies' hundred more
// one by one took most of a short run's start (docs/benchmarks.md), and with
// every dependency inside the bundle an install needs no other package.
// Piscina finds its own worker file beside itself (`__dirname/worker.js`): it
// is bundled as dist/src/cli/worker.js, next to the chunk that holds piscina.
//
// The pages' scripts (src/web/client/*.ts, browser code that tsc only
// checks) are bundled first, one classic script per page, and the CLI's
// bundle takes them as strings in place of src/web/client-scripts.ts, which
// builds them from source when the tests run the source tree. The pages
// inline them: an installed package reads no file for them.
import { build } from 'esbuild';
import { chmodSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename } from 'node:path';

const src = new URL('../dist/src/', import.meta.url).pathname;
const cli = `${src}cli/`;
// The chunks of an earlier bundle; tsc's own files are the input.
for (const name of readdirSync(cli)) if (name.startsWith('chunk-')) rmSync(cli + name);

const { clientBuildOptions } = await import('../dist/src/web/client-scripts.js');
const clientDir = new URL('../src/web/client/', import.meta.url).pathname;
const pages = ['live-page', 'serve-index', 'diagram-page'];
const client = await build(clientBuildOptions(pages.map((page) => `${clientDir}${page}.ts`)));
const scripts = Object.fromEntries(
  client.outputFiles.map((f) => [basename(f.path, '.js'), f.text]),
);
for (const page of pages)
  if (!scripts[page]) throw new Error(`bundle: no script was built for the page ${page}`);
let replaced = false;
const clientScripts = {
  name: 'client-scripts',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/]src[\\/]web[\\/]client-scripts\.js$/ }, () => {
      replaced = true;
      return {
        contents: `const SCRIPTS = ${JSON.stringify(scripts)};\nexport function clientScript(name) { return SCRIPTS[name]; }\n`,
        loader: 'js',
      };
    });
  },
};

// The @opentelemetry packages' `main` is CommonJS, which esbuild cannot tree-shake: their ES
// modules (`module`, or `.mjs`) make the traces' lazily loaded chunk a fifth of the size.
const otelModules = {
  name: 'otel-es-modules',
  setup(b) {
    b.onResolve({ filter: /^@opentelemetry\// }, async (args) => {
      if (args.pluginData === 'otel') return undefined;
      const r = await b.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'otel',
      });
      if (r.errors.length > 0) return r;
      const esm = r.path.includes('/build/src/')
        ? r.path.replace('/build/src/', '/build/esm/')
        : r.path.replace(/\.cjs$/, '.mjs');
      return { ...r, path: esm !== r.path && existsSync(esm) ? esm : r.path };
    });
  },
};

// The MCP SDK's server checks elicitation answers with Ajv unless it is given a validator; Raymond always
// gives its own (src/mcp/flat-schema-validator.ts), so Ajv and its formats stay out of the bundle.
let ajvLeftOut = false;
const withoutAjv = {
  name: 'mcp-without-ajv',
  setup(b) {
    b.onLoad(
      { filter: /@modelcontextprotocol[\\/]sdk[\\/].*[\\/]validation[\\/]ajv-provider\.js$/ },
      () => {
        ajvLeftOut = true;
        return {
          contents:
            "export class AjvJsonSchemaValidator { constructor() { throw new Error('Ajv is not bundled: give the MCP server a jsonSchemaValidator'); } }\n",
          loader: 'js',
        };
      },
    );
  },
};

// piscina exports only its entry: its worker file sits beside it.
const piscinaWorker = createRequire(import.meta.url)
  .resolve('piscina')
  .replace(/[^/]+$/, 'worker.js');
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
  minify: process.env.RAYMOND_BUNDLE_PLAIN !== '1',
  keepNames: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'cli/chunk-[hash]',
  // Piscina's worker loads this native module only for a `niceIncrement` Raymond does not set, and goes on without it.
  external: ['@napi-rs/nice'],
  plugins: [clientScripts, otelModules, withoutAjv],
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
if (!replaced)
  throw new Error('bundle: src/web/client-scripts.ts was not replaced by the built page scripts');
if (!ajvLeftOut) throw new Error("bundle: the MCP SDK's Ajv validator was not left out");
chmodSync(`${cli}main.js`, 0o755);
// tsc's maps describe the files the bundle replaced.
for (const name of entries) rmSync(`${src}${name}.js.map`, { force: true });
