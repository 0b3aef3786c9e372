// The helpers every page script uses (live page, server page, diagram page).
// One copy here; esbuild puts what a page uses into its bundle.

import { usd } from '../../../machines/money.js';

/** The page's element with this id; the pages' HTML has every id their scripts ask for. */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** A new element with an optional class and text (text goes in as textContent, never as HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  cls?: string | null,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Dollars as everywhere in Raymond (machines/money.ts): never rounded to zero. */
export function money(n: number | null | undefined): string {
  return usd(n || 0);
}

/** A span of time as `1h2m3s`, `2m5s`, `7s` (rounded to the second, never negative). */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return (
    (s >= 3600 ? Math.floor(s / 3600) + 'h' : '') +
    (s >= 60 ? Math.floor((s % 3600) / 60) + 'm' : '') +
    (s % 60) +
    's'
  );
}

/** A step's wall time: as `duration`, with tenths below 10 s (`3.4s`), as `raymond --status` shows it. */
export function wallTime(ms: number): string {
  return ms < 10_000 ? (Math.max(0, ms) / 1000).toFixed(1) + 's' : duration(ms / 1000);
}

/** Replaces each `{key}` of a URL template by its value, URL-encoded; unknown keys stay. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (all, key: string) =>
    key in values ? encodeURIComponent(values[key]!) : all,
  );
}

/** Shows the state of the page's link to its server in the header (`live` is green, anything else grey). */
export function connection(state: string): void {
  const c = $('connection');
  c.textContent = state;
  c.className = 'connection ' + (state === 'live' ? 'live' : 'offline');
}

/** A JSON answer's body, or `{}` when it has none; `error` is what the server's errors carry. */
export function jsonBody<T extends object>(r: Response): Promise<T & { error?: string }> {
  return r.json().catch(() => ({})) as Promise<T & { error?: string }>;
}

/** An error's message for the page (the fetch failures and server errors the forms show). */
export function messageOf(err: unknown): string {
  return String((err as Error | null)?.message || err);
}

/** The JSON of the page's config element (`<script type="application/json" id="...">`), written by the server. */
export function readConfig<T>(id: string): T {
  return JSON.parse($(id).textContent) as T;
}
