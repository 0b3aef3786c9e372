import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { ApiServer } from '../test/helpers/api-server.js';
import { CLI, runCli } from './measure-cli.js';
import { writeScripts } from './write-scripts.js';

/** One shape of `npm run bench budget`: `n` one-turn workers at `--max-parallel` `parallel`. */
export interface BudgetShape {
  n: number;
  parallel: number;
  /** The budget in one-message turns' cost (a message's); 0: none. */
  turns: number;
  /** Model messages in each worker's turn, a tool call between two: 1 unless given. */
  messages?: number;
  /** `--budget-hard`. */
  hard?: boolean;
}

/** What a shape's run spent, against its budget, and how long it took. */
export interface BudgetFigures {
  wallMs: number;
  status: string;
  costUsd: number;
  budgetUsd: number;
  turnUsd: number;
  served: number;
}

const USAGE = { input_tokens: 20_000, output_tokens: 100 };

/**
 * A bench folder: a workflow whose START forks `n` workers of one turn each,
 * and a scripted API that answers each at a known cost; `history` runs kept
 * between shapes (the second shape of a folder forecasts from the first).
 */
export class BudgetBench {
  private readonly dir = mkdtempSync(join(tmpdir(), 'raymond-budget-'));
  private server: ApiServer | undefined;
  private turnUsd = 0;
  private runs = 0;
  /** The shape running now's messages a turn: its workers call a tool until their conversation holds them. */
  private messages = 1;

  async open(): Promise<void> {
    this.server = await new ApiServer().start();
    this.server.on(/^Worker (\d+)/, (r) =>
      r.messageCount < 2 * this.messages - 1
        ? {
            toolUse: { name: 'Bash', input: { command: 'true', description: 'work' } },
            usage: USAGE,
          }
        : { text: `<result>${/^Worker (\d+)/.exec(r.prompt)![1]}</result>`, usage: USAGE },
    );
    mkdirSync(join(this.dir, 'home'));
    // One turn's price as this claude computes it, from a workflow of its own (no history for the others).
    mkdirSync(join(this.dir, 'probe'));
    writeScripts(join(this.dir, 'probe'), { 'START.md': 'Worker 0: say the word.' });
    const probe = await this.cli([join(this.dir, 'probe'), '--workflow-id', 'probe', '--json']);
    this.turnUsd = (JSON.parse(probe.stdout) as { total_cost_usd: number }).total_cost_usd;
  }

  private env() {
    const bin = join(new URL('..', import.meta.url).pathname, 'node_modules/.bin');
    return {
      ...process.env,
      ...this.server!.env(join(this.dir, 'home')),
      PATH: `${bin}${delimiter}${process.env.PATH}`,
      // A turn of several messages calls Bash, which claude runs as root only in a sandbox.
      IS_SANDBOX: '1',
    };
  }

  private cli(args: string[]) {
    return execa(process.execPath, [CLI, ...args], {
      cwd: this.dir,
      env: this.env(),
      reject: false,
    });
  }

  /** Runs one shape in the folder `wf` (a folder run before has history). */
  async run(wf: string, shape: BudgetShape): Promise<BudgetFigures> {
    const folder = join(this.dir, wf);
    mkdirSync(folder, { recursive: true });
    writeScripts(folder, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${shape.n}); do printf '<fork n="%s">W.md</fork>' "$i"; done\necho '<goto>DONE.sh</goto>'\n`,
      'DONE.sh': '#!/usr/bin/env bash\necho "<result>done</result>"\n',
      'W.md': 'Worker {{n}}: say the word.',
    });
    const budgetUsd = shape.turns * this.turnUsd;
    this.messages = shape.messages ?? 1;
    const id = `budget-${++this.runs}`;
    const before = this.server!.served;
    const run = await runCli(
      [
        folder,
        '--workflow-id',
        id,
        '--max-parallel',
        String(shape.parallel),
        '--no-debug',
        '--quiet',
        '--budget',
        budgetUsd.toFixed(6),
        ...(shape.hard ? ['--budget-hard'] : []),
        ...(this.messages > 1 ? ['--dangerously-skip-permissions'] : []),
      ],
      { cwd: this.dir, env: this.env() },
    );
    const status = await this.cli(['--status', id, '--json']);
    const state = JSON.parse(status.stdout || '{}') as { status?: string; total_cost_usd?: number };
    return {
      wallMs: run.wallMs,
      status: state.status ?? `exit ${run.code}`,
      costUsd: state.total_cost_usd ?? 0,
      budgetUsd,
      turnUsd: this.turnUsd,
      served: this.server!.served - before,
    };
  }

  async close(): Promise<void> {
    await this.server?.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A shape's line: its budget, what it spent (as a fraction of the budget,
 * and past it in one-message turns, or in messages when a turn has several)
 * and its wall.
 */
export function budgetLine(name: string, shape: BudgetShape, f: BudgetFigures): string {
  const over = f.budgetUsd > 0 ? f.costUsd / f.budgetUsd : 0;
  const past = f.budgetUsd > 0 ? (f.costUsd - f.budgetUsd) / f.turnUsd : 0;
  const unit = (shape.messages ?? 1) > 1 ? 'messages' : 'turns';
  return [
    `${name}: ${shape.n} workers${unit === 'messages' ? ` of ${shape.messages} messages a turn` : ''} at --max-parallel ${shape.parallel},`,
    shape.turns > 0
      ? `budget ${shape.turns} ${unit} ($${f.budgetUsd.toFixed(4)}${shape.hard ? ', --budget-hard' : ''}):`
      : 'no budget reached:',
    `${f.status}, ${f.served} ${unit === 'messages' ? 'messages' : 'turns'}, $${f.costUsd.toFixed(4)}`,
    ...(shape.turns > 0 && f.costUsd > f.budgetUsd * 0.5
      ? [`(${over.toFixed(2)}x the budget, ${past.toFixed(2)} ${unit} past it),`]
      : [',']),
    `wall ${(f.wallMs / 1000).toFixed(1)} s`,
  ].join(' ');
}
