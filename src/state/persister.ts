import writeFileAtomic from 'write-file-atomic';
import { fromCallback } from 'xstate';
import { stateFromStore, type RunStore } from '../../machines/run-store.js';
import type { PersisterEvent, SupervisorEvent } from '../../machines/supervisor.machine.js';

/** Counts for the benchmark and tests. */
export interface PersisterStats {
  writes: number;
  bytes: number;
}

/**
 * The persister actor: writes the store atomically (temp file, fsync,
 * rename). At most one write is in flight; versions that arrive meanwhile
 * are coalesced into the next write, which carries every change since.
 */
export function createPersister(path: string, stats: PersisterStats = { writes: 0, bytes: 0 }) {
  return fromCallback<PersisterEvent, { store: RunStore }>(({ receive, sendBack, input }) => {
    let wanted = 0;
    let writing = false;
    let stopped = false;
    const pump = async () => {
      writing = true;
      while (!stopped && wanted > 0) {
        const version = wanted;
        wanted = 0;
        // Serialized at write time, so the file holds the latest state, not a stale one.
        const text = `${JSON.stringify(stateFromStore(input.store), null, 1)}\n`;
        try {
          await writeFileAtomic(path, text, { fsync: true });
        } catch (error) {
          sendBack({ type: 'state.write_failed', error } satisfies SupervisorEvent);
          break;
        }
        stats.writes++;
        stats.bytes += Buffer.byteLength(text);
        if (!stopped) sendBack({ type: 'state.persisted', version } satisfies SupervisorEvent);
      }
      writing = false;
    };
    receive((event) => {
      wanted = Math.max(wanted, event.version);
      if (!writing) void pump();
    });
    return () => {
      stopped = true;
    };
  });
}
