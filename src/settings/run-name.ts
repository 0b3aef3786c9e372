/** Longest `--name` label: it has to fit in a terminal title. */
const MAX_NAME_LENGTH = 100;

/** What is wrong with a run's `--name` label, if anything: it is shown on one line of a terminal. */
export function runNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is empty';
  if (name.length > MAX_NAME_LENGTH)
    return `is ${name.length} characters long; at most ${MAX_NAME_LENGTH}`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name))
    return 'holds a control character (a newline, a tab, an escape...)';
  return undefined;
}
