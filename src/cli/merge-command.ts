import { mergeRun } from '../merge/merge-run.js';
import { reportText } from '../merge/merge-report.js';
import { EXIT } from './exit-codes.js';
import { machineSettingValues } from '../settings/setting-values.js';

/** `raymond merge`'s options, as commander gives them. */
export interface MergeFlags {
  into: string;
  check?: string;
  json?: boolean;
  retries: number;
  deleteMerged?: boolean;
  stateDir: string;
  budget?: number;
  quiet?: boolean;
}

/**
 * `raymond merge RUN --into BRANCH`: the report on stdout (text or JSON),
 * progress on stderr. Exit 0 when every branch with commits was merged, 1
 * when any was left out, 130 when Ctrl-C stopped it (run it again to go on).
 */
export async function mergeCommand(
  id: string,
  flags: MergeFlags & Readonly<Record<string, unknown>>,
): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const report = await mergeRun({
      stateDir: flags.stateDir,
      workflowId: id,
      into: flags.into,
      check: flags.check,
      retries: flags.retries,
      deleteMerged: !!flags.deleteMerged,
      budgetUsd: flags.budget,
      machineSettings: machineSettingValues(flags),
      signal: stop.signal,
      say: (line) => {
        if (!flags.quiet) process.stderr.write(`${line}\n`);
      },
    });
    process.stdout.write(`${flags.json ? JSON.stringify(report) : reportText(report)}\n`);
    if (report.interrupted) return EXIT.interrupted;
    return report.left_out.length > 0 ? EXIT.failed : EXIT.completed;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
