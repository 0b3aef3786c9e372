import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { StepInput } from '../../machines/agent.machine.js';
import type { RunEvent } from '../../machines/run-events.js';
import type { AgentRecord, WorktreeRef } from '../../machines/types.js';
import type { Execution, ExecutionRequest, StateExecutor } from '../../src/executors/executor.js';
import { createInlineLanguageService } from '../../src/language/language-service.js';
import { openScope } from '../../src/scope/scope.js';
import { ScopeSet } from '../../src/scope/scope-set.js';
import type { StepDependencies } from '../../src/runtime/step-context.js';
import { createTaskFolders } from '../../src/runtime/task-folders.js';
import { DEFAULT_TASK_FOLDER_PATTERN } from '../../src/task-folder-pattern.js';
import type { WorktreePool } from '../../src/worktrees/worktree-pool.js';

/** A worktree pool that does no git: it records each call and answers as told. */
export interface FakePool extends WorktreePool {
  calls: string[];
  /** The folder `acquire` hands out (default: the worktree's own path, or /pool/1). */
  folder?: string;
}

export function fakePool(): FakePool {
  const pool: FakePool = {
    calls: [],
    async acquire(w: WorktreeRef, agentId: string) {
      pool.calls.push(`acquire ${agentId}`);
      return pool.folder ?? w.path ?? '/pool/1';
    },
    async finish(w: WorktreeRef, agentId: string) {
      pool.calls.push(`finish ${agentId}`);
      return { ...w, commits: 1, removed: false };
    },
    async suspend(w: WorktreeRef, agentId: string) {
      pool.calls.push(`suspend ${agentId}`);
      return { ...w, saved: 'abc123' };
    },
    async close() {},
    stats: () => ({ created: 0, reused: 0, peakAlive: 0 }),
  };
  return pool;
}

/** An executor that answers each state file with the next of its scripted outputs, and records every request. */
export function fakeExecutor(
  outputs: Record<string, Array<Partial<Execution> | Error>>,
): StateExecutor & { requests: ExecutionRequest[]; ended: string[] } {
  const requests: ExecutionRequest[] = [];
  const ended: string[] = [];
  return {
    requests,
    ended,
    async execute(request) {
      requests.push(request);
      const next = outputs[request.file]?.shift();
      if (next === undefined) throw new Error(`no scripted output for ${request.file}`);
      if (next instanceof Error) throw next;
      return { output: '', session: null, costUsd: 0, ...next };
    },
    endSession: (session) => void ended.push(session),
  };
}

/** A step's world: a workflow folder, its scopes, fakes for everything with side effects, and the events the step emitted. */
export interface StepWorld {
  dir: string;
  /** The workflow's folder. */
  wf: string;
  deps: StepDependencies;
  events: RunEvent[];
  pool: FakePool;
  /** An agent at `state`, in the workflow's folder. */
  agent(state: string, fields?: Partial<AgentRecord>): AgentRecord;
  input(record: AgentRecord, forkCount?: number): StepInput;
  close(): Promise<void>;
}

/** Writes `files` into a temporary workflow folder (scripts made executable) and builds a step's dependencies on it. */
export async function stepWorld(
  files: Record<string, string>,
  deps: Partial<StepDependencies> = {},
): Promise<StepWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'raymond-step-'));
  const wf = join(dir, 'wf');
  for (const [name, text] of Object.entries(files)) {
    const path = join(wf, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    if (name.endsWith('.sh')) chmodSync(path, 0o755);
  }
  const scope = await openScope(wf);
  const scopes = new ScopeSet(scope);
  const language = createInlineLanguageService();
  const events: RunEvent[] = [];
  const pool = fakePool();
  const world: StepWorld = {
    dir,
    wf,
    events,
    pool,
    deps: {
      workflowId: 'wf-1',
      scopes,
      language,
      script: fakeExecutor({}),
      markdown: undefined,
      timeoutMs: 10_000,
      emit: (e) => void events.push(e),
      warnOnce: (text) => void events.push({ type: 'warning', text }),
      worktrees: pool,
      worktreeMode: 'keep-ignored',
      tasks: createTaskFolders(dir, DEFAULT_TASK_FOLDER_PATTERN, 'wf-1'),
      onAsk: 'pause',
      ...deps,
    },
    agent: (state, fields = {}) => ({
      id: 'main',
      state,
      session: null,
      branchFrom: null,
      stack: null,
      cwd: wf,
      attributes: {},
      input: null,
      status: 'active',
      ...fields,
    }),
    input: (record, forkCount = 0) => ({ record, forkCount, sessionCosts: {} }),
    async close() {
      await scopes.dispose();
      await scope.dispose();
      await language.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}
