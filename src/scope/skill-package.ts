import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The manifest that describes a served workflow, and makes a folder with `states/` a skill package. */
export const MANIFEST = 'workflow.yaml';

/**
 * The folder whose states a workflow folder runs. A skill package (a folder
 * with a `workflow.yaml` and a `states/` folder beside its `run.sh` and
 * `SKILL.md`) runs its `states/`; any other folder, and anything that is not
 * a folder, is returned as given. `raymond serve`, `raymond PATH`, `lint`
 * and `diagram` all ask this one function, so a package runs the same way
 * from each of them.
 */
export async function statesFolder(dir: string): Promise<string> {
  if (!existsSync(join(dir, MANIFEST))) return dir;
  const states = join(dir, 'states');
  return (await stat(states).catch(() => undefined))?.isDirectory() ? states : dir;
}
