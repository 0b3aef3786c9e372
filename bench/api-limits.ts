import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { ApiServer } from '../test/helpers/api-server.js';
import { CLI, runCli } from './measure-cli.js';
import { writeScripts } from './write-scripts.js';

/** One shape of `npm run bench limits`: `n` one-turn workers against a scripted API that allows `perSecond` requests. */
export interface LimitShape {
  n: number;
  perSecond: number;
  /** After this many served requests the account's usage is spent for `resetMs` (a usage limit). */
  spend?: { after: number; resetMs: number };
  /** After this many served requests sonnet is overloaded (529) for `forMs`; the workers name haiku as their fallback. */
  burst?: { after: number; forMs: number };
  /** `--no-adaptive-width`: `--max-parallel` alone. */
  fixed?: boolean;
  /** The scripted API tells no rate in its headers (the gate learns it from refusals). */
  mute?: boolean;
}

/** What a shape's run did, from the scripted API's counts and the run's --status. */
export interface LimitFigures {
  wallMs: number;
  status: string;
  served: number;
  refused: number;
  /** Requests refused while the usage was spent, and those refused 529. */
  spentRefused: number;
  overloaded: number;
  /** Main-loop requests haiku answered. */
  byHaiku: number;
  paused: number;
  failed: number;
  costUsd: number;
}

const ID = 'limits';

/** Runs one shape through the built CLI and the real claude, `--max-parallel 200` as the shape says. */
export async function benchLimits(shape: LimitShape): Promise<LimitFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-limits-'));
  const server = await new ApiServer().start();
  try {
    server.on(/^Worker (\d+)/, (r) => ({
      text: `<result>${/^Worker (\d+)/.exec(r.prompt)![1]}</result>`,
    }));
    server.limit(shape.perSecond, { headers: !shape.mute });
    if (shape.spend) server.spendAfter(shape.spend.after, shape.spend.resetMs);
    if (shape.burst) server.overload('sonnet', shape.burst.after, shape.burst.forMs);
    const front = shape.burst ? '---\nmodel: sonnet\nfallback_models: [haiku]\n---\n' : '';
    writeScripts(dir, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${shape.n}); do printf '<fork n="%s">W.md</fork>' "$i"; done\necho '<goto>DONE.sh</goto>'\n`,
      'DONE.sh': '#!/usr/bin/env bash\necho "<result>done</result>"\n',
      'W.md': `${front}Worker {{n}}: say the word.`,
    });
    const home = join(dir, 'home');
    mkdirSync(home);
    const bin = join(new URL('..', import.meta.url).pathname, 'node_modules/.bin');
    const env = {
      ...process.env,
      ...server.env(home),
      PATH: `${bin}${delimiter}${process.env.PATH}`,
      // A claude.ai login, not an API key: Claude Code reads the usage limit's headers only then.
      ...(shape.spend
        ? { ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-bench' }
        : {}),
    };
    const run = await runCli(
      [
        dir,
        '--workflow-id',
        ID,
        '--max-parallel',
        '200',
        '--no-debug',
        '--quiet',
        '--budget',
        '0',
        ...(shape.fixed ? ['--no-adaptive-width'] : []),
      ],
      { cwd: dir, env },
    );
    const status = await execa(process.execPath, [CLI, '--status', ID, '--json'], {
      cwd: dir,
      env,
      reject: false,
    });
    const state = JSON.parse(status.stdout || '{}') as {
      status?: string;
      total_cost_usd?: number;
      agents?: Array<{ status: string }>;
    };
    const count = (s: string) => (state.agents ?? []).filter((a) => a.status === s).length;
    return {
      wallMs: run.wallMs,
      status: state.status ?? `exit ${run.code}`,
      served: server.served,
      refused: server.refused,
      spentRefused: server.usageRefused,
      overloaded: server.overloaded,
      byHaiku: server.requests.filter((r) => r.main && /haiku/.test(r.model)).length,
      paused: count('paused'),
      failed: count('failed'),
      costUsd: state.total_cost_usd ?? 0,
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A shape's line: what it ran against, and what it did. */
export function limitLine(name: string, shape: LimitShape, f: LimitFigures): string {
  const ideal = (shape.n / shape.perSecond) * 1000;
  const share = f.served > 0 ? (100 * f.refused) / f.served : 0;
  return [
    `${name}: ${shape.n} workers at ${shape.perSecond}/s${shape.fixed ? ' (--no-adaptive-width)' : ''}${shape.mute ? ' (no rate headers)' : ''}:`,
    `${f.status}, wall ${(f.wallMs / 1000).toFixed(0)} s (${(f.wallMs / ideal).toFixed(2)}x of n/R),`,
    `${f.refused} refused 429 (${share.toFixed(0)}% of ${f.served} served),`,
    ...(shape.spend ? [`${f.spentRefused} refused while spent,`] : []),
    ...(shape.burst ? [`${f.overloaded} refused 529, ${f.byHaiku} answered by haiku,`] : []),
    `${f.paused} paused, ${f.failed} failed, $${f.costUsd.toFixed(4)} ($${(f.costUsd / shape.n).toFixed(6)} a worker)`,
  ].join(' ');
}
