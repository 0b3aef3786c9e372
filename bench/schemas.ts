import * as v from 'valibot';
import { spawnerReply } from '../src/executors/spawner-schemas.js';
import { isSpawnerRequest } from '../src/executors/spawner-request-check.generated.js';
import { signedJob, stepJobEnvelope } from '../src/queue/queue-schemas.js';
import { stateFileProblem } from '../src/state/state-schema.js';
import { handStateProblem, handStepJob } from './schema-baselines.js';
import * as vb from './schemas-valibot.js';

/** One edge's figures: microseconds per parse (JSON.parse and the check) for each way of checking. */
export interface SchemaFigure {
  edge: string;
  handUs: number;
  typeboxUs: number;
  valibotUs: number;
}

/** A state file as a long run writes it: `n` agents, each two frames deep, some in worktrees. */
function stateText(n: number): string {
  const agents = Array.from({ length: n }, (_, i) => ({
    id: `main_${i}`,
    state: 'REVIEW.md',
    session: `0b5f${i}-aaaa-bbbb-cccc-1234567890ab`,
    branchFrom: null,
    stack: [
      { state: 'JOIN.md', session: null },
      {
        state: 'NEXT.md',
        session: `s${i}`,
        workflow: { scope: 'lib', cwd: '/work/repo', depth: 1 },
      },
    ],
    cwd: '/work/repo',
    attributes: { item: `src/file-${i}.ts`, kind: 'refactor' },
    input: null,
    status: 'active',
    task_folder: `/work/repo/.raymond/tasks/run/${i}`,
    task_number: i,
    cost_usd: 0.0123,
    ...(i % 10 === 0
      ? {
          worktree: {
            name: `w${i}`,
            repo: '/work/repo',
            path: `/work/repo/.raymond/worktrees/w${i}`,
            branch: `raymond/w${i}`,
            base: 'main',
            mode: 'clean',
          },
        }
      : {}),
  }));
  const byAgent = <T>(f: (i: number) => T) =>
    Object.fromEntries(agents.map((a, i) => [a.id, f(i)]));
  return JSON.stringify({
    version: 1,
    workflow_id: 'bench',
    status: 'running',
    scope: { kind: 'dir', path: '/work/repo/flow', entry: 'START.md' },
    started_at: new Date(0).toISOString(),
    updated_at: new Date(0).toISOString(),
    options: {
      timeout_seconds: 600,
      max_parallel: 10,
      budget_usd: 10,
      model: null,
      effort: null,
      dangerously_skip_permissions: false,
      worktrees: 'clean',
      on_ask: 'reject',
    },
    total_cost_usd: 1.5,
    fork_counters: byAgent((i) => i),
    session_costs: byAgent(() => 0.01),
    results: byAgent((i) => `done ${i}`),
    agents,
  });
}

const RUN_LINE = JSON.stringify({
  type: 'run',
  id: 42,
  file: '/work/repo/flow/STEP.sh',
  args: [],
  cwd: '/work/repo',
  env: {
    RAYMOND_AGENT_ID: 'main_1',
    RAYMOND_WORKFLOW_ID: 'bench',
    RAYMOND_STATE: 'STEP.sh',
    item: 'src/a.ts',
    OLD: null,
  },
  inactivityMs: 600_000,
  stream: false,
  maxOutputBytes: 16 << 20,
});
const EXIT_LINE = JSON.stringify({
  type: 'exit',
  id: 42,
  exitCode: 0,
  signal: null,
  stdout: `${'checked src/a.ts: fine\n'.repeat(80)}<goto>NEXT.sh</goto>\n`,
  stderrTail: '',
  timedOut: false,
  droppedBytes: 0,
  leftRunning: [],
});
const STEP_JOB = JSON.stringify({
  payload: JSON.stringify({
    v: 2,
    kind: 'script',
    run: 'bench',
    id: 'main_1.7',
    nonce: '3f0c2a8e-1b7d-4c1e-9d7a-2b5c8e0f1a2b',
    expires: Date.now(),
    root: '/work/repo',
    agent: {
      id: 'main_1',
      state: 'STEP.sh',
      session: null,
      branchFrom: null,
      cwd: '/work/repo',
      attributes: { item: 'src/a.ts' },
      input: null,
      status: 'active',
    },
    file: '/work/repo/.raymond/state/bench.json',
    where: 'bench.json',
    timeoutMs: 600_000,
    env: { A: 'b' },
    folder: 'a'.repeat(64),
    script: 'STEP.sh',
    pushRemote: 'origin',
    queuedAt: Date.now(),
  }),
  sig: 'f'.repeat(64),
});

/** Microseconds per call of `f`: the median of five rounds of `n` calls, after a warm-up round. */
function usPer(f: () => unknown, n: number): number {
  const rounds: number[] = [];
  for (let r = 0; r < 6; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) if (!f()) throw new Error('a check refused the bench data');
    if (r > 0) rounds.push(((performance.now() - t0) * 1000) / n);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

/** The figures of every edge, measured in this one process, each way on the same text. */
export function benchSchemas(): SchemaFigure[] {
  const figures: SchemaFigure[] = [];
  const edge = (
    name: string,
    n: number,
    hand: () => unknown,
    typebox: () => unknown,
    valibot: () => unknown,
  ) =>
    figures.push({
      edge: name,
      handUs: usPer(hand, n),
      typeboxUs: usPer(typebox, n),
      valibotUs: usPer(valibot, n),
    });
  for (const agents of [1000, 10000]) {
    const text = stateText(agents);
    edge(
      `state file, ${agents.toLocaleString('en')} agents (${(text.length / 2 ** 20).toFixed(1)} MB)`,
      agents >= 10000 ? 5 : 30,
      () => handStateProblem(JSON.parse(text)) === undefined,
      () => stateFileProblem(JSON.parse(text)) === undefined,
      () => v.safeParse(vb.STATE_FILE, JSON.parse(text)).success,
    );
  }
  // Today a spawner's messages are parsed and not checked: the baseline is JSON.parse alone.
  edge(
    'spawner request (run)',
    100_000,
    () => JSON.parse(RUN_LINE),
    () => isSpawnerRequest(JSON.parse(RUN_LINE)),
    () => v.safeParse(vb.SPAWNER_REQUEST, JSON.parse(RUN_LINE)).success,
  );
  edge(
    'spawner reply (exit, 2 KB of stdout)',
    100_000,
    () => JSON.parse(EXIT_LINE),
    () => spawnerReply.check(JSON.parse(EXIT_LINE)),
    () => v.safeParse(vb.SPAWNER_REPLY, JSON.parse(EXIT_LINE)).success,
  );
  edge(
    'queue step job (signed envelope and payload)',
    100_000,
    () => handStepJob(JSON.parse(STEP_JOB)),
    () => {
      const signed: unknown = JSON.parse(STEP_JOB);
      return signedJob.check(signed) && stepJobEnvelope.check(JSON.parse(signed.payload));
    },
    () => {
      const signed = v.safeParse(vb.SIGNED_JOB, JSON.parse(STEP_JOB));
      return signed.success && v.safeParse(vb.STEP_JOB, JSON.parse(signed.output.payload)).success;
    },
  );
  return figures;
}

/** The figures as lines: each way's time, and its ratio to today's hand-written checks. */
export function schemaLines(figures: SchemaFigure[]): string[] {
  const us = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(1)} ms` : `${x.toFixed(2)} us`);
  return figures.map(
    (f) =>
      `schemas: ${f.edge}: hand-written ${us(f.handUs)}, TypeBox ${us(f.typeboxUs)} (${(f.typeboxUs / f.handUs).toFixed(2)}x), Valibot ${us(f.valibotUs)} (${(f.valibotUs / f.handUs).toFixed(2)}x)`,
  );
}
