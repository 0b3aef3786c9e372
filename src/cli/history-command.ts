import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { RaymondError } from '../errors.js';
import { historyRoot } from '../history/history-paths.js';
import { pruneHistory } from '../history/history-prune.js';
import { rebuildHistory } from '../history/history-rebuild.js';
import { historyKeys, readWorkflowHistory } from '../history/history-store.js';
import { projectRootOf } from '../task-folder-pattern.js';
import { defaultStateDir } from './cli-context.js';
import { jsonError, type CliResult } from './dispatch.js';
import { EXIT } from './exit-codes.js';
import { integer } from './options.js';

interface HistoryFlags {
  prune?: boolean;
  keep?: number;
  olderThan?: number;
  rebuild?: boolean;
  json?: boolean;
  stateDir?: string;
}

const DAY_MS = 86_400_000;

/** Adds `raymond history`: where the run history is and how big, `--prune` to bound it, `--rebuild` to make it again. */
export function addHistoryCommand(program: Command, result: CliResult): void {
  program
    .command('history')
    .description(
      "the project's run history (.raymond/history/, read by raymond stats and raymond plan): its workflows and runs; --prune bounds it",
    )
    .option(
      '--prune',
      'remove the runs outside --keep and --older-than (default: keep the newest 1000 runs of each workflow)',
    )
    .addOption(
      new Option('--keep <runs>', 'with --prune: the newest runs kept per workflow').argParser(
        integer(0),
      ),
    )
    .addOption(
      new Option(
        '--older-than <days>',
        'with --prune: remove runs last seen more than this many days ago',
      ).argParser(integer(1)),
    )
    .option(
      '--rebuild',
      'make the history again from the state files and debug logs of the runs (turns, tokens and CPU time are lost)',
    )
    .option('--json', 'the answer as JSON on stdout')
    .option('--state-dir <dir>', 'folder of state files (default: .raymond/state of the project)')
    .action(async (opts: HistoryFlags) => {
      result.jsonError = opts.json ? jsonError : null;
      result.exitCode = await historyCommand(opts);
    });
}

async function historyCommand(opts: HistoryFlags): Promise<number> {
  const project = projectRootOf(join(opts.stateDir ?? defaultStateDir(), 'run.json'));
  const out = (json: object, text: string) =>
    process.stdout.write(opts.json ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);
  if ((opts.keep !== undefined || opts.olderThan !== undefined) && !opts.prune)
    throw new RaymondError('ERR_HISTORY', '--keep and --older-than go with --prune');
  if (opts.prune && opts.rebuild)
    throw new RaymondError('ERR_HISTORY', 'give --prune or --rebuild, not both');
  if (opts.rebuild) {
    await rm(historyRoot(project), { recursive: true, force: true });
    const runs = await rebuildHistory(project);
    out(
      { rebuilt: runs },
      `rebuilt the history of ${runs} run${runs === 1 ? '' : 's'} from their state files`,
    );
    return EXIT.completed;
  }
  if (opts.prune) {
    const bounds = {
      keep: opts.keep ?? (opts.olderThan === undefined ? 1000 : undefined),
      olderThanMs: opts.olderThan === undefined ? undefined : opts.olderThan * DAY_MS,
    };
    const r = await pruneHistory(project, bounds);
    out(
      r,
      `pruned ${r.workflows} workflow${r.workflows === 1 ? '' : 's'}: ${r.runsRemoved} run${r.runsRemoved === 1 ? '' : 's'} removed, ${r.runsKept} kept; ${r.bytesBefore} -> ${r.bytesAfter} bytes`,
    );
    return EXIT.completed;
  }
  const workflows = [];
  for (const key of historyKeys(project)) {
    const h = await readWorkflowHistory(project, key);
    if (h)
      workflows.push({
        key,
        workflow: h.workflow,
        path: h.path,
        runs: h.runCount,
        steps: Object.values(h.states).reduce((a, s) => a + s.steps, 0),
      });
  }
  out(
    { history: historyRoot(project), workflows },
    [
      `history: ${historyRoot(project)}`,
      ...workflows.map(
        (w) =>
          `${w.key}  ${w.runs} run${w.runs === 1 ? '' : 's'}, ${w.steps} step${w.steps === 1 ? '' : 's'}  ${w.path}`,
      ),
    ].join('\n'),
  );
  return EXIT.completed;
}
