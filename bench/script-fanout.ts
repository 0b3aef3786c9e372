import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './measure-cli.js';
import { tailOf } from './tail.js';
import { writeScripts } from './write-scripts.js';

/**
 * One fan-out of `n` script workers forked by one parent, through the built
 * CLI with `args` added, in a project of its own: its wall time. Traces stay
 * off unless `args` turn them on (the user's OTEL_* variables are left out).
 */
export async function scriptFanOut(n: number, parallel: number, args: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-fanout-'));
  try {
    writeScripts(dir, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${n}); do printf '<fork i="%s">W</fork>' "$i"; done\nprintf '<goto>END</goto>'\n`,
      'W.sh': '#!/usr/bin/env bash\necho "<result>$i</result>"\n',
      'END.sh': '#!/usr/bin/env bash\necho "<result>end</result>"\n',
    });
    const env = { ...process.env };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    const run = await runCli(
      [
        dir,
        '--max-parallel',
        String(parallel),
        '--quiet',
        '--state-dir',
        join(dir, '.raymond', 'state'),
        ...args,
      ],
      { cwd: dir, env, timeoutMs: 900_000 },
    );
    if (run.code !== 0)
      throw new Error(
        `the fan-out of ${n} (${args.join(' ') || 'no extra flags'}) failed (exit ${run.code ?? run.signal}): ${tailOf(run.stderr)}`,
      );
    return run.wallMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median of some figures. */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
