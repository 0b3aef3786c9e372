import { closeSync, fdatasync, ftruncateSync, openSync, unlinkSync } from 'node:fs';
import { fromCallback } from 'xstate';
import { errorText } from '../../machines/step-failure.js';
import { cleanDirty, takeDirty, type Dirty, type RunStore } from '../../machines/run-store.js';
import type { PersisterEvent, SupervisorEvent } from '../../machines/supervisor.machine.js';
import { writeAllSync } from './append-file.js';
import { journalParts, noteWritten, type WrittenStacks } from './journal.js';
import { snapshotParts, writeAtomically } from './snapshot-write.js';
import { journalFilePath } from './state-file.js';
import { DISK_FULL_HINT, isDiskFull } from '../make-folders.js';

/** Counts for the benchmark and tests. */
export interface PersisterStats {
  writes: number;
  bytes: number;
  snapshots: number;
}

/** A journal smaller than this is never worth compacting. */
const MIN_COMPACT_BYTES = 1 << 20;
/** Most time between a journal line's write and the fdatasync that makes it survive a power cut. */
const SYNC_MS = 25;

/** Puts changes taken for a write that did not happen back, so the next write carries them. */
function restoreDirty(store: RunStore, dirty: Dirty): void {
  const { widths, ...sets } = dirty;
  for (const k of Object.keys(sets) as Array<keyof typeof sets>)
    sets[k].forEach((v) => store.dirty[k].add(v));
  store.dirty.widths ||= widths;
}

/**
 * The persister actor. Versions that arrive in one turn of the event loop
 * are written together (group commit): the changed records are appended to
 * `<id>.journal` as one line with a synchronous write, so the line is in the
 * file, where a killed Raymond cannot lose it, before `state.persisted` lets
 * any agent go on; its size does not grow with the number of agents, nor
 * with the depth of their return stacks (only the frames pushed or popped
 * since the last write are in it: src/state/journal.ts). The
 * journal is flushed to the disk (fdatasync) in the background at most 25 ms
 * after a write, so a power cut loses at most that much, which runs again on
 * resume. A write that fails or is cut short is cut off the journal again,
 * so no later line can land on a torn one, and the run stops, resumable.
 * When the journal outgrows twice the snapshot, and when the run ends, the
 * changes first go to the journal and then the whole state is written
 * atomically to `<id>.json` (temporary file, fsync, rename) and the journal
 * is removed; so a run whose last snapshot cannot be written still ends
 * with what it did on disk, and says so.
 */
export function createPersister(
  path: string,
  stats: PersisterStats = { writes: 0, bytes: 0, snapshots: 0 },
  warn: (text: string) => void = () => {},
) {
  const journalPath = journalFilePath(path);
  return fromCallback<PersisterEvent, { store: RunStore }>(({ receive, sendBack, input }) => {
    const store = input.store;
    let wanted = 0;
    let compact = false;
    let scheduled = false;
    let snapshotting = false;
    let stopped = false;
    let failed = false;
    let seq = store.meta.journal_seq ?? 0;
    let snapshotBytes = 0;
    /** Journal size past which the next compaction is tried, after one failed. */
    let retryCompactAt = 0;
    let journalBytes = 0;
    let journal: number | undefined;
    let syncTimer: NodeJS.Timeout | undefined;
    let syncing = false;
    const written: WrittenStacks = new Map();
    /** The run's options as the state file on disk has them (snapshot and journal folded). */
    let writtenOptions: string | undefined;

    const closeJournal = () => {
      clearTimeout(syncTimer);
      syncTimer = undefined;
      if (journal !== undefined && !syncing) closeSync(journal);
      journal = undefined;
    };

    const fail = (error: unknown, file: string) => {
      if (failed) return;
      failed = true;
      const code = (error as NodeJS.ErrnoException).code;
      const text = `${file}: cannot write the state file: ${code ? `${code}: ` : ''}${errorText(error).replace(/^\w+: /, '')}${isDiskFull(error) ? DISK_FULL_HINT : ''}`;
      if (!stopped)
        sendBack({ type: 'state.write_failed', error: new Error(text) } satisfies SupervisorEvent);
    };

    /** One fdatasync at a time, covering every line written before it began. */
    const syncSoon = () => {
      syncTimer ??= setTimeout(() => {
        syncTimer = undefined;
        const fd = journal;
        if (fd === undefined || syncing) return;
        syncing = true;
        fdatasync(fd, (error) => {
          syncing = false;
          if (journal !== fd) closeSync(fd); // Compacted away meanwhile.
          if (error) fail(error, journalPath);
        });
      }, SYNC_MS);
    };

    const snapshot = async () => {
      takeDirty(store);
      store.meta.journal_seq = seq;
      const parts = snapshotParts(store);
      const options = JSON.stringify(store.meta.options);
      // A failed snapshot fails the run, so nothing is ever written on top of these.
      written.clear();
      for (const a of store.agents.values()) noteWritten(written, a.id, a.stack);
      await writeAtomically(path, parts);
      writtenOptions = options;
      // Only once the snapshot is durable may the journal it absorbed go.
      closeJournal();
      try {
        unlinkSync(journalPath);
      } catch {
        // There was none yet.
      }
      snapshotBytes = parts.reduce((n, part) => n + Buffer.byteLength(part), 0);
      journalBytes = 0;
      retryCompactAt = 0;
      stats.snapshots++;
      return snapshotBytes;
    };

    const append = () => {
      const dirty = takeDirty(store);
      const options = JSON.stringify(store.meta.options);
      let size = 0;
      try {
        journal ??= openSync(journalPath, 'a');
        for (const part of journalParts(store, dirty, ++seq, written, options !== writtenOptions)) {
          writeAllSync(journal, part);
          size += Buffer.byteLength(part);
        }
      } catch (error) {
        // Nothing written is acknowledged: cut a torn line off, and let the next write carry these changes again.
        seq--;
        restoreDirty(store, dirty);
        try {
          if (journal !== undefined) ftruncateSync(journal, journalBytes);
        } catch {
          // The torn line stays, but nothing is appended after it: the run stops here, and a resume drops it.
        }
        throw error;
      }
      journalBytes += size;
      writtenOptions = options;
      for (const id of dirty.agents) noteWritten(written, id, store.agents.get(id)?.stack ?? null);
      syncSoon();
      return size;
    };

    /**
     * Folds the journal into a new snapshot, once the changes are safe in the
     * journal: a snapshot that cannot be written (a full disk) costs a
     * warning, not the run, and is tried again once the journal has doubled.
     */
    const compactNow = async () => {
      snapshotting = true;
      try {
        stats.bytes += await snapshot();
      } catch (error) {
        retryCompactAt = 2 * journalBytes;
        warn(
          `${path}: cannot compact the state file (${errorText(error)}); its journal keeps every step`,
        );
      } finally {
        snapshotting = false;
      }
    };

    const flush = async () => {
      scheduled = false;
      while (!stopped && !failed && wanted > 0 && !snapshotting) {
        const version = wanted;
        wanted = 0;
        // The first write is a snapshot: there is none to append to yet (a fresh run), or a resume must first fold the old journal in.
        const first = snapshotBytes === 0;
        const full =
          compact || journalBytes > Math.max(MIN_COMPACT_BYTES, 2 * snapshotBytes, retryCompactAt);
        compact = false;
        try {
          if (first) {
            snapshotting = true;
            stats.bytes += await snapshot().finally(() => (snapshotting = false));
          } else stats.bytes += append();
        } catch (error) {
          fail(error, first ? path : journalPath);
          return;
        }
        if (full && !first) await compactNow();
        stats.writes++;
        if (!stopped) sendBack({ type: 'state.persisted', version } satisfies SupervisorEvent);
      }
    };

    receive((event) => {
      wanted = Math.max(wanted, event.version);
      if (event.compact) compact = true;
      if (scheduled || snapshotting) return;
      scheduled = true;
      // The rest of this turn's steps are recorded before the write.
      setImmediate(() => void flush());
    });
    store.dirty = cleanDirty();
    return () => {
      stopped = true;
      closeJournal();
    };
  });
}
