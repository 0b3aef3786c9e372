import { randomUUID } from 'node:crypto';
import type { RunEventSink } from '../../machines/run-events.js';
import type {
  AgentRecord,
  OnAskMode,
  ResolvedDecision,
  WorktreeMode,
} from '../../machines/types.js';
import type { StateExecutor } from '../executors/executor.js';
import type { Forecaster } from '../history/history-types.js';
import type { Grant } from '../language/grant.js';
import type { LanguageService } from '../language/language-service.js';
import { isMarkdown } from '../scope/extensions.js';
import type { ScopeSet } from '../scope/scope-set.js';
import type { DebugLog, StepDebug } from '../state/debug-log.js';
import type { WorktreePool } from '../worktrees/worktree-pool.js';
import type { WorktreeStarts } from '../worktrees/step-start.js';
import type { TaskFolders } from './task-folders.js';
import type { BudgetMeter } from './budget-meter.js';

/** What running a step needs from the run; given once, at the composition root. */
export interface StepDependencies {
  workflowId: string;
  /** The run's workflow scopes: its own and those cross-workflow tags opened. */
  scopes: ScopeSet;
  language: LanguageService;
  script: StateExecutor;
  markdown: StateExecutor | undefined;
  timeoutMs: number;
  /** The run's event stream: prints, warnings, details. */
  emit: RunEventSink;
  /** `--model` / `--effort`: used when a state's frontmatter says nothing. */
  model?: string;
  /** `--fallback-models`: used when a state's frontmatter names none. */
  fallbackModels?: string[];
  effort?: string;
  /** The config's grant keys: defaults under each workflow's and each state's. */
  grant?: Grant;
  /** Shows a warning once per run. */
  warnOnce: (text: string) => void;
  /** Debug logs, unless --no-debug. */
  debug?: DebugLog;
  /** Where agents with `worktree=` get their folders. */
  worktrees: WorktreePool;
  /**
   * Where agents' steps start in their worktrees: recorded as each step
   * ends, and gone back to by a step a killed run left half done. Absent
   * where the folders are on other machines (`--queue`: the workers keep
   * them) and in tests that do not need it.
   */
  starts?: WorktreeStarts;
  /** How worktrees planned by this run's steps get their folders (--worktrees). */
  worktreeMode: WorktreeMode;
  /** Where agents' task folders go. */
  tasks: TaskFolders;
  /** What an `<ask>` does: wait for an answer (`pause`, `prompt`), or pause the agent (`reject`). */
  onAsk: OnAskMode;
  /** With tracing on: the variables that put the process an agent's step starts now under its span. */
  traceEnv?: (agentId: string) => Readonly<Record<string, string>> | undefined;
  /** The cost gate's forecasts (`--confirm-over`); absent: the gate never asks. */
  forecaster?: Forecaster;
  /** `--budget-hard` with a budget: stops the turns running as the run's cost reaches it; absent: turns run to their end. */
  budgetMeter?: BudgetMeter;
}

/** The debug-file opener for one step, if debug logs are on. */
export function stepDebug(
  deps: StepDependencies,
  agent: AgentRecord,
): (() => StepDebug) | undefined {
  const debug = deps.debug;
  return (
    debug &&
    (() => debug.step(agent.id, agent.state, isMarkdown(agent.state) ? 'markdown' : 'script'))
  );
}

/**
 * Whether the session's live process goes now: the agent does not go on in
 * it (result, reset) or waits for what may take long (an answer, a callee,
 * its workers) rather than only for a slot.
 */
export function endsWarmth(decision: ResolvedDecision): boolean {
  const { kind } = decision;
  if (kind === 'fork') return decision.join === true;
  return (
    kind === 'result' ||
    kind === 'reset' ||
    kind === 'ask' ||
    kind === 'call' ||
    kind === 'function'
  );
}

/**
 * New session ids to reserve after a step: the agent's own, then one per
 * forked worker whose first state is a markdown state (null for the others:
 * a script never starts a session, and the worker's own first step reserves
 * one for whatever it runs next). Resolved, so that a worker's target is the
 * state file it names (`W` as written may be `W.md`).
 */
export function freshSessions(decision: ResolvedDecision): (string | null)[] {
  const ids: (string | null)[] = [sessionId()];
  if (decision.kind === 'fork')
    for (const w of decision.workers) ids.push(isMarkdown(w.target) ? sessionId() : null);
  return ids;
}

/**
 * A new session id as one flat string. randomUUID builds its text by
 * concatenation, a rope of some 14 pieces that V8 keeps as it is: 490 bytes
 * of heap a held id instead of 66 (measured). toLowerCase leaves a lower-case
 * id as it is but flattens it.
 */
function sessionId(): string {
  return randomUUID().toLowerCase();
}
