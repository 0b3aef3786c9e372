import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiServer } from '../test/helpers/api-server.js';
import { CLI } from './measure-cli.js';
import { measureProcess, type ProcessRun } from './measure-process.js';
import { tailOf } from './tail.js';
import { writeScripts } from './write-scripts.js';

const HELPER = fileURLToPath(new URL('./warm-loop.mjs', import.meta.url));
const BIN_DIR = fileURLToPath(new URL('../node_modules/.bin', import.meta.url));

/** Wall time and CPU (the whole process tree's, as the shell's `times` counts its children) of one run. */
export interface Timed {
  wallMs: number;
  cpuMs: number;
}

/** The warm bench's figures: Raymond warm and cold, and the live processes fed by hand. */
export interface WarmFigures {
  agents: number;
  steps: number;
  parallel: number;
  warm: Timed;
  cold: Timed;
  byHand: Timed;
}

const prompt = (agent: number, step: number) => `CHAIN agent ${agent} step ${step}: go on.`;

/** Runs a command under bash and reads the CPU of everything it ran from `times`, which it prints last. */
async function timed(
  file: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
  what: string,
): Promise<Timed & { run: ProcessRun }> {
  const run = await measureProcess(
    'bash',
    ['-c', '"$@"; code=$?; times >&2; exit $code', 'bash', file, ...args],
    { ...opts, captureStdout: true, timeoutMs: 600_000 },
  );
  if (run.code !== 0)
    throw new Error(`${what} exited with ${run.code ?? run.signal}: ${tailOf(run.stderr)}`);
  const children = run.stderr.trim().split('\n').at(-1)!.trim().split(/\s+/);
  const seconds = (t: string) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
  };
  return { wallMs: run.wallMs, cpuMs: (seconds(children[0]!) + seconds(children[1]!)) * 1000, run };
}

/**
 * `agents` agents, each a `<goto>` chain of `steps` markdown states, at
 * `parallel` steps at once, through the real `claude` against the scripted
 * API server: Raymond with warm sessions, with `--no-warm`, and the same
 * turns typed by hand into live processes (warm-loop.mjs).
 */
export async function benchWarm(
  agents: number,
  steps: number,
  parallel: number,
): Promise<WarmFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-warm-'));
  const server = await new ApiServer().start();
  try {
    server.on('CHAIN agent', (r) => {
      const [, agent, step] = /agent (\d+) step (\d+)/.exec(r.prompt)!;
      return {
        text:
          Number(step) < steps
            ? `agent ${agent} step ${step} done <goto>S${Number(step) + 1}</goto>`
            : `<result>agent ${agent}</result>`,
      };
    });
    const wf = join(dir, 'workflow');
    mkdirSync(wf);
    const files: Record<string, string> = {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${agents}); do printf '<fork next="END" agent="%s">S1</fork>' "$i"; done\n`,
      'END.sh': '#!/usr/bin/env bash\necho "<result>done</result>"\n',
    };
    for (let s = 1; s <= steps; s++)
      files[`S${s}.md`] = prompt(0, s).replace('agent 0', 'agent {{agent}}');
    writeScripts(wf, files);
    mkdirSync(join(dir, 'home'));
    const env = {
      ...process.env,
      ...server.env(join(dir, 'home')),
      PATH: `${BIN_DIR}${delimiter}${process.env.PATH}`,
    };
    const common = [
      wf,
      '--max-parallel',
      String(parallel),
      '--no-debug',
      '--quiet',
      '--budget',
      '0',
    ];
    const warm = await timed(CLI, common, { cwd: dir, env }, 'raymond');
    const cold = await timed(CLI, [...common, '--no-warm'], { cwd: dir, env }, 'raymond --no-warm');
    const job = {
      lanes: parallel,
      cwd: dir,
      bin: 'claude',
      agents: Array.from({ length: agents }, (_, a) =>
        Array.from({ length: steps }, (_, s) => prompt(a + 1, s + 1)),
      ),
    };
    const byHand = await timed(
      process.execPath,
      [HELPER, JSON.stringify(job)],
      { cwd: dir, env },
      'the live processes by hand',
    );
    const report = JSON.parse(byHand.run.stdout) as { turns: number; failed: number };
    if (report.failed > 0)
      throw new Error(`by hand: ${report.failed} agents did not finish their ${steps} turns`);
    const strip = ({ wallMs, cpuMs }: Timed): Timed => ({ wallMs, cpuMs });
    return { agents, steps, parallel, warm: strip(warm), cold: strip(cold), byHand: strip(byHand) };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
