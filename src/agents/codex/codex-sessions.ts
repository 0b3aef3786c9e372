import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { BackendSessions } from '../agent-backend.js';
import { readUsage, type CodexUsage } from './codex-stream.js';

/** codex's own folder: CODEX_HOME, else ~/.codex (codex refuses a CODEX_HOME that does not exist). */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
}

/** `rollout-2026-11-27T19-04-43-<thread id>.jsonl`: the day's folders come from its date. */
const ROLLOUT = /^rollout-(\d{4})-(\d{2})-(\d{2})T\d{2}-\d{2}-\d{2}-(.+)\.jsonl$/;

const subfolders = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
        .reverse()
    : [];

/** Every rollout file under `$CODEX_HOME/sessions/YYYY/MM/DD/`, newest day first, as the folders are read. */
function* rolloutFiles(env: NodeJS.ProcessEnv): Generator<string> {
  const root = join(codexHome(env), 'sessions');
  for (const y of subfolders(root))
    for (const m of subfolders(join(root, y)))
      for (const d of subfolders(join(root, y, m))) {
        const dir = join(root, y, m, d);
        for (const f of readdirSync(dir)) if (ROLLOUT.test(f)) yield join(dir, f);
      }
}

/** The rollout file of thread `id` on this machine, if there is one. */
export function findCodexSession(
  id: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const suffix = `-${id}.jsonl`;
  for (const f of rolloutFiles(env)) if (f.endsWith(suffix)) return f;
  return undefined;
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * Where the rollout of thread `id` goes so codex resumes it: the file it
 * has already (overwritten, so no stale copy is found first), else
 * `name`'s day folder, else today's with a name of codex's form. codex
 * finds a copied rollout by its name in any day folder, in a CODEX_HOME of
 * its own or one whose sqlite state never saw the thread, and a stale copy
 * overwritten is read afresh (measured on 0.171); a file named otherwise
 * is not found.
 */
export function codexSessionPlace(
  id: string,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const found = findCodexSession(id, env);
  if (found) return found;
  const root = join(codexHome(env), 'sessions');
  const m = ROLLOUT.exec(name);
  if (m && m[4] === id && !name.includes('/')) return join(root, m[1]!, m[2]!, m[3]!, name);
  const t = new Date();
  const [y, mo, d] = [String(t.getFullYear()), two(t.getMonth() + 1), two(t.getDate())];
  const stamp = `${y}-${mo}-${d}T${two(t.getHours())}-${two(t.getMinutes())}-${two(t.getSeconds())}`;
  return join(root, y, mo, d, `rollout-${stamp}-${id}.jsonl`);
}

/** Reads `length` bytes of `file` from `position`. */
function readBytes(file: string, position: number, length: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const n = readSync(fd, buf, 0, length, position);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** The first line of a rollout (`session_meta`, with codex's whole instructions: tens of kB), parsed. */
function sessionMeta(file: string): Record<string, unknown> | undefined {
  const size = statSync(file).size;
  for (let length = 65_536; ; length *= 4) {
    const text = readBytes(file, 0, Math.min(length, size)).toString('utf8');
    const nl = text.indexOf('\n');
    if (nl < 0 && length < size) continue;
    try {
      const meta = JSON.parse(nl < 0 ? text : text.slice(0, nl)) as { payload?: unknown };
      return meta.payload as Record<string, unknown> | undefined;
    } catch {
      return undefined;
    }
  }
}

/** The id of the newest codex thread (by its file's last change) begun in `cwd`, for `--continue-session`. */
export function latestCodexSession(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const newest = [...rolloutFiles(env)]
    .map((f) => ({ f, at: statSync(f).mtimeMs }))
    .sort((a, b) => b.at - a.at)
    .find(({ f }) => sessionMeta(f)?.cwd === cwd);
  return newest ? ROLLOUT.exec(newest.f.slice(newest.f.lastIndexOf('/') + 1))![4] : undefined;
}

/** What a rollout says of its thread so far: the cumulative usage of its last `token_count`, the model of its last turn. */
export interface RolloutState {
  usage?: CodexUsage;
  model?: string;
}

/** Reads a rollout's end, backwards, for its last usage and model (the whole file only when its tail holds neither). */
export function rolloutState(file: string): RolloutState {
  const size = statSync(file).size;
  const out: RolloutState = {};
  for (let length = Math.min(262_144, size); ; length = size) {
    const lines = readBytes(file, size - length, length)
      .toString('utf8')
      .split('\n');
    if (length < size) lines.shift(); // cut in the middle
    for (const line of lines.reverse()) {
      if (out.usage && out.model) return out;
      if (!line.includes('"token_count"') && !line.includes('"turn_context"')) continue;
      try {
        const { type, payload } = JSON.parse(line) as {
          type?: string;
          payload?: Record<string, unknown>;
        };
        const info = payload?.info as Record<string, unknown> | null | undefined;
        if (!out.usage && type === 'event_msg' && payload?.type === 'token_count' && info)
          out.usage = readUsage(info.total_token_usage) ?? undefined;
        if (!out.model && type === 'turn_context' && typeof payload?.model === 'string')
          out.model = payload.model;
      } catch {
        // A line being written, or not codex's: the one before it will do.
      }
    }
    if ((out.usage && out.model) || length === size) return out;
  }
}

/** The thread a rollout's first line says it was forked from. */
function baseOfMeta(meta: Record<string, unknown> | undefined): string | undefined {
  const base = (meta?.history_base as Record<string, unknown> | undefined)?.thread_id;
  if (typeof base === 'string') return base;
  return typeof meta?.forked_from_id === 'string' ? meta.forked_from_id : undefined;
}

/**
 * The parent thread of a rollout, from its text (its first line): a forked
 * thread's rollout holds only its own turns and points at its parent's
 * (`history_base`), and codex refuses to resume it without that file
 * ("invalid paginated history lineage ... missing source rollout",
 * measured), so a fork's file travels with its parents'.
 */
export function codexBaseOf(text: string): string | undefined {
  const nl = text.indexOf('\n');
  try {
    const meta = JSON.parse(nl < 0 ? text : text.slice(0, nl)) as { payload?: unknown };
    return baseOfMeta(meta.payload as Record<string, unknown> | undefined);
  } catch {
    return undefined;
  }
}

/** Where Codex keeps its sessions, for a session moving between machines and folders. */
export const CODEX_SESSIONS: BackendSessions = {
  find: (id, _cwd, _options, env) => findCodexSession(id, env),
  placeFor: (id, name, _cwd, _options, env) => codexSessionPlace(id, name, env),
  baseOf: codexBaseOf,
};
