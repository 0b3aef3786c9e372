import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import {
  createInspector,
  createWebSocketInspector,
  type StatelyInspectionEvent,
} from '@statelyai/inspect';
import type { InspectionEvent } from 'xstate';
import type { RunEvent } from '../../machines/run-events.js';
import { RaymondError, errorMessage } from '../errors.js';
import { globToRegExp } from './glob.js';
import { startRelay, type Relay, type RelayClient } from './relay.js';
import { createLiveFeed } from '../web/live-feed.js';
import { createLiveRoutes, type LiveControl, type LiveRoutes } from '../web/live-routes.js';
import { sanitizeContext, sanitizeEvent, sanitizeOutput, sanitizeRunEvent } from './sanitize.js';

/** What `--inspect`, `--inspect-full`, `--inspect-agents` and `--trace` ask for. */
export interface InspectOptions {
  /** Port of the local relay for the Stately inspector; none: no relay. */
  port?: number;
  /** JSONL file receiving every inspection event. */
  trace?: string;
  /** Keep prompts, inputs and results in what is inspected. */
  full: boolean;
  /** Only agents whose id matches (the supervisor is always inspected). */
  agents?: string;
  /** With a relay: the live page's diagram and what it may do to the run. */
  live?: { diagram: () => Promise<string | undefined>; control: () => LiveControl | undefined };
}

/** Where the relay serves Raymond's own live page (which works offline). */
export const LIVE_PATH = '/live';

/** A running inspection: pass `observer` as the root actor's `inspect` option, and the run's events to `event`. */
export interface Inspection {
  observer: (event: InspectionEvent) => void;
  /** Writes a run event to the trace (as `@raymond.<type>`; replay skips these). */
  event: (event: RunEvent) => void;
  /**
   * With a relay: the Stately inspector's page (`url`), Raymond's live page
   * (`liveUrl`), and a way to wait until a browser has one of them open.
   */
  page?: { url: string; liveUrl: string; viewer(): Promise<void> };
  /** Sends what is still queued, then stops the relay and closes the trace. */
  close(): Promise<void>;
}

interface ActorLike {
  systemId?: string;
  options?: { systemId?: string };
  _parent?: ActorLike;
}

/** Agent id of an agent frame or of an actor it invoked; undefined for the supervisor and its helpers. */
function agentOf(ref: ActorLike | undefined): string | undefined {
  for (let r = ref; r; r = r._parent) {
    // An actor announces itself before it registers its systemId.
    const systemId = r.systemId ?? r.options?.systemId;
    if (systemId?.startsWith('agent:')) return systemId.slice('agent:'.length).replace(/@\d+$/, '');
  }
  return undefined;
}

/** A snapshot reduced to plain, sanitized JSON before the library serializes it whole. */
function plainSnapshot(s: Record<string, unknown>, full: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { status: s.status };
  if ('value' in s) out.value = s.value;
  if ('context' in s) out.context = sanitizeContext(s.context, full);
  if (s.output !== undefined) out.output = sanitizeOutput(s.output, full);
  if (s.error !== undefined) out.error = errorMessage(s.error);
  return out;
}

function openTrace(file: string): WriteStream {
  try {
    return createWriteStream('', { fd: openSync(file, 'w') });
  } catch (err) {
    throw new RaymondError(
      'ERR_INSPECT',
      `cannot write the --trace file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      { file },
    );
  }
}

/**
 * Starts what the options ask for: the relay and `@statelyai/inspect`'s
 * WebSocket client, and/or a trace file. Both receive the same events, in
 * the inspector's own format, so a trace can be fed to an inspector later.
 */
export async function openInspection(opts: InspectOptions): Promise<Inspection> {
  const trace = opts.trace ? openTrace(opts.trace) : undefined;
  let relay: Relay | undefined;
  // The live page sees every agent and what the terminal shows (prints, questions): it is the run's own front end, on loopback.
  const feed = opts.port !== undefined ? createLiveFeed() : undefined;
  let live: LiveRoutes | undefined;
  if (feed && opts.port !== undefined) {
    live = createLiveRoutes({
      base: LIVE_PATH,
      port: opts.port,
      feed,
      diagram: opts.live?.diagram ?? (() => Promise.resolve(undefined)),
      control: opts.live?.control ?? (() => undefined),
      page: {
        heading: 'Raymond live view (offline)',
        note: 'The agent machines of this run, served by Raymond itself: nothing is loaded from the network.',
        link: { href: '/', text: 'Open the Stately inspector instead (needs internet)' },
      },
    });
  }
  try {
    if (opts.port !== undefined)
      relay = await startRelay(
        opts.port,
        { name: '--inspect', choose: '--inspect=PORT' },
        live?.handle,
      );
  } catch (err) {
    trace?.close();
    throw err;
  }
  // Events wait in memory until the client is connected; a big run must not lose its first agents.
  const ws = relay
    ? createWebSocketInspector({ url: relay.wsUrl, autoStart: false, maxDeferredEvents: 100_000 })
        .adapter
    : undefined;
  const inspector = createInspector(
    {
      start: () => ws?.start(),
      stop: () => ws?.stop(),
      send: (event: StatelyInspectionEvent) => {
        ws?.send(event);
        trace?.write(`${JSON.stringify(event)}\n`);
      },
    },
    {
      sanitizeContext: (context) => sanitizeContext(context, opts.full) as never,
      sanitizeEvent: (event) => sanitizeEvent(event, opts.full) as never,
    },
  );
  inspector.start();
  const only = opts.agents ? globToRegExp(opts.agents) : undefined;
  const observer = (event: InspectionEvent) => {
    if (only) {
      const agent = agentOf(event.actorRef as ActorLike);
      if (agent !== undefined && !only.test(agent)) return;
    }
    if (event.type === '@xstate.snapshot') {
      inspector.inspect.next?.({
        ...event,
        snapshot: plainSnapshot(event.snapshot, opts.full),
      } as unknown as InspectionEvent);
    } else if (event.type === '@xstate.actor') {
      // The library reads the new actor's whole snapshot, a step's input (prompt, attributes) included.
      const ref = event.actorRef as unknown as ActorLike & {
        id: string;
        sessionId: string;
        logic: unknown;
        getSnapshot(): Record<string, unknown>;
      };
      const view = {
        id: ref.id,
        sessionId: ref.sessionId,
        logic: ref.logic,
        _parent: ref._parent,
        getSnapshot: () => plainSnapshot(ref.getSnapshot(), opts.full),
      };
      inspector.inspect.next?.({ ...event, actorRef: view } as unknown as InspectionEvent);
    } else {
      inspector.inspect.next?.(event);
    }
  };
  return {
    observer,
    event: (e) => {
      feed?.push(e);
      if (!trace || (only && 'agentId' in e && !only.test(e.agentId))) return;
      trace.write(
        `${JSON.stringify({ type: `@raymond.${e.type}`, createdAt: String(Date.now()), event: sanitizeRunEvent(e, opts.full) })}\n`,
      );
    },
    ...(relay && live
      ? {
          page: {
            url: relay.url,
            liveUrl: `${relay.url}${LIVE_PATH}`,
            viewer: () => Promise.race([relay.viewer(), live.viewer()]),
          },
        }
      : {}),
    close: async () => {
      // The library converts each event on a zero-delay timer: let those run first.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (ws && relay) await relay.flush(ws as unknown as RelayClient);
      await live?.close();
      inspector.stop();
      relay?.stop();
      if (trace) await new Promise<void>((resolve) => trace.end(resolve));
    },
  };
}
