import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { findPiSession, piSessionFolder } from '../pi/pi-sessions.js';
import type { PiOptions } from '../scope/backend-spec.js';
import { sha256, type BlobStore } from './blob-store.js';
import { isSafeSegment, safeSegment } from './safe-names.js';
import type { TranscriptRef } from './step-job.js';

/** Claude Code's folder: CLAUDE_CONFIG_DIR, else ~/.claude. */
function claudeDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude');
}

/**
 * Claude Code's project folder name for a directory (measured on 2.1.330):
 * every UTF-16 unit but a letter or a digit becomes `-`; a name over 200
 * characters is cut there and given a hash of the whole path.
 */
export function projectFolderName(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= 200) return name;
  let h = 0;
  for (let i = 0; i < cwd.length; i++) h = ((h << 5) - h + cwd.charCodeAt(i)) | 0;
  return `${name.slice(0, 200)}-${Math.abs(h).toString(36)}`;
}

/** Where Claude Code keeps the transcript of a session run in `cwd`. */
export function transcriptPath(
  cwd: string,
  session: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return join(claudeDir(env), 'projects', projectFolderName(cwd), `${session}.jsonl`);
}

/**
 * A worker's side of moving sessions between machines: before a turn, the
 * transcript of the session it continues is put where Claude Code (or pi)
 * looks for it (unless this worker has that very transcript already); after the
 * turn, the session's transcript goes back to the coordinator.
 */
export class SessionTranscripts {
  /** Session → hash of the transcript as this worker last left it. */
  private readonly mine = new Map<string, string>();

  /**
   * Places the transcripts a turn needs in `cwd`'s project folder. Returns
   * the sessions whose transcript changed elsewhere since this worker last
   * ran them: a live process kept for one of them is out of date.
   */
  async place(
    refs: readonly TranscriptRef[],
    cwd: string,
    blobs: BlobStore,
    pi?: PiOptions,
  ): Promise<string[]> {
    const stale: string[] = [];
    for (const ref of refs) {
      safeSegment(ref.id, 'a session id');
      if (ref.name !== undefined) safeSegment(ref.name, "a transcript's file name");
      // pi names its files <time>_<id>.jsonl, and finds them by that name in any folder of its own.
      const path = pi
        ? (findPiSession(ref.id, pi) ??
          join(piSessionFolder(cwd, pi), ref.name ?? `${ref.id}.jsonl`))
        : transcriptPath(cwd, ref.id);
      if (this.mine.get(ref.id) === ref.sha && existsSync(path)) continue;
      if (this.mine.has(ref.id)) stale.push(ref.id);
      const text = await blobs.get(ref.sha);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, text);
      this.mine.set(ref.id, ref.sha);
    }
    return stale;
  }

  /** The transcript of a session after a turn in `cwd`, if Claude Code wrote one. */
  async collect(
    session: string,
    cwd: string,
    pi?: PiOptions,
  ): Promise<{ id: string; text: string; name?: string } | undefined> {
    if (!isSafeSegment(session)) return undefined;
    const path = pi ? findPiSession(session, pi) : transcriptPath(cwd, session);
    if (path === undefined || !existsSync(path)) return undefined;
    const text = await readFile(path);
    this.mine.set(session, sha256(text));
    return { id: session, text: text.toString('utf8'), ...(pi ? { name: basename(path) } : {}) };
  }
}
