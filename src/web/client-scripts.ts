import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/** The pages with a script: each is built from its entry, src/web/client/<name>.ts. */
export type ClientPage = 'live-page' | 'serve-index' | 'diagram-page';

/**
 * How esbuild turns a page's entry into the one classic script inlined in
 * the page: everything it imports bundled in, no import or export left, and
 * nothing defined on the page's globals. scripts/bundle.mjs builds with the
 * same options, from tsc's output of this file.
 */
export function clientBuildOptions(entries: string[]): BuildOptions {
  return {
    entryPoints: entries,
    bundle: true,
    format: 'iife',
    target: 'es2020',
    platform: 'browser',
    charset: 'utf8',
    write: false,
    outdir: 'client',
    logLevel: 'warning',
  };
}

const built = new Map<ClientPage, string>();

/**
 * A page's script. In the built CLI scripts/bundle.mjs replaces this whole
 * module by one holding the scripts it built, so an installed package reads
 * nothing from disk and needs no esbuild; from the source tree (the tests,
 * under tsx) the script is built here on first use from src/web/client/.
 */
export function clientScript(name: ClientPage): string {
  let script = built.get(name);
  if (script === undefined) {
    // esbuild is a dev dependency: only the source tree comes here.
    const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
    const entry = fileURLToPath(new URL(`./client/${name}.ts`, import.meta.url));
    script = buildSync(clientBuildOptions([entry])).outputFiles![0]!.text;
    built.set(name, script);
  }
  return script;
}
