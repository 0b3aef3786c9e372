import {
  createActor,
  fromCallback,
  waitFor,
  type AnyActorLogic,
  type InspectionEvent,
} from 'xstate';
import type { StepInput } from '../../machines/agent.machine.js';
import { stepRunner, type RunStep } from '../../machines/step-runner.js';
import type { StepFailure } from '../../machines/step-failure.js';
import { nameWorkers } from '../../machines/worker-names.js';
import { storeFromState, stateFromStore, type RunStore } from '../../machines/run-store.js';
import {
  supervisorMachine,
  type PersisterEvent,
  type SupervisorEmitted,
  type SupervisorEvent,
  type SupervisorInput,
  type SupervisorOutput,
} from '../../machines/supervisor.machine.js';
import type {
  AgentRecord,
  ResolvedDecision,
  ResolvedDecisionData,
  ResolvedForkSpawn,
  StoredAgent,
  WorkflowState,
} from '../../machines/types.js';

/** A worker as a script forks it: the fake names it unless the script did, and gives it no task folder. */
type FakeSpawn = Omit<ResolvedForkSpawn, 'id' | 'taskFolder'> &
  Partial<Pick<ResolvedForkSpawn, 'id' | 'taskFolder'>>;

/** What a scripted step decides: a resolved decision's data, its workers' names optional. */
export type FakeDecision =
  | Exclude<ResolvedDecisionData, { kind: 'fork' }>
  | (Omit<Extract<ResolvedDecisionData, { kind: 'fork' }>, 'workers'> & { workers: FakeSpawn[] });

/** A scripted workflow: for each state name, what the step decides. */
export type FakeScript = Record<
  string,
  FakeDecision | ((record: AgentRecord, call: number) => FakeDecision | Promise<FakeDecision>)
>;

export interface FakeRun {
  output: SupervisorOutput;
  store: RunStore;
  /** Every state snapshot the fake persister wrote, as JSON text. */
  writes: string[];
  reports: SupervisorEmitted[];
  /** Steps in the order they started: `agent:state`. */
  started: string[];
  maxRunning: number;
}

/** An agent of a state file, which must be there. */
export function agentIn(state: WorkflowState, id: string): StoredAgent {
  const a = state.agents.find((x) => x.id === id);
  if (!a) throw new Error(`agent ${id} is not in the state file`);
  return a;
}

export function freshState(entry = 'START', overrides: Partial<StoredAgent> = {}): WorkflowState {
  return {
    version: 1,
    workflow_id: 'wf-test',
    status: 'running',
    scope: { kind: 'dir', path: '/wf', entry },
    started_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    options: {
      timeout_seconds: 600,
      max_parallel: 2,
      budget_usd: 0,
      model: null,
      effort: null,
      dangerously_skip_permissions: false,
    },
    session_costs: {},
    total_cost_usd: 0,
    fork_counters: {},
    agents: [
      {
        id: 'main',
        state: entry,
        session: null,
        branchFrom: null,
        stack: [],
        cwd: '/wf',
        attributes: {},
        input: null,
        status: 'active',
        ...overrides,
      },
    ],
    results: {},
  };
}

/**
 * Stands in for the step's resolution: names a fork's workers the way the
 * real step does (a script may name them itself), and marks the decision
 * resolved, as only a step may.
 */
function named(decision: FakeDecision, input: StepInput): ResolvedDecision {
  if (decision.kind !== 'fork') return decision as ResolvedDecision;
  const ids = nameWorkers(
    input.record.id,
    input.forkCount,
    decision.workers.map((w) => w.target),
  );
  return {
    ...decision,
    workers: decision.workers.map((w, i) => ({ ...w, id: w.id ?? ids[i] })),
  } as ResolvedDecision;
}

/**
 * Runs the real supervisor and agent machines with a fake step actor that
 * follows `script`, and a persister that records each write in memory.
 */
export async function runFake(
  script: FakeScript,
  opts: {
    state?: WorkflowState;
    maxParallel?: number;
    session?: (r: AgentRecord) => string | null;
    /** What each step costs: one figure, or by the agent's record. */
    cost?: number | ((r: AgentRecord) => number);
    persister?: AnyActorLogic;
    delayMs?: number;
    maxMarkdown?: number;
    inspect?: (e: InspectionEvent) => void;
    timeoutMs?: number;
    stopWhenAsking?: boolean;
    /** The cost gate's supervisor inputs (machines/gate-work.ts). */
    gateStops?: boolean;
    gateAnswers?: ReadonlyArray<{ askId: string; text: string }>;
    onReport?: (e: SupervisorEmitted, send: (e: SupervisorEvent) => void) => void;
    /** The budget's reservations (SupervisorInput.reserve). */
    reserve?: SupervisorInput['reserve'];
  } = {},
): Promise<FakeRun> {
  const store = storeFromState(opts.state ?? freshState());
  const writes: string[] = [];
  const reports: SupervisorEmitted[] = [];
  const started: string[] = [];
  const calls = new Map<string, number>();
  let running = 0;
  let maxRunning = 0;
  const runStep: RunStep = async (input) => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    started.push(`${input.record.id}:${input.record.state}`);
    try {
      if (opts.delayMs !== 0) await new Promise((r) => setTimeout(r, opts.delayMs ?? 1));
      // As the real step does (src/runtime/step-actor.ts): a spent branch's step fails, running nothing.
      if (input.refused)
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw {
          kind: 'step-failure',
          code: 'ERR_BRANCH_BUDGET',
          message: input.refused,
          pauses: false,
          spentUsd: 0,
          sessionCosts: {},
        } satisfies StepFailure;
      const entry = script[input.record.state];
      if (entry === undefined) throw new Error(`no script for ${input.record.state}`);
      const n = (calls.get(input.record.state) ?? 0) + 1;
      calls.set(input.record.state, n);
      const decision = named(
        typeof entry === 'function' ? await entry(input.record, n) : entry,
        input,
      );
      return {
        decision,
        session: opts.session?.(input.record) ?? null,
        costUsd: typeof opts.cost === 'function' ? opts.cost(input.record) : (opts.cost ?? 0),
      };
    } finally {
      running--;
    }
  };
  const persister = fromCallback<PersisterEvent, { store: RunStore }>(
    ({ receive, sendBack, input }) => {
      receive((event) => {
        writes.push(JSON.stringify(stateFromStore(input.store)));
        queueMicrotask(() => sendBack({ type: 'state.persisted', version: event.version }));
      });
    },
  );
  const machine = supervisorMachine.provide({
    actors: {
      steps: stepRunner(runStep),
      persister: (opts.persister as typeof persister | undefined) ?? persister,
    },
  });
  const actor = createActor(machine, {
    input: {
      store,
      maxParallel: opts.maxParallel ?? 4,
      stopWhenAsking: opts.stopWhenAsking ?? false,
      gateStops: opts.gateStops ?? false,
      gateAnswers: opts.gateAnswers ?? [],
      ...(opts.maxMarkdown ? { maxMarkdown: opts.maxMarkdown } : {}),
      ...(opts.reserve ? { reserve: opts.reserve } : {}),
    },
    systemId: 'supervisor',
    ...(opts.inspect ? { inspect: opts.inspect } : {}),
  });
  actor.on('*', (e) => {
    reports.push(e);
    opts.onReport?.(e, (event) => actor.send(event));
  });
  actor.start();
  const snap = await waitFor(actor, (s) => s.status !== 'active', {
    timeout: opts.timeoutMs ?? 10_000,
  });
  if (snap.status === 'error') throw snap.error;
  return { output: snap.output!, store, writes, reports, started, maxRunning };
}
