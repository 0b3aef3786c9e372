#!/usr/bin/env node
// The import rules of the house, checked on every `npm test` (and so in CI):
//  1. no import cycle between files;
//  2. folders are layered: a file imports only from its own folder or from a
//     lower layer, so no import runs back up and no two folders lean on each other;
//  3. machines/ is pure: no node:* module and nothing outside machines/ but xstate;
//  4. src/web/client/ is browser code: it imports its own folder, the modules
//     it shares with the server (SHARED_WITH_CLIENT, themselves free of node:*
//     and of packages), and types from machines/, nothing else;
//  5. a backend is its folder under src/agents/: only the registry's list
//     (BACKEND_LIST) imports it, so the rest of Raymond asks the registry.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// An optional argument names another tree to check (the script's own tests use one).
const root = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname);
/** The one file that names each backend's folder: one line per backend. */
const BACKEND_LIST = 'src/agents/registry/backend-list.ts';
/** Every folder under src/agents/ but the registry's is a backend's (a new one needs no line here). */
const BACKEND_FOLDERS = (() => {
  try {
    return readdirSync(join(root, 'src/agents'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'registry')
      .map((e) => `src/agents/${e.name}`);
  } catch {
    return [];
  }
})();
/** Lowest first. Folders of the same layer may not import each other. */
const LAYERS = [
  ['machines'],
  ['src'],
  ['src/web'],
  ['src/web/client'],
  ['src/language'],
  ['src/state', 'src/worktrees', 'src/inspect', 'src/notify'],
  ['src/telemetry'],
  ['src/executors'],
  // The loopback gate in front of a model API: its requests paced at the rate of the account.
  ['src/gate'],
  // The interface every agent CLI gives Raymond, then each backend in its own folder, then the registry.
  ['src/agents'],
  BACKEND_FOLDERS,
  ['src/agents/registry'],
  ['src/scope'],
  ['src/queue'],
  ['src/settings'],
  ['src/history'],
  ['src/config', 'src/analysis', 'src/runtime', 'src/merge'],
  ['src/plan'],
  ['src/serve', 'src/testing'],
  ['src/mcp'],
  ['src/cli'],
];
/** The server's modules the browser client imports: esbuild bundles them into the pages. */
const SHARED_WITH_CLIENT = new Set([
  'src/web/live-fold.ts',
  'src/web/live-snapshot.ts',
  'src/web/page-config.ts',
  'machines/money.ts',
  'machines/cost-table.ts',
  'machines/width-text.ts',
  'machines/budget-figures.ts',
]);
const layerOf = new Map(LAYERS.flatMap((folders, i) => folders.map((f) => [f, i])));

function sources(dir) {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s*'([^']+)'/g;

/** Each import's specifier, and whether it brings types only (`import type`, which no bundle follows). */
function importsOf(file) {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => ({
    spec: m[1] ?? m[2] ?? m[3],
    typeOnly: /^\s*(?:import|export)\s+type\s/.test(m[0]),
  }));
}

/** Rule 4: what a browser client file (or a module shared with it) may import. */
function clientProblem(file, folder, spec, target, typeOnly) {
  const client = folder === 'src/web/client' || folder.startsWith('src/web/client/');
  if (!client && !SHARED_WITH_CLIENT.has(file)) return undefined;
  const what = client
    ? 'src/web/client/ runs in the browser'
    : 'it is shared with the browser client';
  if (!spec.startsWith('.')) return `${file}: ${what}, but imports '${spec}'`;
  if (target === undefined || dirname(target) === folder || SHARED_WITH_CLIENT.has(target))
    return undefined;
  if (target.startsWith('machines/') && typeOnly) return undefined;
  return `${file}: ${what}, but imports ${target}${target.startsWith('machines/') ? ' (only types may come from machines/)' : ''}`;
}

const files = [...sources('machines'), ...sources('src')];
const known = new Set(files);
const graph = new Map();
const problems = [];
for (const file of files) {
  const folder = dirname(file);
  const edges = [];
  for (const { spec, typeOnly } of importsOf(file)) {
    const resolved = spec.startsWith('.')
      ? relative(root, resolve(root, folder, spec)).replace(/\.js$/, '.ts')
      : undefined;
    const clientIssue = clientProblem(file, folder, spec, resolved, typeOnly);
    if (clientIssue) problems.push(clientIssue);
    if (!spec.startsWith('.')) {
      if (folder === 'machines' && spec !== 'xstate')
        problems.push(`${file}: machines/ must stay pure, but imports '${spec}'`);
      continue;
    }
    const target = resolved;
    if (!known.has(target)) {
      problems.push(`${file}: imports '${spec}', which is not a source file`);
      continue;
    }
    edges.push(target);
    const to = dirname(target);
    if (to === folder) continue;
    const backend = BACKEND_FOLDERS.find((b) => to === b || to.startsWith(`${b}/`));
    if (backend && file !== BACKEND_LIST && !folder.startsWith(`${backend}/`)) {
      problems.push(
        `${file}: imports ${target}, but only ${BACKEND_LIST} imports a backend's folder (${backend}/): ask the registry`,
      );
      continue;
    }
    const [a, b] = [layerOf.get(folder), layerOf.get(to)];
    if (a === undefined || b === undefined)
      problems.push(
        `${file}: folder ${a === undefined ? folder : to} has no layer in scripts/check-imports.mjs`,
      );
    else if (b >= a)
      problems.push(
        `${file}: imports ${target}, but ${to}/ is ${b === a ? 'beside' : 'above'} ${folder}/ in the layers`,
      );
  }
  graph.set(file, edges);
}

// Cycles between files: depth-first search, reporting each cycle once by its path.
const state = new Map();
const stack = [];
function visit(file) {
  state.set(file, 'open');
  stack.push(file);
  for (const next of graph.get(file)) {
    if (state.get(next) === 'open')
      problems.push(`import cycle: ${[...stack.slice(stack.indexOf(next)), next].join(' -> ')}`);
    else if (!state.has(next)) visit(next);
  }
  stack.pop();
  state.set(file, 'done');
}
for (const file of files) if (!state.has(file)) visit(file);

if (problems.length > 0) {
  for (const p of problems) console.error(`check-imports: ${p}`);
  process.exit(1);
}
console.log(
  `check-imports: ${files.length} files, ${[...graph.values()].reduce((n, e) => n + e.length, 0)} imports: no cycle, every import goes down the layers, only the registry imports a backend, machines/ is pure, the browser client imports only what it shares`,
);
