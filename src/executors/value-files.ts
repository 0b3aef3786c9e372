import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RaymondError } from '../errors.js';
import { createPrivateFolder, type PrivateFolder, type PrivateFolderKind } from '../scope/private-folder.js';
import { ENV_LIMITS, valuesForFiles, type EnvLimits } from './env-limits.js';

/** A step's environment once its large values are in files. */
export interface PlacedEnvironment {
  env: Record<string, string | undefined>;
  /** Removes the step's files: call it once the script has exited. */
  release(): Promise<void>;
}

/** Where a run's large values wait for the scripts that read them. */
export interface ValueFiles {
  /** Moves the values the environment cannot hold to files, named by `NAME_FILE`. */
  place(env: Readonly<Record<string, string | undefined>>): Promise<PlacedEnvironment>;
  /** Removes the run's folder. */
  close(): Promise<void>;
}

/** `$TMPDIR/raymond-values-<uid>/<pid>-<random>/`, made on the first large value of a run. */
export const VALUES_FOLDER: PrivateFolderKind = { name: 'values', purpose: 'for values too large for a script\'s environment', code: 'ERR_SCRIPT_START' };

const NO_FILES = async () => {};

/**
 * Keeps values that do not fit in a script's environment (env-limits.ts) out
 * of it: each goes to a file of its own (mode 0600) in a private folder of
 * the run, the variable is unset, and `NAME_FILE` names the file. Values that
 * fit stay variables, as always. `NAME_FILE` is never inherited from
 * Raymond's own environment (a nested run's), so a script can trust it.
 */
export function createValueFiles(options: { limits?: EnvLimits; inherited?: Readonly<Record<string, string | undefined>> } = {}): ValueFiles {
  const limits = options.limits ?? ENV_LIMITS;
  const inherited = options.inherited ?? process.env;
  // Found once, not per step: Raymond's own environment does not change during a run.
  const inheritedFiles = Object.keys(inherited).filter((k) => k.endsWith('_FILE') && inherited[k] !== undefined);
  let folder: Promise<PrivateFolder> | undefined;
  let count = 0;
  return {
    async place(env) {
      // No prototype: a variable named __proto__ (a fork attribute may be) is an ordinary key.
      const out: Record<string, string | undefined> = Object.assign(Object.create(null) as Record<string, string | undefined>, env);
      for (const file of inheritedFiles) if (Object.hasOwn(env, file.slice(0, -'_FILE'.length)) && !(file in env)) out[file] = undefined;
      const names = valuesForFiles(env, limits);
      if (names.size === 0) return { env: out, release: NO_FILES };
      const dir = (await (folder ??= createPrivateFolder(VALUES_FOLDER))).path;
      const paths: string[] = [];
      const release = async () => void (await Promise.all(paths.map((p) => rm(p, { force: true }))));
      const byValue = new Map<string, string>();
      for (const name of names) {
        const value = env[name]!;
        // RAYMOND_INPUT and RAYMOND_RESULT hold one value: one file serves both.
        let path = byValue.get(value);
        if (path === undefined) {
          path = join(dir, `${++count}-${name.replace(/[^\w.-]/g, '_')}`);
          paths.push(path);
          byValue.set(value, path);
          await writeFile(path, value, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
            await release();
            throw new RaymondError('ERR_SCRIPT_START', `cannot write the value of ${name} to a file: ${err.code ?? err.message}`, { file: path });
          });
        }
        out[name] = undefined;
        out[`${name}_FILE`] = path;
      }
      return { env: out, release };
    },
    async close() {
      const made = await folder?.catch(() => undefined);
      await made?.remove();
    },
  };
}
