// What the server writes into a page's JSON config element and its script
// reads back: shared by the page builders (live-page.ts, serve-index-page.ts)
// and the browser client (client/*.ts), so it has no node:* module.

/**
 * Where the live page gets and sends everything; relative or absolute URLs,
 * so the same page can be served by `--inspect` or by a server.
 */
export interface LivePageUrls {
  /** GET: a `LiveSnapshot` as JSON. */
  snapshot: string;
  /** GET: Server-Sent Events, `data:` one RunEvent as JSON, `id:` its sequence number; `?since=SEQ` starts after SEQ; `event: reset` asks the page to reload the snapshot. */
  events: string;
  /** GET: the workflow's diagram as SVG (`raymond diagram --html`'s); none: no diagram. */
  diagram?: string;
  /** POST: the answer to an ask, `{ "response": "..." }` (or multipart with files); `{ask_id}` is replaced. */
  answer: string;
  /** GET: an ask's file; `{ask_id}` and `{path}` are replaced. None: file names are shown without links. */
  askFile?: string;
  /** POST: cancels the run. None: no cancel button. */
  cancel?: string;
}

/** The live page's config element (`#live-config`). */
export interface LivePageConfig {
  urls: LivePageUrls;
  /** Whether asks that take files get an upload input. */
  uploads: boolean;
  /** Set when `raymond serve` feeds the page (see `LivePageOptions.serve`). */
  serve: { home: string } | null;
}

/** What the server's page needs to know beyond what it fetches (its config element, `#serve-config`). */
export interface ServeIndexOptions {
  /**
   * By backend name (a workflow's `backend` in `GET /workflows`): the model
   * names its launch form offers (any other its backend takes can be typed)
   * and the efforts it takes.
   */
  backends: Readonly<Record<string, { models: readonly string[]; efforts: readonly string[] }>>;
  /** The budget of a run whose request and manifest give none (USD). */
  defaultBudgetUsd: number;
  /** Where a run's page is; `{id}` is replaced. */
  runPage: string;
}
