import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { ApiServer } from '../test/helpers/api-server.js';
import { runCli } from './measure-cli.js';
import { writeScripts } from './write-scripts.js';

/** Processes whose environment names this HOME: the run's Claude Code processes. */
function claudeProcesses(home: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (
        readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'claude' &&
        readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`HOME=${home}`)
      )
        n++;
    } catch {
      // Gone meanwhile.
    }
  }
  return n;
}

/** `n` markdown workers through the real claude binary against the scripted API server; `extra`: more CLI flags (`--no-warm`). */
export async function benchMarkdown(
  n: number,
  parallel: number,
  extra: string[] = [],
): Promise<{
  workers: number;
  wallMs: number;
  perStepMs: number;
  peakRssMb: number;
  peakClaudes: number;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-md-'));
  const server = await new ApiServer().start();
  try {
    server.on('Summarize item', (r) => ({
      text: `<result>${/item (\d+)/.exec(r.prompt)?.[1]}</result>`,
    }));
    writeScripts(dir, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${n}); do printf '<fork next="END" i="%s">W.md</fork>' "$i"; done\n`,
      'END.sh': '#!/usr/bin/env bash\necho "<result>done</result>"\n',
      'W.md': 'Summarize item {{i}}.',
    });
    const home = join(dir, 'home');
    mkdirSync(home);
    const bin = join(new URL('..', import.meta.url).pathname, 'node_modules/.bin');
    let peakClaudes = 0;
    const run = await runCli(
      [dir, '--max-parallel', String(parallel), '--no-debug', '--quiet', '--budget', '0', ...extra],
      {
        cwd: dir,
        env: {
          ...process.env,
          ...server.env(join(dir, 'home')),
          PATH: `${bin}${delimiter}${process.env.PATH}`,
        },
        // Claude Code processes alive at once (each ~230 MB), counted as the memory is sampled.
        until: () => ((peakClaudes = Math.max(peakClaudes, claudeProcesses(home))), false),
      },
    );
    if (run.code !== 0) throw new Error(`markdown bench failed: ${run.stderr}`);
    return {
      workers: n,
      wallMs: run.wallMs,
      perStepMs: run.wallMs / (n + 2),
      peakRssMb: run.peakRssMb,
      peakClaudes,
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
