import { emptyLiveModel, type LiveModel } from '../live-fold.js';
import type { LivePageConfig } from '../page-config.js';
import { readConfig } from './page-helpers.js';

// The live page's state, shared by its modules: the model the events fold
// into (the same fold as the server's snapshot) and what only the page has.

/** The page's config, written by the server (live-page.ts). */
export const CONFIG = readConfig<LivePageConfig>('live-config');
/** The machine states in the order the filter chips show them. */
export const MACHINES = [
  'invoking',
  'idle',
  'asking',
  'awaiting-child',
  'paused',
  'terminated',
] as const;

/** The run as the page knows it: the snapshot, then every event folded on top. */
interface PageModel extends LiveModel {
  /** The last event's sequence number. */
  seq: number;
  /** The run ended: nothing more will come. */
  finished: boolean;
  /** A snapshot was loaded: until then nothing is drawn. */
  loaded: boolean;
}

/** The page's one model, replaced field by field when a snapshot is (re)loaded. */
export const model: PageModel = { ...emptyLiveModel(), seq: 0, finished: false, loaded: false };

/** What the drawing keeps between redraws. */
export const ui = {
  /** The machine state the agents table shows; null: all. */
  filter: null as string | null,
  source: null as EventSource | null,
  timer: 0,
  /** The diagram's state boxes by state file; null: no diagram. */
  nodes: null as Map<string, SVGGElement> | null,
};
