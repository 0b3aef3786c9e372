import type { BackendSpec } from '../executors/executor.js';
import { ScopeSet } from './scope-set.js';
import type { Scope } from './scope.js';
import { isRemoteSpecifier } from './remote-zip.js';

/** A cross-workflow tag and its specifier (`<call-workflow return="X">../other/</call-workflow>`). */
const CROSS_TAG = /<(call|function|fork|reset)-workflow\b[^>]*>([^<]*)<\/\1-workflow>/g;

/** Most workflows looked at: a run's workflows are a handful; a loop of specifiers stops here. */
const MOST_WORKFLOWS = 50;

/**
 * The backends a run may use: its workflow's, and those of the workflows
 * its states name in cross-workflow tags, followed from workflow to
 * workflow. Specifiers made by a template or naming a remote zip are not
 * followed (they are known when the tag runs), nor those that do not open
 * (the tag's step says why).
 */
export async function reachableBackends(main: Scope): Promise<Array<BackendSpec | undefined>> {
  const scopes = new ScopeSet(main);
  const seen = new Set<string | null>([null]);
  const backends: Array<BackendSpec | undefined> = [main.backend];
  const queue: Array<string | null> = [null];
  try {
    while (queue.length > 0 && seen.size <= MOST_WORKFLOWS) {
      const key = queue.shift()!;
      const scope = scopes.of(key);
      for (const file of scope.stateFiles()) {
        const text = await scope.readText(file).catch(() => '');
        for (const [, , spec] of text.matchAll(CROSS_TAG)) {
          const written = spec!.trim();
          if (written === '' || written.includes('{{') || isRemoteSpecifier(written)) continue;
          const opened = await scopes.open(written, key, file).catch(() => undefined);
          if (!opened || seen.has(opened.key)) continue;
          seen.add(opened.key);
          queue.push(opened.key);
          backends.push(scopes.of(opened.key).backend);
        }
      }
    }
  } finally {
    await scopes.dispose();
  }
  return backends;
}
