import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWebSocketInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import { RaymondError } from '../errors.js';
import { timerDelay } from '../timer-delay.js';
import { startRelay, type RelayClient } from './relay.js';

/** Reads a `--trace` file: the inspection events, one per line (the run's own `@raymond.*` lines are skipped). */
export async function readTrace(file: string): Promise<StatelyInspectionEvent[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new RaymondError(
      'ERR_INSPECT',
      `cannot read the trace (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      { file },
    );
  }
  const events: StatelyInspectionEvent[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      throw new RaymondError('ERR_INSPECT', `line ${i + 1} is not JSON: not a --trace file`, {
        file,
      });
    }
    const e = event as { type?: unknown; sessionId?: unknown };
    if (typeof e.type === 'string' && e.type.startsWith('@raymond.')) return;
    if (
      typeof e.type !== 'string' ||
      !e.type.startsWith('@xstate.') ||
      typeof e.sessionId !== 'string'
    ) {
      throw new RaymondError(
        'ERR_INSPECT',
        `line ${i + 1} is not an inspection event: not a --trace file`,
        { file },
      );
    }
    events.push(event as StatelyInspectionEvent);
  });
  return events;
}

/**
 * Replays a trace into the Stately inspector: starts the relay, waits for
 * the page to connect, then sends every event in order, `speed` times as
 * fast as they were recorded (0: at once).
 */
export async function replayTrace(
  file: string,
  opts: { port: number; speed: number; say: (line: string) => void },
): Promise<number> {
  const events = await readTrace(file);
  const relay = await startRelay(opts.port, { name: 'replay', choose: '--port PORT' });
  try {
    opts.say(
      `inspector relay on 127.0.0.1:${opts.port}: open ${relay.url} to replay ${events.length} events from ${file}`,
    );
    await relay.viewer();
    const adapter = createWebSocketInspector({
      url: relay.wsUrl,
      autoStart: false,
      maxDeferredEvents: events.length + 1,
    }).adapter;
    adapter.start();
    let previous: number | undefined;
    for (const event of events) {
      const at = Number(event.createdAt);
      if (opts.speed > 0 && previous !== undefined && at > previous)
        await sleep(timerDelay((at - previous) / opts.speed));
      if (Number.isFinite(at)) previous = at;
      adapter.send(event);
    }
    await relay.flush(adapter as unknown as RelayClient);
    adapter.stop();
    opts.say(`replayed ${events.length} events`);
    return events.length;
  } finally {
    relay.stop();
  }
}
