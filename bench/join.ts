import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveJoin } from '../machines/joins.js';
import { storeFromState } from '../machines/run-store.js';
import type { StoredAgent, WorkflowState } from '../machines/types.js';
import { runCli } from './measure-cli.js';
import { tailOf } from './tail.js';
import { writeScripts } from './write-scripts.js';

/** One fan-out run's figures. */
export interface FanRun {
  wallMs: number;
  peakRssMb: number;
}

/**
 * Runs `n` script workers forked by one parent, which either joins them
 * (`<join>END</join>`) or goes on at once (`next="END"`): the same steps,
 * with and without the join's bookkeeping.
 */
async function fanOut(n: number, joined: boolean, parallel: number): Promise<FanRun> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-join-'));
  try {
    const continuation = joined ? '<join>END</join>' : '<goto>END</goto>';
    writeScripts(dir, {
      'START.sh': `#!/usr/bin/env bash\nfor i in $(seq 1 ${n}); do printf '<fork i="%s">W</fork>' "$i"; done\nprintf '${continuation}'\n`,
      'W.sh': '#!/usr/bin/env bash\necho "<result>$i</result>"\n',
      'END.sh': '#!/usr/bin/env bash\necho "<result>end</result>"\n',
    });
    const run = await runCli(
      [
        dir,
        '--max-parallel',
        String(parallel),
        '--quiet',
        '--workflow-id',
        'join',
        '--state-dir',
        join(dir, '.raymond', 'state'),
      ],
      { cwd: dir, timeoutMs: 900_000 },
    );
    if (run.code !== 0)
      throw new Error(
        `${joined ? 'joined' : 'plain'} fan-out of ${n} failed (exit ${run.code ?? run.signal}): ${tailOf(run.stderr)}`,
      );
    return { wallMs: run.wallMs, peakRssMb: run.peakRssMb };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Wall time of `n` joined workers against the same fan-out without a join, alternating, `rounds` each; medians. */
export async function benchJoinWall(
  n: number,
  parallel: number,
  rounds: number,
): Promise<{ joined: number; plain: number }> {
  const joined: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < rounds; i++) {
    plain.push((await fanOut(n, false, parallel)).wallMs);
    joined.push((await fanOut(n, true, parallel)).wallMs);
  }
  return { joined: median(joined), plain: median(plain) };
}

/** The orchestrator's peak RSS with a parent waiting on `n` workers, against the same fan-out without the join. */
export async function benchJoinMemory(
  n: number,
  parallel: number,
): Promise<{ joined: number; plain: number }> {
  const plain = await fanOut(n, false, parallel);
  const joined = await fanOut(n, true, parallel);
  return { joined: joined.peakRssMb, plain: plain.peakRssMb };
}

/** Milliseconds to build the join state's input for `n` ended workers (the median of five). */
export function benchJoinInput(n: number): number {
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const ids = Array.from({ length: n }, (_, i) => `main_w${i + 1}`);
    const workers: StoredAgent[] = ids.map((id, i) => ({
      id,
      parent: 'main',
      state: 'W.sh',
      session: null,
      branchFrom: null,
      stack: [],
      cwd: '/repo',
      attributes: { item: String(i), target: `src/file-${i}.ts` },
      input: null,
      status: 'terminated',
      result: `refactored src/file-${i}.ts: 3 call sites`,
      cost_usd: 0.0123,
    }));
    const state: WorkflowState = {
      version: 1,
      workflow_id: 'bench',
      status: 'running',
      scope: { kind: 'dir', path: '/wf', entry: 'START.sh' },
      started_at: '',
      updated_at: '',
      options: {
        timeout_seconds: 600,
        max_parallel: 8,
        budget_usd: 0,
        model: null,
        effort: null,
        dangerously_skip_permissions: false,
      },
      total_cost_usd: 0,
      fork_counters: { main: n },
      session_costs: {},
      agents: [
        {
          id: 'main',
          state: 'END.sh',
          session: null,
          branchFrom: null,
          stack: [],
          cwd: '/repo',
          attributes: {},
          input: null,
          status: 'active',
          joining: true,
        },
        ...workers,
      ],
      results: Object.fromEntries(workers.map((w) => [w.id, w.result!])),
    };
    const store = storeFromState(state);
    const t0 = performance.now();
    const resolved = resolveJoin(store, 'main');
    times.push(performance.now() - t0);
    if ((JSON.parse(resolved?.record.input ?? '[]') as unknown[]).length !== n)
      throw new Error('the join did not resolve with every worker');
  }
  return median(times);
}
