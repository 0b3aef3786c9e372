import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';

// What every `raymond` command loads before it runs: main.js and the chunks it imports
// statically, transitively. BullMQ and ioredis (with luxon and msgpackr, most of the bundle's
// code) belong to --queue and `raymond worker` only: loaded for every run, they cost a run on
// one machine ~13 MB of memory and ~0.2 s of start-up (measured: `--version` 73 MB before, 60 MB after).
const cli = join(ROOT, 'dist/src/cli');

/** The files main.js loads statically, itself included. */
function staticClosure(): string[] {
  const seen = new Set<string>();
  const queue = ['main.js'];
  while (queue.length > 0) {
    const name = queue.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const text = readFileSync(join(cli, name), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*"\.\/([^"]+\.js)"/g)) queue.push(m[1]!);
  }
  return [...seen];
}

describe('the bundle at start-up', () => {
  const files = staticClosure();
  const texts = files.map((f) => readFileSync(join(cli, f), 'utf8'));

  it('loads neither BullMQ nor ioredis for a run on one machine', () => {
    assert.ok(files.length > 3, `main.js imports its chunks: ${files.join(', ')}`);
    // Class names the bundle keeps (keepNames): BullMQ's QueueEvents, ioredis's Redis cluster client.
    for (const marker of ['QueueEvents', 'ClusterAllFailedError'])
      assert.ok(
        !texts.some((t) => t.includes(marker)),
        `${marker} is in a chunk main.js loads statically`,
      );
  });

  it('keeps what it loads under 1.2 MB', () => {
    const bytes = files.reduce((n, f) => n + statSync(join(cli, f)).size, 0);
    assert.ok(bytes < 1_200_000, `main.js and its static chunks are ${bytes} bytes`);
  });
});
