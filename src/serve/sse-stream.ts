import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NumberedEvent } from './event-buffer.js';
import type { ServedRun } from './served-run.js';

function frame(e: NumberedEvent): string {
  return `id: ${e.id}\ndata: ${e.data}\n\n`;
}

/** The last event id a client saw: `Last-Event-ID` (what a browser sends when it reconnects), or `?last_event_id=`. */
function lastSeen(req: IncomingMessage, url: URL): number {
  const raw = req.headers['last-event-id'] ?? url.searchParams.get('last_event_id') ?? '0';
  const n = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

/**
 * `GET /runs/{id}/output`: the run's events as Server-Sent Events, each
 * with its `id:`. A client that reconnects with `Last-Event-ID` gets every
 * event after that one the run still keeps, then the live ones; events it
 * can no longer get are counted in one `events_lost` event first. The
 * stream ends when the run does (at once for a run that already ended).
 */
export function streamRunOutput(
  req: IncomingMessage,
  res: ServerResponse,
  run: ServedRun,
  url: URL,
): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  res.write(': connected\n\n');
  const seen = lastSeen(req, url);
  const { events, missed } = run.events.replay(seen);
  if (missed > 0)
    res.write(
      `data: ${JSON.stringify({ type: 'events_lost', count: missed, run_id: run.id })}\n\n`,
    );
  for (const e of events) res.write(frame(e));
  if (run.events.ended) {
    res.end();
    return;
  }
  const stop = run.events.listen((e) => {
    if (e === null) res.end();
    else res.write(frame(e));
  });
  res.on('close', stop);
}
