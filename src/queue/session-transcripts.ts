import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { BackendSpec } from '../executors/executor.js';
import { backendOf } from '../agents/registry/registry.js';
import { sha256, type BlobStore } from './blob-store.js';
import { isSafeSegment, safeSegment } from './safe-names.js';
import type { TranscriptRef } from './step-job.js';

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
    spec: BackendSpec | undefined,
  ): Promise<string[]> {
    const stale: string[] = [];
    const backend = backendOf(spec);
    for (const ref of refs) {
      safeSegment(ref.id, 'a session id');
      if (ref.name !== undefined) safeSegment(ref.name, "a transcript's file name");
      const path = backend.sessions.placeFor(
        ref.id,
        ref.name ?? `${ref.id}.jsonl`,
        cwd,
        spec?.options ?? {},
        process.env,
      );
      if (this.mine.get(ref.id) === ref.sha && existsSync(path)) continue;
      if (this.mine.has(ref.id)) stale.push(ref.id);
      const text = await blobs.get(ref.sha);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
      this.mine.set(ref.id, ref.sha);
    }
    return stale;
  }

  /** The transcript of a session after a turn in `cwd`, if Claude Code wrote one. */
  async collect(
    session: string,
    cwd: string,
    spec: BackendSpec | undefined,
  ): Promise<{ id: string; text: string; name: string } | undefined> {
    if (!isSafeSegment(session)) return undefined;
    const path = backendOf(spec).sessions.find(session, cwd, spec?.options ?? {}, process.env);
    if (path === undefined || !existsSync(path)) return undefined;
    const text = await readFile(path);
    this.mine.set(session, sha256(text));
    return { id: session, text: text.toString('utf8'), name: basename(path) };
  }
}
