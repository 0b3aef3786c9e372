import { httpUrlProblem } from '../http-url.js';
import { splitCommand } from './split-command.js';

/** A hook command as the config file may give it: a command line, or one argv as an array. */
type ConfigCommand = string | string[];

/** What `notify` in the config file holds: one command (a line or an argv), or a list of several. */
export type ConfigNotify = ConfigCommand | ConfigCommand[];

/** What `notify_url` in the config file holds: one URL or several. */
export type ConfigNotifyUrl = string | string[];

/** Whether a value has one of the shapes `notify` takes (its words are checked by notifyCommandsProblem). */
export function isConfigNotify(v: unknown): v is ConfigNotify {
  if (typeof v === 'string') return true;
  return (
    Array.isArray(v) &&
    v.every(
      (e) => typeof e === 'string' || (Array.isArray(e) && e.every((w) => typeof w === 'string')),
    )
  );
}

/** Whether a value is a URL or a list of them (each is checked by notifyUrlProblem). */
export function isConfigNotifyUrl(v: unknown): v is ConfigNotifyUrl {
  return typeof v === 'string' || (Array.isArray(v) && v.every((e) => typeof e === 'string'));
}

/**
 * The commands `notify` names, each as argv: a string is one command line,
 * an array of strings one argv (`["notify-send", "Raymond"]`), and an array
 * holding an array several commands, each a line or an argv.
 * @throws Error naming the problem of the first command that is not one.
 */
export function configCommands(value: ConfigNotify): string[][] {
  const several = Array.isArray(value) && value.some((e) => Array.isArray(e));
  const commands: ConfigCommand[] = several
    ? (value as ConfigCommand[])
    : Array.isArray(value)
      ? value.length === 0
        ? []
        : [value as string[]]
      : [value];
  return commands.map((c) => {
    if (Array.isArray(c)) {
      if (c.length === 0 || c[0] === '') throw new Error('an argv array must name a program first');
      return c;
    }
    const split = splitCommand(c);
    if (!split.ok) throw new Error(`the command ${split.problem}`);
    return split.argv;
  });
}

/** What is wrong with a `notify` value's commands, if anything. */
export function notifyCommandsProblem(value: ConfigNotify): string | undefined {
  try {
    configCommands(value);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** A hook URL must be http or https with a host: Node's fetch knows no other, and a `file:` URL has no business here. */
export function notifyUrlProblem(url: string): string | undefined {
  const problem = httpUrlProblem(url);
  return problem === undefined ? undefined : `is not an http:// or https:// URL: ${problem}`;
}

/** What `notify_url` gives, as a list. */
export function configUrls(value: ConfigNotifyUrl): string[] {
  return typeof value === 'string' ? [value] : value;
}

/** What is wrong with a `notify_url` value, if anything. */
export function notifyUrlsProblem(value: ConfigNotifyUrl): string | undefined {
  for (const url of configUrls(value)) {
    const problem = notifyUrlProblem(url);
    if (problem !== undefined) return `${JSON.stringify(url)} ${problem}`;
  }
  return undefined;
}

/**
 * A URL as a warning shows it: a password or token in its user part or
 * query stays out of the terminal and logs.
 */
export function urlLabel(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?...' : ''}`;
}

/**
 * A hook URL as fetch takes it: fetch refuses a URL that holds a user or a
 * password, so they move to an `Authorization: Basic` header (RFC 7617),
 * as curl sends them.
 */
export function hookRequest(url: string): { url: string; headers: Record<string, string> } {
  const u = new URL(url);
  if (u.username === '' && u.password === '') return { url, headers: {} };
  const credentials = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  u.username = '';
  u.password = '';
  return {
    url: u.href,
    headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
  };
}

/** `text` with every spelling of `url` (as given, as fetch normalized it) shown as urlLabel shows it. */
export function redactUrl(text: string, url: string): string {
  const label = urlLabel(url);
  const spellings = [...new Set([url, new URL(url).href, hookRequest(url).url])].sort(
    (a, b) => b.length - a.length,
  );
  return spellings.reduce((out, s) => out.split(s).join(label), text);
}

/** A command as a warning shows it: its words, quoted where they need it to read back as the same words. */
export function commandLabel(argv: readonly string[]): string {
  return argv
    .map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}
