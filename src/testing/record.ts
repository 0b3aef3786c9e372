import { readFile, readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { WorkflowState } from '../../machines/types.js';
import { RaymondError } from '../errors.js';
import { STATUS_EXIT } from '../runtime/status-exit.js';
import { readStateFile, stateFilePath } from '../state/state-file.js';
import { parseTransitions, streamFiles, type RunLog } from './record-log.js';
import type { RecordedTurn } from '../agents/agent-backend.js';
import { streamTurns } from './record-stream.js';
import { pathEntryText } from './path-entry.js';
import { stateStem } from './test-file.js';
import type { Answer, Expect, TestSpec, Turn } from './test-spec-schema.js';

/** A past run made into a test. */
export interface RecordedRun {
  spec: TestSpec;
  /** The run's workflow: its path, and whether it is a folder (then its `tests/` folder is the test's home). */
  workflow: { path: string; folder: boolean };
  /** When the run started (ISO 8601). */
  startedAt: string;
}

/**
 * Reads run `runId` from `stateDir` and its debug folder (`../debug/<id>/`
 * beside the state folder, as the run wrote it) and makes the test that
 * replays it: each markdown step's turns with their tool calls and tokens,
 * the asks' answers, the input and the options that change a run, and what
 * the run did as `expect:`.
 * @throws RaymondError ERR_RECORD naming the file at fault: no such run, a run not ended, no debug logs, a step's stream missing.
 */
export async function recordRun(stateDir: string, runId: string): Promise<RecordedRun> {
  const stateFile = stateFilePath(resolve(stateDir), runId);
  const state = await readStateFile(stateFile, runId).catch((err: unknown) => {
    if (err instanceof RaymondError)
      throw new RaymondError('ERR_RECORD', err.message, { file: err.file });
    throw err;
  });
  if (state.status === 'running')
    throw new RaymondError(
      'ERR_RECORD',
      `run ${runId} has not ended (it is running, or was stopped): let it end, or resume it, then record it`,
      { file: stateFile },
    );
  const debugDir = join(dirname(dirname(stateFile)), 'debug', runId);
  const log = parseTransitions(await readDebug(join(debugDir, 'transitions.log'), runId));
  const agents = [...new Set([...state.agents.map((a) => a.id), ...log.steps.map((s) => s.agent)])];
  const turns = await recordedTurns(debugDir, state, log, agents);
  const multi = agents.length > 1;
  const replies: Record<string, Turn[]> = {};
  for (const t of turns) (replies[t.stem] ??= []).push(turnOf(t, multi ? t.agent : undefined));
  const answers: Record<string, Answer[]> = {};
  for (const a of log.answers)
    (answers[stateStem(a.state)] ??= []).push(multi ? { agent: a.agent, text: a.text } : a.text);
  const spec: TestSpec = {
    ...(log.input !== undefined ? { input: log.input } : {}),
    ...flagsOf(state),
    ...(turns.length > 0 ? { replies } : {}),
    ...(log.answers.length > 0 ? { answers } : {}),
    expect: expectOf(state, log, agents),
  };
  const folder = state.scope.kind === 'dir';
  return {
    spec,
    workflow: { path: state.scope.path, folder },
    startedAt: state.started_at,
  };
}

async function readDebug(file: string, runId: string): Promise<string> {
  return readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new RaymondError(
      'ERR_RECORD',
      err.code === 'ENOENT'
        ? `run ${runId} has no debug log to record from (it ran with --no-debug, or its debug folder was removed)`
        : `cannot read it (${err.code ?? err.message})`,
      { file },
    );
  });
}

type StepTurn = RecordedTurn & { agent: string; stem: string };

/** Every markdown step's turns, in step order; each step the log names must have its stream. */
async function recordedTurns(
  debugDir: string,
  state: WorkflowState,
  log: RunLog,
  agents: string[],
): Promise<StepTurn[]> {
  const markdown = log.steps.filter((s) => !/\.(sh|bat|ps1)$/i.test(s.state));
  const stems = new Set(markdown.map((s) => stateStem(s.state)));
  const files = streamFiles(await readdir(debugDir), agents, stems);
  const cwd = new Map(state.agents.map((a) => [a.id, a.cwd]));
  const out: StepTurn[] = [];
  const count = new Map<string, number>();
  for (const f of files) {
    const key = `${f.agent}_${f.stem}`;
    count.set(key, (count.get(key) ?? 0) + 1);
    const text = await readFile(join(debugDir, f.name), 'utf8');
    if (text.includes('"raymond_debug"'))
      throw new RaymondError(
        'ERR_RECORD',
        "this step's stream was cut while the disk was behind: its turns cannot be replayed",
        { file: join(debugDir, f.name) },
      );
    const dir = cwd.get(f.agent) ?? dirname(debugDir);
    for (const t of streamTurns(text, dir)) out.push({ ...t, agent: f.agent, stem: f.stem });
  }
  const seen = new Map<string, number>();
  for (const s of markdown) {
    const key = `${s.agent}_${stateStem(s.state)}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if ((count.get(key) ?? 0) < n)
      throw new RaymondError(
        'ERR_RECORD',
        `the stream of ${s.agent}'s step ${n} of ${s.state} is missing (${key}_NNN.jsonl)`,
        { file: debugDir },
      );
  }
  return out;
}

/** A turn as the test file writes it: text alone when it has nothing else. */
function turnOf(t: RecordedTurn, agent: string | undefined): Turn {
  const tokens = t.tokens.input > 0 || t.tokens.output > 0;
  if (!agent && t.tools.length === 0 && !tokens) return t.text;
  return {
    ...(agent ? { agent } : {}),
    ...(t.tools.length > 0 ? { tools: t.tools } : {}),
    text: t.text,
    ...(tokens ? { tokens: t.tokens } : {}),
  };
}

/** The stored options that change what a replay does, by their config names. */
function flagsOf(state: WorkflowState): Pick<TestSpec, 'flags'> {
  const o = state.options;
  const flags: NonNullable<TestSpec['flags']> = {
    ...(o.budget_usd > 0 ? { budget: o.budget_usd } : {}),
    ...(o.model ? { model: o.model } : {}),
    ...(o.effort ? { effort: o.effort } : {}),
    ...(o.dangerously_skip_permissions ? { dangerously_skip_permissions: true } : {}),
  };
  return Object.keys(flags).length > 0 ? { flags } : {};
}

function expectOf(state: WorkflowState, log: RunLog, agents: string[]): Expect {
  // Agents in the order the run made them (main first), whatever order their steps ended in.
  const paths: Record<string, string[]> = {};
  const results: Record<string, string> = {};
  for (const id of agents) {
    // Each step with the kind of transition it took: a replay that leaves by another kind fails.
    const path = log.steps
      .filter((s) => s.agent === id)
      .map((s) => pathEntryText(stateStem(s.state), s.kind === 'failed' ? undefined : s.kind));
    if (path.length > 0) paths[id] = path;
    const result = state.results?.[id];
    if (result !== undefined && /\S/.test(result)) results[id] = result;
  }
  return {
    // A status the test format names as the run's own (see src/runtime/status-exit.ts).
    status: state.status as NonNullable<Expect['status']>,
    exit: STATUS_EXIT[state.status],
    paths,
    ...(Object.keys(results).length > 0 ? { results } : {}),
    agents: agents.length,
  };
}
