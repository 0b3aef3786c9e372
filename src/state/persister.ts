import { open, unlink, type FileHandle } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import { fromCallback } from 'xstate';
import { cleanDirty, stateFromStore, takeDirty, type RunStore } from '../../machines/run-store.js';
import type { PersisterEvent, SupervisorEvent } from '../../machines/supervisor.machine.js';
import { journalLine } from './journal.js';
import { journalFilePath } from './state-file.js';

/** Counts for the benchmark and tests. */
export interface PersisterStats {
  writes: number;
  bytes: number;
  snapshots: number;
}

/** A journal smaller than this is never worth compacting. */
const MIN_COMPACT_BYTES = 1 << 20;

/**
 * The persister actor. At most one write is in flight; versions that arrive
 * meanwhile are coalesced into the next one (group commit). A write appends
 * the changed records to `<id>.journal` and fsyncs it, so its size does not
 * grow with the number of agents; when the journal outgrows twice the
 * snapshot, and when the run ends, the whole state is written atomically to
 * `<id>.json` (temporary file, fsync, rename) and the journal is removed.
 */
export function createPersister(path: string, stats: PersisterStats = { writes: 0, bytes: 0, snapshots: 0 }) {
  const journalPath = journalFilePath(path);
  return fromCallback<PersisterEvent, { store: RunStore }>(({ receive, sendBack, input }) => {
    const store = input.store;
    let wanted = 0;
    let compact = true; // The first write is a snapshot: it may be a fresh run or a resume.
    let writing = false;
    let stopped = false;
    let seq = store.meta.journal_seq ?? 0;
    let snapshotBytes = 0;
    let journalBytes = 0;
    let journal: FileHandle | undefined;

    const snapshot = async () => {
      takeDirty(store);
      store.meta.journal_seq = seq;
      const text = `${JSON.stringify(stateFromStore(store), null, 1)}\n`;
      await writeFileAtomic(path, text, { fsync: true });
      // Only once the snapshot is durable may the journal it absorbed go.
      await journal?.close();
      journal = undefined;
      await unlink(journalPath).catch(() => {});
      snapshotBytes = Buffer.byteLength(text);
      journalBytes = 0;
      stats.snapshots++;
      return snapshotBytes;
    };

    const append = async () => {
      const dirty = takeDirty(store);
      try {
        const line = journalLine(store, dirty, ++seq);
        journal ??= await open(journalPath, 'a');
        await journal.write(line);
        await journal.datasync();
        journalBytes += Buffer.byteLength(line);
        return Buffer.byteLength(line);
      } catch (error) {
        // Nothing written is acknowledged; the next write must carry these changes again.
        for (const k of Object.keys(dirty) as Array<keyof typeof dirty>) dirty[k].forEach((v) => store.dirty[k].add(v));
        throw error;
      }
    };

    const pump = async () => {
      writing = true;
      while (!stopped && wanted > 0) {
        const version = wanted;
        wanted = 0;
        const full = compact || journalBytes > Math.max(MIN_COMPACT_BYTES, 2 * snapshotBytes);
        compact = false;
        try {
          stats.bytes += full ? await snapshot() : await append();
        } catch (error) {
          sendBack({ type: 'state.write_failed', error } satisfies SupervisorEvent);
          break;
        }
        stats.writes++;
        if (!stopped) sendBack({ type: 'state.persisted', version } satisfies SupervisorEvent);
      }
      writing = false;
    };
    receive((event) => {
      wanted = Math.max(wanted, event.version);
      if (event.compact) compact = true;
      if (!writing) void pump();
    });
    store.dirty = cleanDirty();
    return () => {
      stopped = true;
      void journal?.close();
    };
  });
}
