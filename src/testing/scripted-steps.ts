import { basename } from 'node:path';
import type { RunEventSink } from '../../machines/run-events.js';
import { RaymondError } from '../errors.js';
import type { ExecutionRequest, StateExecutor } from '../executors/executor.js';
import { agentExecutor } from '../runtime/agent-executor.js';
import type { RunSettings } from '../settings/run-settings.js';
import type { ScriptedModel } from './scripted-model.js';
import { backendOf } from '../agents/registry/registry.js';
import { stateStem } from './test-file.js';
import type { TestSpec, Turn } from './test-spec-schema.js';

/** An agent as a test's `agent:` and `when:` pick it. */
interface Who {
  id: string;
  attributes: Readonly<Record<string, string>>;
}

/** An entry that may name the agents it is for. */
interface Picked {
  agent?: string;
  when?: Record<string, string>;
}

/** Keys written with or without the state's extension, as one stem. */
export function byStem<V>(table: Readonly<Record<string, V>> | undefined): Map<string, V> {
  return new Map(Object.entries(table ?? {}).map(([k, v]) => [stateStem(k), v]));
}

/**
 * The n-th entry (1-based) for an agent: the entries that name it (by
 * `agent` or `when`) if any do, otherwise those that name nobody.
 */
export function pickEntry<E>(
  entries: readonly E[] | undefined,
  who: Who,
  n: number,
  fields: (e: E) => Picked,
): E | undefined {
  const all = entries ?? [];
  const names = (e: E) => fields(e).agent !== undefined || fields(e).when !== undefined;
  const own = all.filter((e) => {
    const { agent, when } = fields(e);
    if (!names(e)) return false;
    if (agent !== undefined && agent !== who.id) return false;
    return Object.entries(when ?? {}).every(([k, v]) => who.attributes[k] === v);
  });
  return (own.length > 0 ? own : all.filter((e) => !names(e)))[n - 1];
}

/** A turn in its long form. */
function longTurn(turn: Turn): Exclude<Turn, string> {
  return typeof turn === 'string' ? { text: turn } : turn;
}

/** What the scripted executors need from the test run. */
export interface ScriptedStepsOptions {
  spec: TestSpec;
  model: ScriptedModel;
  settings: RunSettings;
  /** The environment every agent CLI gets: the test's own home, no way out to a real API. */
  env: Record<string, string | undefined>;
  emit: RunEventSink;
  /** Each step's token, with the agent and state it ran. */
  onStep(token: string, agent: string, state: string): void;
  /** Steps whose process may still run: a stopped run returns before they end. */
  running: Set<Promise<unknown>>;
}

/** Runs an execution, keeping it in `running` until its process has ended. */
export function tracked<T>(running: Set<Promise<unknown>>, work: Promise<T>): Promise<T> {
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  running.add(settled);
  void settled.then(() => running.delete(settled));
  return work;
}

/**
 * The markdown steps of a test run: the real agent CLI (Claude Code or pi),
 * told to ask the scripted model, with a header naming the step's ticket.
 */
export function scriptedMarkdown(o: ScriptedStepsOptions): StateExecutor {
  const replies = byStem(o.spec.replies);
  const turns = new Map<string, number>();
  return {
    async execute(req: ExecutionRequest) {
      const state = stateStem(basename(req.file));
      const key = `${req.agent.id}\0${state}`;
      const turn = (turns.get(key) ?? 0) + 1;
      turns.set(key, turn);
      const backend = backendOf(req.backend);
      const scripted = pickEntry(replies.get(state), req.agent, turn, (t) =>
        typeof t === 'string' ? {} : t,
      );
      const token = o.model.open({
        agent: req.agent.id,
        state,
        turn,
        cwd: req.agent.cwd,
        backend: backend.name,
        ...(scripted === undefined ? {} : { reply: longTurn(scripted) }),
      });
      o.onStep(token, req.agent.id, state);
      const env = {
        ...o.env,
        RAYMOND_TEST_STEP: token,
        ...backend.scripted.stepEnvironment?.(token),
      };
      // One executor per step (its ticket is in its environment): no process outlives the step.
      const executor = agentExecutor(o.settings, o.emit, env);
      return tracked(
        o.running,
        executor.execute(req).finally(() => executor.close?.()),
      );
    },
  };
}

/** Script states the test stubs print its `stdout` and exit with its `exit`; the others run for real. */
export function stubbedScripts(
  spec: TestSpec,
  running: Set<Promise<unknown>>,
): (real: StateExecutor) => StateExecutor {
  const stubs = byStem(spec.scripts);
  return (real) => ({
    async execute(req) {
      const stub = stubs.get(stateStem(basename(req.file)));
      if (!stub) return tracked(running, real.execute(req));
      const exit = stub.exit ?? 0;
      if (exit !== 0)
        throw new RaymondError(
          'ERR_SCRIPT_FAILED',
          `exited with code ${exit} (stubbed by the test)`,
          {
            file: req.scope.display(req.file),
            details: { exitCode: exit, stderr: '' },
          },
        );
      return { output: stub.stdout ?? '', session: null, costUsd: 0 };
    },
  });
}
