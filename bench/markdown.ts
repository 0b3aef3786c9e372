import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { ApiServer } from '../test/helpers/api-server.js';
import { runCli } from './measure-cli.js';
import { writeScripts } from './write-scripts.js';

/** `n` markdown workers through the real claude binary against the scripted API server. */
export async function benchMarkdown(n: number, parallel: number): Promise<{ workers: number; wallMs: number; perStepMs: number; peakRssMb: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-md-'));
  const server = await new ApiServer().start();
  try {
    server.on('Summarize item', (r) => ({ text: `<result>${/item (\d+)/.exec(r.prompt)?.[1]}</result>` }));
    writeScripts(dir, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${n}); do printf '<fork next="END" i="%s">W.md</fork>' "$i"; done\n`,
      'END.sh': '#!/usr/bin/env bash\necho "<result>done</result>"\n',
      'W.md': 'Summarize item {{i}}.',
    });
    mkdirSync(join(dir, 'home'));
    const bin = join(new URL('..', import.meta.url).pathname, 'node_modules/.bin');
    const run = await runCli([dir, '--max-parallel', String(parallel), '--no-debug', '--quiet', '--budget', '0'], {
      cwd: dir,
      env: { ...process.env, ...server.env(join(dir, 'home')), PATH: `${bin}${delimiter}${process.env.PATH}` },
    });
    if (run.code !== 0) throw new Error(`markdown bench failed: ${run.stderr}`);
    return { workers: n, wallMs: run.wallMs, perStepMs: run.wallMs / (n + 2), peakRssMb: run.peakRssMb };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
