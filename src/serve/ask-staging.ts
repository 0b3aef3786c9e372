import type { AgentAsk } from '../../machines/types.js';
import { errorMessage } from '../errors.js';
import { projectRootOf } from '../task-folder-pattern.js';
import { readStateFile } from '../state/state-file.js';
import { DEFAULT_TASK_FOLDER_PATTERN, taskFolderPath } from '../task-folder-pattern.js';
import { affordanceOf } from './ask-affordance.js';
import { askFolder, readCatalog, stageDisplayFiles, type FileRecord } from './ask-files.js';
import type { ServedRun } from './served-run.js';

/** An ask's folder and what was staged in it. */
export interface Staged {
  dir: string;
  files: FileRecord[];
  problems: string[];
}

/** The agent id in an ask id: `ask_<agent id>_<epoch ms>`. */
function agentOfAsk(askId: string): string | undefined {
  const m = /^ask_(.+)_\d+$/.exec(askId);
  return m?.[1];
}

/** The task folder of an agent of a run, as its state file has it (or the default one). */
async function taskFolderOf(run: ServedRun, agentId: string): Promise<string> {
  const state = await readStateFile(run.stateFile, run.id).catch(() => undefined);
  const stored = state?.agents.find((a) => a.id === agentId)?.task_folder;
  return (
    stored ??
    taskFolderPath(
      projectRootOf(run.stateFile),
      state?.options.task_folder_pattern ?? DEFAULT_TASK_FOLDER_PATTERN,
      run.id,
      agentId,
      1,
    )
  );
}

/**
 * Stages the display files of asks as they are asked (on `ask.created`, and
 * on `ask.pending` after a restart, when the catalog already there is kept),
 * and finds the folder of an ask answered earlier, for its files.
 */
export class AskStaging {
  private readonly staged = new Map<string, Promise<Staged>>();

  constructor(private readonly say: (line: string) => void) {}

  private key(run: ServedRun, askId: string): string {
    return `${run.id}\n${askId}`;
  }

  /** Called for each ask of a run as it is asked: stages its files once. */
  onAsk(run: ServedRun, ask: AgentAsk): void {
    const key = this.key(run, ask.id);
    if (this.staged.has(key)) return;
    const work = (async () => {
      const folder = await taskFolderOf(run, ask.agent_id);
      const { files, problems } = await stageDisplayFiles(folder, ask.id, affordanceOf(ask.files));
      for (const p of problems) this.say(`run ${run.id}: ${p}`);
      return { dir: askFolder(folder, ask.id), files, problems };
    })().catch((err: unknown) => {
      const problem = `cannot stage the files of ask ${ask.id}: ${errorMessage(err)}`;
      this.say(`run ${run.id}: ${problem}`);
      return { dir: '', files: [], problems: [problem] };
    });
    this.staged.set(key, work);
  }

  /** What was staged for a pending ask (after its staging finished). */
  pending(run: ServedRun, askId: string): Promise<Staged> | undefined {
    return this.staged.get(this.key(run, askId));
  }

  /** The folder and catalog of any ask of a run (pending or answered), or undefined when it has none. */
  async find(
    run: ServedRun,
    askId: string,
  ): Promise<{ dir: string; files: FileRecord[] } | undefined> {
    const pending = this.staged.get(this.key(run, askId));
    if (pending) {
      const s = await pending;
      const files = s.dir ? await readCatalog(s.dir) : undefined;
      return { dir: s.dir, files: files ?? s.files };
    }
    const agent = agentOfAsk(askId);
    if (!agent || !run.agents.has(agent)) return undefined;
    const dir = askFolder(await taskFolderOf(run, agent), askId);
    const files = await readCatalog(dir);
    return files ? { dir, files } : undefined;
  }
}
