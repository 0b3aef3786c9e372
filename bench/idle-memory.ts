import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './measure-cli.js';
import type { MemoryPeaks } from './memory-sampler.js';
import { tailOf } from './tail.js';
import { writeScripts } from './write-scripts.js';

/**
 * Peak RSS of the orchestrator (alone, and with its spawners; never the
 * scripts) holding `n` live idle agents: a dispatcher forks them all, one
 * step runs at a time and never ends, and the run is stopped a second after
 * every agent is persisted. Default options otherwise (debug logs on).
 */
export async function benchIdleMemory(n: number): Promise<{ agents: number; memory: MemoryPeaks }> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-idle-'));
  try {
    // The first step after the fork starts only once every forked agent is
    // persisted, so its marker file says the orchestrator holds all of them.
    const marker = join(dir, 'started');
    const wait = `#!/usr/bin/env bash\ntouch '${marker}'\nsleep 600\n`;
    writeScripts(dir, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${n}); do printf '<fork next="WAIT" i="%s">W</fork>' "$i"; done\n`,
      'WAIT.sh': wait,
      'W.sh': wait,
    });
    let settledAt = 0;
    const run = await runCli(
      [
        dir,
        '--max-parallel',
        '1',
        '--quiet',
        '--workflow-id',
        'idle',
        '--state-dir',
        join(dir, 'state'),
      ],
      {
        cwd: dir,
        timeoutMs: 180_000,
        until: (_rss, elapsed) => {
          if (!settledAt && existsSync(marker)) settledAt = elapsed;
          // Give it a second with everyone spawned, then stop the run.
          return settledAt > 0 && elapsed - settledAt > 1000;
        },
      },
    );
    if (!settledAt)
      throw new Error(
        `idle bench never saw ${n} agents (exit ${run.code ?? run.signal}): ${tailOf(run.stderr)}`,
      );
    return { agents: n, memory: run.memory };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
