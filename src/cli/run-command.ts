import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findConfigFile, readConfig, type ConfigValues, type QueueConfigValues } from '../config/config-file.js';
import type { RunEvent } from '../../machines/run-events.js';
import { timerDelay } from '../timer-delay.js';
import type { Inspection } from '../inspect/inspection.js';
import type { RunOutcome } from '../runtime/compose-run.js';
import { emptyProgress, trackProgress, type PermissionDenial } from '../runtime/run-progress.js';
import { resumeWorkflow, startWorkflow } from '../runtime/start-run.js';
import { resumeSpecifier } from '../scope/scope.js';
import { readStateFile, stateFilePath } from '../state/state-file.js';
import { EXIT } from './exit-codes.js';
import { createLiveView } from './live-view.js';
import { createTerminalTitle } from './terminal-title.js';
import { DEFAULT_INSPECT_PORT } from './options.js';
import { createPlainReporter } from './progress.js';
import { eventLine } from './describe-event.js';
import { joinFinished, summaryLine, type RunFinished } from './run-summary.js';
import { newRunSettings, notifyHooks, resumeOverrides, waitForLimits, type CliFlags } from './settings.js';
import { statesThatAsk } from '../analysis/ask-scan.js';
import { RaymondError } from '../errors.js';
import type { RunSettings } from '../runtime/run-settings.js';
import type { RunControl } from '../runtime/compose-run.js';
import type { LiveControl } from '../web/live-routes.js';
import { createAskPrompter, type AskPrompter } from './ask-prompter.js';
import { askingObject, resumeCommand as answerCommand } from './ask-report.js';
import { askNotification, runNotification } from '../notify/notification.js';
import { mergedInto, readMergeState } from '../merge/merge-state.js';
import { createNotifier, type Notifier } from '../notify/notifier.js';

/** How long past a usage limit's reset the run waits: a reset told to the minute may lift a few seconds late. */
const RESET_MARGIN_MS = 5_000;

/**
 * Refuses, before anything runs, a workflow that can ask when no answer can
 * come (`--on-ask=reject`): it would only get as far as its first question.
 */
async function refuseAsking(path: string, settings: RunSettings): Promise<void> {
  if (settings.onAsk !== 'reject') return;
  const asking = await statesThatAsk(path).catch(() => [] as string[]);
  if (asking.length === 0) return;
  throw new RaymondError('ERR_ASK_REJECTED', `${asking.join(', ')} can ask a question (<ask>), and nobody can answer here (--on-ask=reject, the default without a terminal): run it with --on-ask=pause (it exits 2 when it asks; answer with --resume ID --input TEXT), or at a terminal`, { file: path });
}

/** JSON printed by `--json`. */
export function jsonSummary(outcome: Partial<RunOutcome> & { status: string; error?: string }, denials: readonly PermissionDenial[] = []): string {
  const out: Record<string, unknown> = {
    workflow_id: outcome.workflowId ?? null,
    status: outcome.status,
    total_cost_usd: outcome.totalCostUsd ?? 0,
    results: outcome.results ?? {},
    permission_denials: denials,
  };
  if (outcome.error !== undefined) out.error = outcome.error;
  if (outcome.worktrees?.length) {
    out.worktrees = outcome.worktrees.map(worktreeJson);
    const pool = outcome.worktreePool;
    if (pool) out.worktree_pool = { created: pool.created, reused: pool.reused, peak_alive: pool.peakAlive };
  }
  return JSON.stringify(out);
}

function worktreeJson(w: RunOutcome['worktrees'][number]) {
  return {
    agent: w.agent, branch: w.branch, base: w.base, mode: w.mode ?? 'off', sparse: w.sparse ?? null, path: w.path ?? null,
    commits: w.commits ?? null, diffstat: w.diffstat ?? null, dirty: w.dirty ?? null, saved: w.saved ?? null, removed: w.removed ?? false,
    ...(w.pushed ? { pushed: w.pushed } : {}),
  };
}

const pooledRef = (w: RunOutcome['worktrees'][number]) => w.mode === 'keep-ignored' || w.mode === 'clean';

/** The head of the worktree summary: what the pool cost, when there was one. */
export function worktreeHeader(outcome: Pick<RunOutcome, 'worktrees' | 'worktreePool'>): string {
  const pool = outcome.worktreePool;
  if (!outcome.worktrees.some(pooledRef) || pool.peakAlive === 0) return 'worktrees:';
  return `worktrees (${outcome.worktrees.length} branches; pooled folders: at most ${pool.peakAlive} alive, ${pool.created} checked out, reused ${pool.reused} times):`;
}

/** One line per worktree: branch, commits and diffstat, or what became of it (`merged`: where `raymond merge` took each agent's branch). */
export function worktreeLines(worktrees: RunOutcome['worktrees'], merged: ReadonlyMap<string, string> = new Map()): string[] {
  return worktrees.map((w) => {
    if (w.removed) return `  ${w.agent}: ${w.branch} had no changes; ${pooledRef(w) ? 'branch deleted' : 'worktree and branch removed'}`;
    if (w.commits === undefined) return `  ${w.agent}: ${w.branch} ${w.path === undefined ? '(not started)' : `(still working) at ${w.path}`}`;
    const changes = w.diffstat ? `, ${w.diffstat}` : '';
    const left = w.saved ? `; it left uncommitted work, saved as commit ${w.saved.slice(0, 10)}` : w.dirty ? ', uncommitted changes' : '';
    // A pooled folder went on to another agent, or the folder is on a worker: the branch is where the work is.
    const where = w.pushed ? `; pushed to ${w.pushed}` : pooledRef(w) ? '' : ` at ${w.path}`;
    const into = merged.has(w.agent) ? `; merged into ${merged.get(w.agent)}` : '';
    return `  ${w.agent}: ${w.branch}: ${w.commits} commit${w.commits === 1 ? '' : 's'}${changes}${left}${where}${into}`;
  });
}

/** The config file that applies here, if any. */
export function loadConfig(cwd: string): ConfigValues & { queue?: QueueConfigValues } {
  const path = findConfigFile(cwd);
  if (!path) return {};
  const { values, queue, warnings } = readConfig(path);
  for (const w of warnings) process.stderr.write(`raymond: warning: ${path}: ${w}\n`);
  // As [raymond.serve]'s folders: relative to the project folder, the one holding .raymond.
  return { ...values, queue: queue.secret_file === undefined ? queue : { ...queue, secret_file: resolve(dirname(dirname(path)), queue.secret_file) } };
}

/**
 * Ctrl-C once: start nothing new and let running steps finish. Twice (or
 * SIGTERM, or the live page's cancel button): kill every step now. The run
 * stays resumable either way. `terminated` says a SIGTERM came, whose exit
 * code (143) differs from Ctrl-C's (130).
 */
function interruptHandlers(beforeMessage: () => void) {
  const drain = new AbortController();
  const kill = new AbortController();
  let terminated = false;
  const onInt = () => {
    beforeMessage();
    if (!drain.signal.aborted) {
      process.stderr.write('\nraymond: interrupted; letting running steps finish (Ctrl-C again to kill them). Resume later with --resume.\n');
      drain.abort();
    } else {
      process.stderr.write('\nraymond: killing every step. The state file keeps the run.\n');
      kill.abort();
    }
  };
  const stopAll = (why: string) => {
    beforeMessage();
    process.stderr.write(`\nraymond: ${why}; stopping every step (the state file keeps the run)\n`);
    drain.abort();
    kill.abort();
  };
  const onTerm = () => {
    terminated = true;
    stopAll('terminated (SIGTERM)');
  };
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return { drain: drain.signal, kill: kill.signal, terminated: () => terminated, cancel: () => stopAll('cancelled from the live page'), dispose: () => (process.off('SIGINT', onInt), process.off('SIGTERM', onTerm)) };
}

/**
 * Opens the relay and/or trace the flags ask for, prints where to look, and
 * with --inspect-wait holds the run until a browser opened a page. The live
 * page's URL comes first: it works offline, the Stately inspector does not.
 */
async function startInspection(flags: CliFlags, workflowPath: () => Promise<string | undefined>, control: () => LiveControl | undefined): Promise<Inspection | undefined> {
  if (flags.inspect === undefined && flags.trace === undefined) return undefined;
  const port = flags.inspect === undefined ? undefined : typeof flags.inspect === 'number' ? flags.inspect : DEFAULT_INSPECT_PORT;
  // Loaded only when asked for: the inspector's libraries are not small.
  const { openInspection } = await import('../inspect/inspection.js');
  const diagram = async () => {
    const path = await workflowPath();
    if (path === undefined) return undefined;
    const [{ loadWorkflowGraph }, { diagramSvgFile }] = await Promise.all([import('../analysis/workflow-graph.js'), import('../analysis/diagram-html.js')]);
    return diagramSvgFile(await loadWorkflowGraph(path));
  };
  const inspection = await openInspection({ port, trace: flags.trace, full: !!flags.inspectFull, agents: flags.inspectAgents, live: { diagram, control } });
  if (inspection.page) {
    process.stderr.write(`raymond: inspector relay on 127.0.0.1:${port}: open ${inspection.page.liveUrl} to watch the agent machines (Raymond's live view, works offline), or ${inspection.page.url} for the Stately inspector (needs internet)\n`);
    if (flags.inspectWait) {
      process.stderr.write('raymond: waiting for the inspector page to connect (Ctrl-C to give up)\n');
      await inspection.page.viewer();
    }
  }
  return inspection;
}

/** The command that goes on with a run, as the end of a run and its notifications show it. */
function resumeCommand(workflowId: string, flags: CliFlags): string {
  return `raymond --resume ${workflowId}${flags.stateDirGiven ? ` --state-dir ${flags.stateDir}` : ''}`;
}

/** A notifier for the hooks the flags or the config file name, if any; its failures are warnings among the run's lines. */
function startNotifier(flags: CliFlags, config: ConfigValues, show: (e: RunEvent) => void): Notifier | undefined {
  const { commands, urls } = notifyHooks(flags, config);
  if (commands.length === 0 && urls.length === 0) return undefined;
  return createNotifier({ commands, urls, warn: (text) => show({ type: 'warning', text }) });
}

/** `raymond PATH` and `raymond --resume ID`: runs a workflow and returns the exit code. */
export async function runCommand(path: string | undefined, flags: CliFlags): Promise<number> {
  const config = loadConfig(process.cwd());
  flags.verbose ??= config.verbose;
  const stateDir = resolve(flags.stateDir!);
  // The run's controls, once it started: answering asks (the terminal prompt, the live page) and cancelling (the live page).
  const prompt: PromptSetup = { control: undefined, prompter: undefined, cancel: undefined };
  const liveControl = () => (prompt.control && prompt.cancel ? { answer: prompt.control.answer, cancel: prompt.cancel } : undefined);
  // Before the status area takes over the terminal; Ctrl-C while waiting for a viewer just ends the process.
  // A resumed run's workflow is the one its state file names.
  const resumed = flags.resume;
  const workflowPath = async () => (resumed === undefined ? path : resumeSpecifier((await readStateFile(stateFilePath(stateDir, resumed), resumed)).scope));
  const inspection = await startInspection(flags, workflowPath, liveControl);
  // On a terminal that can move its cursor, a status area that never looks frozen; elsewhere (or --quiet) plain lines.
  const progress = emptyProgress();
  const live = process.stderr.isTTY && process.env.TERM !== 'dumb' && !flags.quiet ? createLiveView({ stream: process.stderr, snapshot: () => progress, verbose: !!flags.verbose }) : undefined;
  const plain = createPlainReporter({ quiet: !!flags.quiet, verbose: !!flags.verbose });
  // --on-ask=prompt: questions are asked here; while one is on the screen, progress goes above it as plain lines.
  const show = (e: RunEvent) => {
    if (prompt.prompter) {
      const line = eventLine(e, !!flags.verbose);
      if (line && !flags.quiet) prompt.prompter.print(line.text);
    } else if (live) live.event(e);
    else plain(e);
  };
  const notifier = startNotifier(flags, config, show);
  try {
    return await runAndReport(path, flags, config, { stateDir, inspection, progress, live, show, notifier, prompt });
  } finally {
    // After the result and the summary are out: a slow hook holds only the exit, and at most CLOSE_BOUND_MS.
    await notifier?.close();
  }
}

/** The run's control (to answer asks), its cancel (the live page's button), and the terminal's prompter once an ask came (`--on-ask=prompt`). */
interface PromptSetup {
  control: RunControl | undefined;
  prompter: AskPrompter | undefined;
  cancel: (() => void) | undefined;
}

/** What runCommand set up for the run. */
interface RunSetup {
  stateDir: string;
  inspection: Inspection | undefined;
  progress: ReturnType<typeof emptyProgress>;
  live: ReturnType<typeof createLiveView> | undefined;
  show: (e: RunEvent) => void;
  notifier: Notifier | undefined;
  prompt: PromptSetup;
}

/** Runs the workflow (waiting out usage limits), tells the hooks how it ended, prints the outcome and returns the exit code. */
async function runAndReport(path: string | undefined, flags: CliFlags, config: ConfigValues, { stateDir, inspection, progress, live, show, notifier, prompt }: RunSetup): Promise<number> {
  const asker = (): AskPrompter => {
    live?.stop();
    prompt.prompter ??= createAskPrompter({ input: process.stdin, output: process.stderr, answer: (askId, text) => prompt.control?.answer(askId, text) });
    return prompt.prompter;
  };
  let finished: RunFinished | undefined;
  // The first part's: it names the run's workflow and label for the notifications.
  let started: Extract<RunEvent, { type: 'run.started' }> | undefined;
  // Only on a terminal: the sequence would be noise in a log file or a pipe.
  const title = live ? createTerminalTitle(process.stderr) : undefined;
  let onAsk: string | undefined;
  const onEvent = (e: RunEvent) => {
    if (e.type === 'run.started') onAsk = e.onAsk;
    trackProgress(progress, e);
    title?.(e);
    if (e.type === 'run.started') started ??= e;
    if (onAsk === 'prompt' && (e.type === 'ask.created' || e.type === 'ask.pending')) asker().add(e.ask);
    // An ask answered on the live page (or timed out) is no longer asked here.
    if (e.type === 'ask.answered') prompt.prompter?.withdraw(e.askId, e.expired ? 'ran out of time' : 'was answered on the live page');
    if (e.type === 'ask.created' && notifier && started) {
      const run = { runId: started.workflowId, workflow: started.workflow, name: started.name, resume: answerCommand(started.workflowId, flags.stateDirGiven ? flags.stateDir : undefined) };
      notifier.send(askNotification(e.ask, run));
    }
    if (e.type === 'run.finished') finished = joinFinished(finished, e);
    show(e);
    inspection?.event(e);
  };
  const signals = interruptHandlers(() => live?.stop());
  prompt.cancel = signals.cancel;
  const common = { stateDir, onEvent, drain: signals.drain, kill: signals.kill, inspect: inspection?.observer, onControl: (c: RunControl) => (prompt.control = c) };
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const resumeRequest = (workflowId: string, answers: boolean) => ({
    ...common,
    workflowId,
    overrides: resumeOverrides(flags, config),
    allowChanges: !!flags.allowChanges,
    interactive,
    ...(answers ? { answers: { input: flags.input, byId: flags.answer } } : {}),
  });
  let outcome: RunOutcome;
  try {
    if (flags.resume !== undefined) {
      outcome = await resumeWorkflow(resumeRequest(flags.resume, true));
    } else {
      const settings = newRunSettings(flags, config);
      await refuseAsking(path!, settings);
      outcome = await startWorkflow({ ...common, path: path!, input: flags.input, workflowId: flags.workflowId, cwd: process.cwd(), settings, continueSession: flags.continueSession });
    }
    while (outcome.waitUntil !== undefined && waitForLimits(flags, config) && !signals.drain.aborted) {
      // A little past the reset: a limit given to the minute, in words or a timestamp, may lift a little late.
      outcome.waitUntil += RESET_MARGIN_MS;
      const until = new Date(outcome.waitUntil);
      process.stderr.write(`raymond: every live agent hit a usage limit; waiting until ${until.toLocaleString()} (${until.toISOString()}) to continue. Ctrl-C stops waiting; --no-wait ends the run as paused instead.\n`);
      // In steps Node's timers can hold: a reset weeks away must not wake the run at once.
      while (Date.now() < outcome.waitUntil && !signals.drain.aborted) {
        await sleep(timerDelay(outcome.waitUntil - Date.now()), undefined, { signal: signals.drain }).catch(() => {});
      }
      if (signals.drain.aborted) break;
      outcome = await resumeWorkflow(resumeRequest(outcome.workflowId, false));
    }
  } finally {
    live?.stop();
    prompt.prompter?.close();
    await inspection?.close();
    signals.dispose();
  }
  const asking = outcome.status === 'asking';
  // Once per command, for how it ended: a part that paused on a usage limit and was waited out is not an end.
  if (notifier && finished && started) {
    const notification = runNotification(finished, { runId: outcome.workflowId, workflow: started.workflow, name: started.name, resume: asking ? answerCommand(outcome.workflowId, flags.stateDirGiven ? flags.stateDir : undefined) : resumeCommand(outcome.workflowId, flags) }, outcome.results);
    if (notification) notifier.send(notification);
  }
  if (asking) {
    // As ray: the question on stdout, with or without --json, for a caller's loop to read.
    const report = { runId: outcome.workflowId, workflow: outcome.workflow, asks: outcome.asks, resume: answerCommand(outcome.workflowId, flags.stateDirGiven ? flags.stateDir : undefined) };
    process.stdout.write(`${JSON.stringify(askingObject(report, flags.json ? JSON.parse(jsonSummary(outcome, progress.denials)) as Record<string, unknown> : undefined))}\n`);
  } else if (flags.json) process.stdout.write(`${jsonSummary(outcome, progress.denials)}\n`);
  else if (outcome.status === 'completed' && outcome.results.main !== undefined) process.stdout.write(`${outcome.results.main}\n`);
  // A script of the run may have merged its branches (`raymond merge`), with resolution turns charged to the run.
  const merge = outcome.worktrees.length > 0 ? await readMergeState(dirname(outcome.stateFile), outcome.workflowId).catch(() => undefined) : undefined;
  if (outcome.worktrees.length > 0 && !flags.quiet) process.stderr.write(`${worktreeHeader(outcome)}\n${worktreeLines(outcome.worktrees, mergedInto(merge)).join('\n')}\n`);
  if (merge && merge.total_cost_usd > 0 && !flags.quiet) process.stderr.write(`raymond merge: ${merge.turns.length} resolution turn(s), $${merge.total_cost_usd.toFixed(4)}, on top of the steps' cost below (raymond --status ${outcome.workflowId} shows the total)\n`);
  if (outcome.error !== undefined) process.stderr.write(`raymond: ${outcome.error}\n`);
  const interrupted = signals.drain.aborted || signals.kill.aborted;
  if (finished && !flags.quiet) process.stderr.write(`${summaryLine(finished, progress, interrupted)}\n`);
  if (asking) {
    for (const a of outcome.asks) process.stderr.write(`[${a.agent_id}] asks (${a.id}): ${a.prompt.split('\n')[0]}\n`);
    process.stderr.write(`answer with: ${answerCommand(outcome.workflowId, flags.stateDirGiven ? flags.stateDir : undefined)}${outcome.asks.length > 1 ? ' (the oldest ask), or --answer ASK_ID=TEXT' : ''}\n`);
  } else if (outcome.status !== 'completed') {
    process.stderr.write(`resume with: ${resumeCommand(outcome.workflowId, flags)}\n`);
  }
  if (flags.verbose) {
    const w = outcome.stateWrites;
    process.stderr.write(`state file ${outcome.stateFile}: ${w.writes} writes (${w.snapshots} snapshots), ${w.bytes} bytes\n`);
  }
  if (interrupted) return signals.terminated() ? EXIT.terminated : EXIT.interrupted;
  if (asking) return EXIT.asking;
  if (outcome.status === 'budget_exceeded') return EXIT.budgetExceeded;
  if (outcome.status === 'paused') return EXIT.paused;
  return outcome.status === 'completed' ? EXIT.completed : EXIT.failed;
}
