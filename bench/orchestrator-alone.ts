import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowState } from '../machines/types.js';
import type { Execution, ExecutionRequest } from '../src/executors/executor.js';
import { composeRun } from '../src/runtime/compose-run.js';
import { openScope } from '../src/scope/scope.js';
import { ScopeSet } from '../src/scope/scope-set.js';
import { DEFAULT_TASK_FOLDER_PATTERN } from '../src/task-folder-pattern.js';

/*
 * The orchestrator alone (`node --import tsx bench/orchestrator-alone.ts N`):
 * one dispatcher forking N one-step script workers, every script answered at
 * once in this process, so what is measured is Raymond's own work per step
 * (machines, state file and journal, scheduling), none of the process
 * creation that dominates a real run on a slow machine. Warm-up fan-outs
 * come first, so the measured ones (the median of three) give the cost per
 * step, and the start's fixed cost is printed apart. Prints one JSON line: steps, wall and CPU
 * time, the start's CPU, peak RSS, state file bytes.
 */

const workers = Number(process.argv[2] ?? 1000);
/**
 * Warm-up fan-outs of 1,000 before the measured one: a run's first few
 * thousand steps load its lazy modules and run code V8 has not optimized yet
 * (measured: the fifth fan-out of 1,000 costs about half the first).
 */
const WARM_UPS = 5;
const WARM_UP = 1000;

/** One fan-out of `n` workers in a fresh directory: its figures. */
async function fanOut(n: number) {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-alone-'));
  const wf = join(dir, 'wf');
  mkdirSync(wf);
  for (const name of ['START.sh', 'W1.sh', 'END.sh']) writeFileSync(join(wf, name), '#!/bin/sh\n');
  const stateDir = join(dir, '.raymond/state');
  mkdirSync(stateDir, { recursive: true });
  const forks = '<fork next="END">W1</fork>'.repeat(n);
  const answer = (req: ExecutionRequest): Execution => ({
    output:
      req.file === 'START.sh'
        ? forks
        : `<result>${req.file === 'END.sh' ? 'dispatched' : req.agent.id}</result>`,
    session: null,
    costUsd: 0,
  });
  const now = new Date().toISOString();
  const state: WorkflowState = {
    version: 1,
    workflow_id: 'alone',
    status: 'running',
    scope: { kind: 'dir', path: wf, entry: 'START.sh' },
    started_at: now,
    updated_at: now,
    options: {
      timeout_seconds: 60,
      max_parallel: 2,
      budget_usd: 0,
      model: null,
      effort: null,
      dangerously_skip_permissions: false,
    },
    total_cost_usd: 0,
    fork_counters: {},
    session_costs: {},
    agents: [
      {
        id: 'main',
        state: 'START.sh',
        session: null,
        branchFrom: null,
        stack: [],
        cwd: dir,
        attributes: {},
        input: null,
        status: 'active',
      },
    ],
    results: {},
  };
  const scope = await openScope(wf);
  const scopes = new ScopeSet(scope);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const outcome = await composeRun({
    state,
    scopes,
    stateFile: join(stateDir, 'alone.json'),
    settings: {
      maxParallel: 2,
      timeoutSeconds: 60,
      budgetUsd: 0,
      skipPermissions: false,
      disallowedTools: [],
      debug: false,
      history: false,
      warm: false,
      worktreeMode: 'keep-ignored',
      taskFolderPattern: DEFAULT_TASK_FOLDER_PATTERN,
      onAsk: 'pause',
    },
    hooks: {
      onEvent: () => {},
      language: 'inline',
      // Each script "runs" on the next turn of the event loop, as a spawner's reply would arrive.
      script: () => ({
        execute: (req) => new Promise((resolve) => setImmediate(() => resolve(answer(req)))),
      }),
    },
    resumed: false,
  });
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await scopes.dispose();
  rmSync(dir, { recursive: true, force: true });
  return {
    status: outcome.status,
    results: Object.keys(outcome.results).length,
    steps: n + 2,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    stateBytes: outcome.stateWrites.bytes,
  };
}

// The start is a fixed cost per run, kept apart from the cost per step: what the warm-ups
// cost beyond as many steps at the measured fan-out's rate.
let warmUpCpuMs = 0;
let warmUpSteps = 0;
for (let i = 0; i < WARM_UPS; i++) {
  const run = await fanOut(WARM_UP);
  warmUpCpuMs += run.cpuMs;
  warmUpSteps += run.steps;
}
// Three measured fan-outs, the median by CPU: a short one (1,000) catches the collector's and
// the compiler's background threads at any point of their work.
const rounds = [await fanOut(workers), await fanOut(workers), await fanOut(workers)];
const measured = rounds.sort((a, b) => a.cpuMs - b.cpuMs)[1]!;
process.stdout.write(
  `${JSON.stringify({
    workers,
    ...measured,
    startCpuMs: warmUpCpuMs - (warmUpSteps * measured.cpuMs) / measured.steps,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
