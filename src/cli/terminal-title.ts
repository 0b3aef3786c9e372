import type { RunEvent } from '../../machines/run-events.js';

/** `START.md` -> `START`, `foo.bar.md` -> `foo.bar`: only the last extension goes. */
export function stateStem(state: string): string {
  const dot = state.lastIndexOf('.');
  return dot > 0 ? state.slice(0, dot) : state;
}

/**
 * Keeps the terminal's title on the state that started last, as `ray` does
 * (`ray: START`), with the OSC 2 sequence, which terminals that do not know
 * it ignore. Written to the terminal Raymond draws on (stderr), so stdout
 * stays the run's result; control characters in a state name are dropped,
 * so no name can end the sequence early.
 */
export function createTerminalTitle(stream: {
  write(text: string): unknown;
}): (e: RunEvent) => void {
  let last = '';
  let label = '';
  return (e) => {
    // A run with a --name says which run it is: `ray: nightly: START`.
    if (e.type === 'run.started') label = e.name ? `${e.name}: ` : '';
    if (e.type !== 'step.started') return;
    // eslint-disable-next-line no-control-regex
    const title = `ray: ${label}${stateStem(e.state)}`.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
    if (title === last) return;
    last = title;
    stream.write(`\u001b]2;${title}\u0007`);
  };
}
