/** The templates `raymond new --template` offers; the first is the default. */
export const TEMPLATE_NAMES = ['fork-join', 'review-loop', 'batch-refactor'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** A template's files by path in the new folder; a `.sh` file is made executable. */
export type TemplateFiles = Record<string, string>;

const lines = (...text: string[]) => `${text.join('\n')}\n`;

/**
 * The folder's `workflow.yaml`. With it, the folder is laid out as a skill
 * package: the states in `states/` (where every `.md` and `.sh` file is a
 * state), the README beside them, not among them. `raymond NAME`, `lint`
 * and `diagram` open `states/`; `raymond serve` lists the workflow with
 * this name, description and input.
 */
function manifest(
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
const LAYOUT = [
  '## Files',
  '',
  '- `states/`: the states; the run starts at `START`. Every `.md` (a Claude Code turn) and `.sh` file in it is a state.',
  '- `workflow.yaml`: the name, description and input `raymond serve` shows.',
  '',
];

/** How the README of every scaffold ends: what to check before a first run. */
function checking(cmd: string, name: string): string[] {
  return [
    '## Before a run',
    '',
    '```sh',
    `${cmd} lint ${name}      # targets, frontmatter, reachability: no run, no cost`,
    `${cmd} diagram ${name}   # the states and their transitions, as Mermaid`,
    '```',
    '',
    'Each markdown state is a Claude Code turn; `--budget` (USD) stops the run from starting steps once it cost that much.',
  ];
}

function forkJoin(name: string, cmd: string): TemplateFiles {
  return {
    'states/START.md': lines(
      '---',
      '# START splits the task and forks one worker per part; COLLECT.md runs once they all ended.',
      'allowed_transitions:',
      '  - { tag: fork, target: WORKER.md }',
      '  - { tag: join, target: COLLECT.md }',
      '---',
      'Split this task into two to five parts that can be done independently: {{input}}',
      '',
      'Write one fork tag per part, then one join tag, all in one reply, like this',
      'for two parts:',
      '',
      '<fork part="the first part, in one line">WORKER.md</fork>',
      '<fork part="the second part, in one line">WORKER.md</fork>',
      '<join>COLLECT.md</join>',
      '',
      'Do not do the parts yourself.',
    ),
    'states/WORKER.md': lines(
      '---',
      '# Each worker has a fresh session; {{part}} is the attribute its fork tag gave it.',
      'allowed_transitions:',
      '  - { tag: result }',
      '---',
      'You are worker {{agent_id}}. Your part of a larger task: {{part}}',
      '',
      'Do this part only. When you are done, reply with',
      '<result>one or two lines: what you found or did</result>',
    ),
    'states/COLLECT.md': lines(
      '---',
      "# The parent goes on here, in START's session, once every worker has ended.",
      'allowed_transitions:',
      '  - { tag: result }',
      '---',
      'Your workers have ended. Their results, one JSON object per worker in the',
      'order you forked them (`attributes.part`, `status`, then `result` or `error`):',
      '',
      '{{input}}',
      '',
      'Combine them into one answer to the task; name any part that failed. Reply with',
      '<result>the combined answer</result>',
    ),
    'README.md': lines(
      `# ${name}`,
      '',
      'A fork-join workflow: `START.md` splits the task given as input into parts and',
      'forks one worker (`WORKER.md`) per part; the workers run in parallel, each in',
      'its own session; `COLLECT.md` then gets all their results and combines them.',
      '',
      '## Run it',
      '',
      '```sh',
      `${cmd} ${name} --input "compare three ways of caching HTTP responses" --budget 1`,
      '```',
      '',
      'The combined answer is printed on stdout; progress goes to stderr.',
      '',
      ...LAYOUT,
      ...checking(cmd, name),
    ),
    'workflow.yaml': manifest(
      name,
      'Splits a task into parts, works on them in parallel, and combines the results.',
      { mode: 'required', label: 'Task', description: 'The task to split into parts.' },
      1,
    ),
  };
}

function reviewLoop(name: string, cmd: string): TemplateFiles {
  return {
    'states/START.md': lines(
      '---',
      '# The reviewer runs on haiku; without a model here the session would stay on it.',
      'model: sonnet',
      'allowed_transitions:',
      '  - { tag: goto, target: REVIEW.md }',
      '---',
      'Write a first draft of the following to `draft.md`: {{input}}',
      '',
      'STOP after writing draft.md; the review happens in the next step. Then reply',
      'with <goto>REVIEW.md</goto>',
    ),
    'states/REVIEW.md': lines(
      '---',
      '# The reviewer reads; it changes nothing.',
      'tools: [Read, Grep, Glob]',
      'model: haiku',
      'allowed_transitions:',
      '  - { tag: goto, target: REVISE.md }',
      '  - { tag: result }',
      '---',
      'Review `draft.md` strictly: correctness, clarity, length.',
      '',
      '- If anything needs fixing, list the problems, then reply with <goto>REVISE.md</goto>',
      '- If it is ready, reply with <result>approved</result>',
    ),
    'states/REVISE.md': lines(
      '---',
      '# The reviewer runs on haiku; without a model here the session would stay on it.',
      'model: sonnet',
      'allowed_transitions:',
      '  - { tag: goto, target: REVIEW.md }',
      '---',
      'Fix the problems you just listed in `draft.md`. STOP after saving it; the',
      'next review happens in the next step. Then reply with <goto>REVIEW.md</goto>',
    ),
    'README.md': lines(
      `# ${name}`,
      '',
      'A review loop: `START.md` writes `draft.md` from the input, `REVIEW.md` (a',
      'read-only reviewer) either approves it or lists problems, and `REVISE.md`',
      'fixes them and sends the draft back for review, until it is approved.',
      '',
      '## Run it',
      '',
      'The loop can go on for a while: give it a budget.',
      '',
      '```sh',
      `${cmd} ${name} --input "a one-page guide to our release process" --budget 0.50`,
      '```',
      '',
      '`draft.md` is written in the folder you run it from; the run prints `approved`.',
      '',
      ...LAYOUT,
      ...checking(cmd, name),
    ),
    'workflow.yaml': manifest(
      name,
      'Writes a draft, then reviews and revises it until the reviewer approves it.',
      { mode: 'required', label: 'Subject', description: 'What the draft is about.' },
      0.5,
    ),
  };
}

function batchRefactor(name: string, cmd: string): TemplateFiles {
  return {
    'states/START.sh': lines(
      '#!/usr/bin/env bash',
      '# Forks one worker per target, each on its own git branch in a worktree folder,',
      '# then joins them: MERGE.sh runs once every worker has ended, with their results.',
      '# Targets come from --input (separated by spaces, commas or new lines) or, without',
      '# input, from targets.txt in the folder raymond runs in.',
      'set -euo pipefail',
      'if [ -n "${RAYMOND_INPUT:-}" ]; then',
      `  targets=$(printf '%s' "$RAYMOND_INPUT" | tr ',\\n' '  ')`,
      'elif [ -f targets.txt ]; then',
      `  targets=$(grep -v '^[[:space:]]*#' targets.txt | tr '\\n' ' ')`,
      'else',
      '  echo "give the targets with --input or in targets.txt" >&2',
      '  exit 2',
      'fi',
      'count=0',
      'for target in $targets; do',
      '  count=$((count + 1))',
      '  echo "<fork worktree=\\"$target\\" target=\\"$target\\">WORKER.md</fork>"',
      'done',
      'if [ "$count" -eq 0 ]; then',
      '  echo "<result>no targets: nothing to do</result>"',
      'else',
      '  echo "<print>dispatched $count workers</print>"',
      '  echo "<join>MERGE.sh</join>"',
      'fi',
    ),
    'states/WORKER.md': lines(
      '---',
      '# Enough to refactor and commit, nothing more: no --dangerously-skip-permissions needed.',
      'tools: [Read, Edit, Write, "Bash(git *)", "Bash(./check.sh)"]',
      'allowed_transitions:',
      '  - { tag: result }',
      '---',
      'You are working in a git worktree at {{worktree}}, on branch {{branch}}, which',
      'was made for you alone.',
      '',
      'Apply the refactoring described in `refactor.md` (at the top of the',
      'repository) to `{{target}}` only. Do not touch other files.',
      '',
      "Then run the project's checks (`./check.sh` if it exists) and fix what they",
      'report. When they pass, commit your change on this branch with the message',
      '`refactor: {{target}}`. If `{{target}}` needs no change, commit nothing.',
      '',
      'When you are done, reply with <result>one line: what you changed in {{target}}</result>',
    ),
    'states/MERGE.sh': lines(
      '#!/usr/bin/env bash',
      '# Runs once every worker has ended: merges their branches into one, each merge',
      '# checked with ./check.sh when the repository has one; a conflict or a failed check',
      "# goes back to the worker's session to fix. The report is the run's result.",
      'set -uo pipefail',
      'into="raymond/$RAYMOND_WORKFLOW_ID/merged"',
      `workers=$(printf '%s' "$RAYMOND_INPUT" | grep -o '"agent":' | wc -l | tr -d ' ')`,
      'check=()',
      '[ -x ./check.sh ] && check=(--check ./check.sh)',
      'report=$("$RAYMOND_BIN" merge "$RAYMOND_WORKFLOW_ID" --into "$into" "${check[@]}" --state-dir "$RAYMOND_STATE_DIR" --delete-merged --quiet)',
      'code=$?',
      '# 1: some branch was left out (the report says which and why); anything else is merge failing.',
      '[ "$code" -gt 1 ] && exit "$code"',
      'echo "<result>$workers workers. $report</result>"',
    ),
    'README.md': lines(
      `# ${name}`,
      '',
      'A batch refactor: `START.sh` forks one Claude Code worker (`WORKER.md`) per',
      'target, each on its own git branch in its own worktree folder; once all have',
      'ended, `MERGE.sh` merges their branches into `raymond/<run id>/merged`.',
      '',
      '## Run it',
      '',
      'In the git repository to refactor, describe the change in `refactor.md` at its',
      'top, optionally add a `check.sh` that must pass after each change, then:',
      '',
      '```sh',
      `${cmd} ${name} --input "src/a.ts src/b.ts src/c.ts" --budget 2`,
      '```',
      '',
      'Without `--input`, the targets are read from `targets.txt` (one per line).',
      'The run prints the merge report; the branch `raymond/<run id>/merged` holds the result.',
      '',
      ...LAYOUT,
      ...checking(cmd, name),
    ),
    'workflow.yaml': manifest(
      name,
      'Applies refactor.md to each target on its own branch, then merges the branches.',
      {
        mode: 'optional',
        label: 'Targets',
        description: 'Files or folders, separated by spaces or commas (default: targets.txt).',
      },
      2,
    ),
  };
}

/** The files of `template` for a workflow named `name`, with `cmd` (ray or raymond) in its README. */
export function templateFiles(template: TemplateName, name: string, cmd: string): TemplateFiles {
  if (template === 'review-loop') return reviewLoop(name, cmd);
  if (template === 'batch-refactor') return batchRefactor(name, cmd);
  return forkJoin(name, cmd);
}
