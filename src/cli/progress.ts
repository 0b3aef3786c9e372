import type { RunEventSink } from '../../machines/run-events.js';
import { eventLine } from './describe-event.js';

/** Prints a run's events to stderr, one line each; `quiet` keeps only warnings. */
export function createPlainReporter(options: {
  quiet: boolean;
  verbose: boolean;
  write?: (text: string) => void;
}): RunEventSink {
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  return (event) => {
    const line = eventLine(event, options.verbose);
    if (line && (!options.quiet || line.warning)) write(`${line.text}\n`);
  };
}
