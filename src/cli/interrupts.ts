/** The handlers of a run's signals: Ctrl-C, SIGTERM, and the live page's cancel button. */
export type Interrupts = ReturnType<typeof interruptHandlers>;

/**
 * Ctrl-C once: start nothing new and let running steps finish. Twice (or
 * SIGTERM, or the live page's cancel button): kill every step now. The run
 * stays resumable either way. `terminated` says a SIGTERM came, whose exit
 * code (143) differs from Ctrl-C's (130).
 */
export function interruptHandlers(beforeMessage: () => void) {
  const drain = new AbortController();
  const kill = new AbortController();
  let terminated = false;
  const onInt = () => {
    beforeMessage();
    if (!drain.signal.aborted) {
      process.stderr.write(
        '\nraymond: interrupted; letting running steps finish (Ctrl-C again to kill them). Resume later with --resume.\n',
      );
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
  return {
    drain: drain.signal,
    kill: kill.signal,
    terminated: () => terminated,
    cancel: () => stopAll('cancelled from the live page'),
    dispose: () => (process.off('SIGINT', onInt), process.off('SIGTERM', onTerm)),
  };
}
