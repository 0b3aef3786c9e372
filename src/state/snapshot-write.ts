import { open, rename, unlink } from 'node:fs/promises';
import { storedAgent, type RunStore } from '../../machines/run-store.js';
import { compactAgent } from '../../machines/written-agent.js';
import { AGENTS_PER_PIECE } from './journal.js';

/**
 * The state file's text in pieces: its fields one per line, then one line
 * per agent, compacted (machines/written-agent.ts). At 100,000 agents,
 * indenting every field of every agent was a fifth of the file, and building
 * it as one string (with an object per agent on the way) was the run's
 * biggest peak of memory. Made all at once, so that the store cannot change
 * between pieces.
 */
export function snapshotParts(store: RunStore): string[] {
  const top = JSON.stringify(store.meta, null, 1);
  const parts = [`${top.slice(0, -2)},\n "agents": [`];
  let rows: string[] = [];
  const flush = () => {
    parts.push(`${parts.length === 1 ? '\n  ' : ',\n  '}${rows.join(',\n  ')}`);
    rows = [];
  };
  for (const a of store.agents.values()) {
    rows.push(
      JSON.stringify(compactAgent(storedAgent(a), store.meta.results, store.defaultTaskFolder)),
    );
    if (rows.length === AGENTS_PER_PIECE) flush();
  }
  if (rows.length > 0) flush();
  parts.push(parts.length === 1 ? ']\n}\n' : '\n ]\n}\n');
  return parts;
}

let temps = 0;

/**
 * Writes `parts` to `path` atomically: a temporary file beside it
 * (`<path>.<digits>`, the names removeLeftoverTemps knows), flushed to the
 * disk, then renamed over it. A failed write leaves the old file as it was.
 */
export async function writeAtomically(path: string, parts: readonly string[]): Promise<void> {
  const temp = `${path}.${process.pid}${String(++temps).padStart(6, '0')}`;
  const file = await open(temp, 'w');
  try {
    try {
      for (const part of parts) await file.writeFile(part);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}
