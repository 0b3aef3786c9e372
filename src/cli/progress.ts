import type { Reporter } from '../runtime/reporter.js';

/** Prints progress to stderr, one line per event; `quiet` keeps only warnings. */
export function createStderrReporter(options: { quiet: boolean; verbose: boolean }): Reporter {
  const line = (text: string) => process.stderr.write(`${text}\n`);
  const progress = options.quiet ? () => {} : line;
  return {
    started: (agentId, state) => progress(`[${agentId}] running ${state}`),
    step: progress,
    print: (agentId, text) => progress(`[${agentId}] ${text}`),
    warn: (text) => line(`warning: ${text}`),
    debug: options.verbose ? line : () => {},
  };
}
