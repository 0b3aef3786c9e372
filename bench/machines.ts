import { fromCallback } from 'xstate';
import type { RunStore } from '../machines/run-store.js';
import type { PersisterEvent } from '../machines/supervisor.machine.js';
import { runFake } from '../test/helpers/fake-actors.js';

/** Acknowledges every version at once: the machines' cost without any serialization. */
const ackPersister = fromCallback<PersisterEvent, { store: RunStore }>(({ receive, sendBack }) => {
  receive((e) => queueMicrotask(() => sendBack({ type: 'state.persisted', version: e.version })));
});

/** Orchestration cost alone: the real statecharts with instant fake steps, no processes. */
export async function benchMachines(workers: number, parallel: number): Promise<{ workers: number; wallMs: number; perStepMs: number; heapMb: number }> {
  const spawns = Array.from({ length: workers }, (_, i) => ({ target: 'W', attributes: { i: String(i) } }));
  const t0 = performance.now();
  const run = await runFake({ START: { kind: 'fork', next: 'END', workers: spawns }, W: (r) => ({ kind: 'result', payload: r.attributes.i! }), END: { kind: 'result', payload: 'done' } }, { maxParallel: parallel, delayMs: 0, persister: ackPersister });
  const wallMs = performance.now() - t0;
  if (Object.keys(run.store.meta.results).length !== workers + 1) throw new Error('bench run incomplete');
  return { workers, wallMs, perStepMs: wallMs / (workers + 1), heapMb: process.memoryUsage().heapUsed / 2 ** 20 };
}
