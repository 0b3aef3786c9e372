import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RaymondError } from '../errors.js';
import {
  createPrivateFolder,
  type PrivateFolder,
  type PrivateFolderKind,
} from '../private-folder.js';
import { ENV_LIMITS, planEnvironment, type EnvLimits } from './env-limits.js';

/** A step's environment once its large values are in files. */
export interface PlacedEnvironment {
  env: Record<string, string | undefined>;
  /** Removes the step's files: call it once the script has exited. */
  release(): Promise<void>;
}

/** Where a run's large values wait for the scripts that read them. */
export interface ValueFiles {
  /**
   * Moves the values the environment cannot hold to files, named by
   * `NAME_FILE`. An environment that cannot fit however its values are
   * placed (a name too long for any variable; so many variables that their
   * `NAME_FILE`s alone are over the limit) is refused with ERR_SCRIPT_START
   * about `where`, the state file, before anything is written.
   */
  place(
    env: Readonly<Record<string, string | undefined>>,
    where?: string,
  ): Promise<PlacedEnvironment>;
  /** Removes the run's folder. */
  close(): Promise<void>;
}

/** `$TMPDIR/raymond-values-<uid>/<pid>-<random>/`, made on the first large value of a run. */
export const VALUES_FOLDER: PrivateFolderKind = {
  name: 'values',
  purpose: "for values too large for a script's environment",
  code: 'ERR_SCRIPT_START',
};

const NO_FILES = async () => {};

/** Most characters of a variable's name in its value file's name: the file system takes 255 bytes. */
const NAME_IN_FILE = 64;

/**
 * The longest path of a value file: the private folder
 * (`$TMPDIR/raymond-values-<user>/<pid>-<random>`, the user name being at
 * most 32 bytes), then `<count>-<name>`.
 */
const FILE_PATH_BYTES =
  Buffer.byteLength(tmpdir()) +
  '/raymond-values-'.length +
  32 +
  '/-'.length +
  10 +
  6 +
  '/-'.length +
  10 +
  NAME_IN_FILE;

/** A name as a message shows it: a 200,000-character one is cut. */
function shown(name: string): string {
  return name.length > 40 ? `${name.slice(0, 40)}… (${name.length} characters)` : name;
}

/**
 * Keeps values that do not fit in a script's environment (env-limits.ts) out
 * of it: each goes to a file of its own (mode 0600) in a private folder of
 * the run, the variable is unset, and `NAME_FILE` names the file. Values that
 * fit stay variables, as always. `NAME_FILE` is never inherited from
 * Raymond's own environment (a nested run's), so a script can trust it.
 */
export function createValueFiles(
  options: { limits?: EnvLimits; inherited?: Readonly<Record<string, string | undefined>> } = {},
): ValueFiles {
  const limits = options.limits ?? ENV_LIMITS;
  const inherited = options.inherited ?? process.env;
  // Found once, not per step: Raymond's own environment does not change during a run.
  const inheritedFiles = Object.keys(inherited).filter(
    (k) => k.endsWith('_FILE') && inherited[k] !== undefined,
  );
  let folder: Promise<PrivateFolder> | undefined;
  let count = 0;
  return {
    async place(env, where) {
      // No prototype: a variable named __proto__ (a fork attribute may be) is an ordinary key.
      const out: Record<string, string | undefined> = Object.assign(
        Object.create(null) as Record<string, string | undefined>,
        env,
      );
      for (const file of inheritedFiles)
        if (Object.hasOwn(env, file.slice(0, -'_FILE'.length)) && !(file in env))
          out[file] = undefined;
      const plan = planEnvironment(env, limits, FILE_PATH_BYTES);
      if (plan.tooLong !== undefined) {
        throw new RaymondError(
          'ERR_SCRIPT_START',
          `cannot pass the variable ${shown(plan.tooLong)} to the script: its name is too long for an environment variable (at most ${limits.entryBytes} bytes with its value's file path); use a shorter fork attribute name`,
          { file: where },
        );
      }
      if (plan.bytes > limits.totalBytes) {
        const count = Object.values(env).filter((v) => v !== undefined).length;
        throw new RaymondError(
          'ERR_SCRIPT_START',
          `cannot start the script: its ${count} variables (fork attributes count twice: as NAME and RAYMOND_ATTR_NAME) take ${plan.bytes} bytes of environment even with their values in files, over the ${limits.totalBytes} a step may use; fork with fewer attributes, or pass them in input="..."`,
          { file: where },
        );
      }
      const names = plan.files;
      if (names.size === 0) return { env: out, release: NO_FILES };
      const dir = (await (folder ??= createPrivateFolder(VALUES_FOLDER))).path;
      const paths: string[] = [];
      const release = async () =>
        void (await Promise.all(paths.map((p) => rm(p, { force: true }))));
      const byValue = new Map<string, string>();
      for (const name of names) {
        const value = env[name]!;
        // RAYMOND_INPUT and RAYMOND_RESULT hold one value: one file serves both.
        let path = byValue.get(value);
        if (path === undefined) {
          path = join(dir, `${++count}-${name.slice(0, NAME_IN_FILE).replace(/[^\w.-]/g, '_')}`);
          paths.push(path);
          byValue.set(value, path);
          await writeFile(path, value, { mode: 0o600, flag: 'wx' }).catch(
            async (err: NodeJS.ErrnoException) => {
              await release();
              throw new RaymondError(
                'ERR_SCRIPT_START',
                `cannot write the value of ${shown(name)} to ${path}: ${err.code ?? err.message}`,
                { file: where },
              );
            },
          );
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
