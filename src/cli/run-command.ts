import type { RunEvent } from '../../machines/run-events.js';
import type { RunControl, RunOutcome } from '../runtime/run-types.js';
import { emptyProgress, trackProgress } from '../runtime/run-progress.js';
import { resumeWorkflow, startWorkflow } from '../runtime/start-run.js';
import { waitOutUsageLimits } from '../runtime/usage-limit-wait.js';
import type { Inspection } from '../inspect/inspection.js';
import { EXIT } from './exit-codes.js';
import { createLiveView } from './live-view.js';
import { createTerminalTitle } from './terminal-title.js';
import { createPlainReporter } from './progress.js';
import { eventLine } from './describe-event.js';
import { joinFinished, jsonSummary, summaryLine, type RunFinished } from './run-summary.js';
import { newRunSettings, notifyHooks, resumeOverrides, waitForLimits } from './flag-settings.js';
import { createAskPrompter, type AskPrompter } from './ask-prompter.js';
import { reportEnd, resumeCommand } from './run-end-report.js';
import { STATUS_EXIT } from '../runtime/status-exit.js';
import { askingObject, resumeCommand as answerCommand } from './ask-report.js';
import { askNotification, runNotification } from '../notify/notification.js';
import { createNotifier, type Notifier } from '../notify/notifier.js';
import type { CliContext } from './cli-context.js';
import { interruptHandlers, type Interrupts } from './interrupts.js';
import { startInspection } from './run-inspection.js';
import { openRunWorkflow, refuseAsking, type OpenedWorkflow } from './opened-workflow.js';
import { applyPackageManifest } from './package-manifest.js';
import { printForecast } from './run-forecast.js';
import { runForecaster } from '../plan/run-forecaster.js';

/** A notifier for the hooks the flags or the config file name, if any; its failures are warnings among the run's lines. */
function startNotifier(ctx: CliContext, show: (e: RunEvent) => void): Notifier | undefined {
  const { commands, urls } = notifyHooks(ctx.flags, ctx.config);
  if (commands.length === 0 && urls.length === 0) return undefined;
  return createNotifier({ commands, urls, warn: (text) => show({ type: 'warning', text }) });
}

/** `raymond PATH` and `raymond --resume ID`: runs a workflow and returns the exit code. */
export async function runCommand(ctx: CliContext): Promise<number> {
  const { flags } = ctx;
  // Opened once for the whole command: the ask check, the run and the live page's diagram share it.
  const workflow = await openRunWorkflow(
    ctx.path,
    flags.resume === undefined ? undefined : { stateDir: ctx.stateDir, workflowId: flags.resume },
  );
  try {
    await printForecast(ctx, workflow);
    // The run's controls, once it started: answering asks (the terminal prompt, the live page) and cancelling (the live page).
    const prompt: PromptSetup = { control: undefined, prompter: undefined, cancel: undefined };
    const liveControl = () =>
      prompt.control && prompt.cancel
        ? { answer: prompt.control.answer, cancel: prompt.cancel }
        : undefined;
    // Before the status area takes over the terminal; Ctrl-C while waiting for a viewer just ends the process.
    const inspection = await startInspection(flags, () => workflow.graph(), liveControl);
    // On a terminal that can move its cursor, a status area that never looks frozen; elsewhere (or --quiet) plain lines.
    const progress = emptyProgress();
    const live =
      process.stderr.isTTY && process.env.TERM !== 'dumb' && !ctx.quiet
        ? createLiveView({ stream: process.stderr, snapshot: () => progress, verbose: ctx.verbose })
        : undefined;
    const plain = createPlainReporter({ quiet: ctx.quiet, verbose: ctx.verbose });
    // --on-ask=prompt: questions are asked here; while one is on the screen, progress goes above it as plain lines.
    const show = (event: RunEvent) => {
      if (prompt.prompter) {
        const line = eventLine(event, ctx.verbose);
        if (line && !ctx.quiet) prompt.prompter.print(line.text);
      } else if (live) live.event(event);
      else plain(event);
    };
    const notifier = startNotifier(ctx, show);
    try {
      return await runAndReport(ctx, workflow, {
        inspection,
        progress,
        live,
        show,
        notifier,
        prompt,
      });
    } finally {
      // After the result and the summary are out: a slow hook holds only the exit, and at most CLOSE_BOUND_MS.
      await notifier?.close();
    }
  } finally {
    await workflow.dispose();
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
  inspection: Inspection | undefined;
  progress: ReturnType<typeof emptyProgress>;
  live: ReturnType<typeof createLiveView> | undefined;
  show: (e: RunEvent) => void;
  notifier: Notifier | undefined;
  prompt: PromptSetup;
}

/** Runs the workflow (waiting out usage limits), tells the hooks how it ended, prints the outcome and returns the exit code. */
async function runAndReport(
  ctx: CliContext,
  workflow: OpenedWorkflow,
  { inspection, progress, live, show, notifier, prompt }: RunSetup,
): Promise<number> {
  const answerHint = (workflowId: string) => answerCommand(workflowId, ctx.stateDirGiven);
  const asker = (): AskPrompter => {
    live?.stop();
    prompt.prompter ??= createAskPrompter({
      input: process.stdin,
      output: process.stderr,
      answer: (askId, text) => prompt.control?.answer(askId, text),
    });
    return prompt.prompter;
  };
  let finished: RunFinished | undefined;
  // The first part's: it names the run's workflow and label for the notifications.
  let started: Extract<RunEvent, { type: 'run.started' }> | undefined;
  // Only on a terminal: the sequence would be noise in a log file or a pipe.
  const title = live ? createTerminalTitle(process.stderr) : undefined;
  let onAsk: string | undefined;
  const onEvent = (event: RunEvent) => {
    if (event.type === 'run.started') onAsk = event.onAsk;
    trackProgress(progress, event);
    title?.(event);
    if (event.type === 'run.started') started ??= event;
    if (onAsk === 'prompt' && (event.type === 'ask.created' || event.type === 'ask.pending'))
      asker().add(event.ask);
    // An ask answered on the live page (or timed out) is no longer asked here.
    if (event.type === 'ask.answered')
      prompt.prompter?.withdraw(
        event.askId,
        event.expired ? 'ran out of time' : 'was answered on the live page',
      );
    if (event.type === 'ask.created' && notifier && started) {
      notifier.send(
        askNotification(event.ask, {
          runId: started.workflowId,
          workflow: started.workflow,
          name: started.name,
          resume: answerHint(started.workflowId),
        }),
      );
    }
    if (event.type === 'run.finished') finished = joinFinished(finished, event);
    show(event);
    inspection?.event(event);
  };
  const signals = interruptHandlers(() => live?.stop());
  prompt.cancel = signals.cancel;
  let outcome: RunOutcome;
  try {
    outcome = await runParts(ctx, workflow, signals, {
      stateDir: ctx.stateDir,
      onEvent,
      drain: signals.drain,
      kill: signals.kill,
      inspect: inspection?.observer,
      onControl: (c: RunControl) => (prompt.control = c),
      forecaster: runForecaster,
    });
  } finally {
    live?.stop();
    prompt.prompter?.close();
    await inspection?.close();
    signals.dispose();
  }
  const asking = outcome.status === 'asking';
  // Once per command, for how it ended: a part that paused on a usage limit and was waited out is not an end.
  if (notifier && finished && started) {
    const notification = runNotification(
      finished,
      {
        runId: outcome.workflowId,
        workflow: started.workflow,
        name: started.name,
        resume: asking ? answerHint(outcome.workflowId) : resumeCommand(outcome.workflowId, ctx),
      },
      outcome.results,
    );
    if (notification) notifier.send(notification);
  }
  if (asking) {
    // As ray: the question on stdout, with or without --json, for a caller's loop to read.
    const report = {
      runId: outcome.workflowId,
      workflow: outcome.workflow,
      asks: outcome.asks,
      resume: answerHint(outcome.workflowId),
    };
    process.stdout.write(
      `${JSON.stringify(askingObject(report, ctx.json ? jsonSummary(outcome, progress.denials) : undefined))}\n`,
    );
  } else if (ctx.json)
    process.stdout.write(`${JSON.stringify(jsonSummary(outcome, progress.denials))}\n`);
  else if (outcome.status === 'completed' && outcome.results.main !== undefined)
    process.stdout.write(`${outcome.results.main}\n`);
  const interrupted = signals.drain.aborted || signals.kill.aborted;
  await reportEnd(
    ctx,
    outcome,
    finished && !ctx.quiet ? summaryLine(finished, progress, interrupted) : undefined,
  );
  if (interrupted) return signals.terminated() ? EXIT.terminated : EXIT.interrupted;
  return STATUS_EXIT[outcome.status];
}

/** Starts or resumes the run, then waits out its usage limits (unless --no-wait), resuming it each time. */
async function runParts(
  ctx: CliContext,
  workflow: OpenedWorkflow,
  signals: Interrupts,
  common: Omit<Parameters<typeof resumeWorkflow>[0], 'workflowId' | 'overrides'>,
): Promise<RunOutcome> {
  const { flags } = ctx;
  const resume = (workflowId: string, answers: boolean) =>
    resumeWorkflow({
      ...common,
      workflowId,
      overrides: resumeOverrides(flags, ctx.config),
      allowChanges: !!flags.allowChanges,
      interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
      ...(answers ? { answers: { input: flags.input, byId: flags.answer } } : {}),
    });
  let first: RunOutcome;
  if (flags.resume !== undefined) first = await resume(flags.resume, true);
  else {
    const settings = await applyPackageManifest(
      ctx.path!,
      flags,
      ctx.config,
      newRunSettings(flags, ctx.config),
    );
    await refuseAsking(workflow, ctx.path!, settings);
    first = await startWorkflow({
      ...common,
      path: ctx.path!,
      scope: workflow.scope,
      input: flags.input,
      workflowId: flags.workflowId,
      cwd: process.cwd(),
      settings,
      continueSession: flags.continueSession,
    });
  }
  if (!waitForLimits(flags, ctx.config)) return first;
  return waitOutUsageLimits(first, {
    resume: (workflowId) => resume(workflowId, false),
    signal: signals.drain,
    onWait: (until) =>
      process.stderr.write(
        `raymond: every live agent hit a usage limit; waiting until ${until.toLocaleString()} (${until.toISOString()}) to continue. Ctrl-C stops waiting; --no-wait ends the run as paused instead.\n`,
      ),
  });
}
