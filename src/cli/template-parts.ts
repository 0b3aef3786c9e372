// The pieces every `raymond new` scaffold shares: the manifest, the README's layout and its
// closing checks, so the templates say the same thing the same way.

/** A template's files by path in the new folder; a `.sh` file is made executable. */
export type TemplateFiles = Record<string, string>;

/** The lines joined, with the final newline a file ends with. */
export const lines = (...text: string[]) => `${text.join('\n')}\n`;

/**
 * The folder's `workflow.yaml`. With it, the folder is laid out as a skill
 * package: the states in `states/` (where every `.md` and `.sh` file is a
 * state), the README beside them, not among them. `raymond NAME`, `lint`
 * and `diagram` open `states/`; `raymond serve` lists the workflow with
 * this name, description and input.
 */
export function manifest(
  name: string,
  description: string,
  input: { mode: string; label: string; description: string },
  budget: number,
): string {
  return lines(
    '# What `raymond serve` shows of this workflow; `raymond FOLDER` runs the states in states/.',
    `id: ${JSON.stringify(name)}`,
    `name: ${JSON.stringify(name)}`,
    `description: ${JSON.stringify(description)}`,
    'input:',
    `  mode: ${input.mode}`,
    `  label: ${JSON.stringify(input.label)}`,
    `  description: ${JSON.stringify(input.description)}`,
    `default_budget: ${budget.toFixed(2)}`,
  );
}

/** The README's part on the folder's layout. */
export const LAYOUT = [
  '## Files',
  '',
  '- `states/`: the states; the run starts at `START`. Every `.md` (a Claude Code turn) and `.sh` file in it is a state.',
  '- `workflow.yaml`: the name, description and input `raymond serve` shows.',
  '- `tests/`: a workflow test: scripted model replies and what the run must do.',
  '',
];

/** How the README of every scaffold ends: what to check before a first run. */
export function checking(cmd: string, name: string): string[] {
  return [
    '## Before a run',
    '',
    '```sh',
    `${cmd} lint ${name}      # targets, frontmatter, reachability: no run, no cost`,
    `${cmd} diagram ${name}   # the states and their transitions, as Mermaid`,
    `${cmd} test ${name}      # runs tests/*.test.yaml offline: scripted replies, no account, no cost`,
    '```',
    '',
    '`test` runs the real Claude Code against replies scripted in the test file and',
    'checks the paths, results and files; change a reply and it fails, naming the state.',
    '',
    'Each markdown state is a Claude Code turn; `--budget` (USD) stops the run from starting steps once it cost that much.',
  ];
}
