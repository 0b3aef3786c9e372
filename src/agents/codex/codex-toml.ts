/**
 * TOML for `codex -c key=value`: codex parses the value as TOML (and, when
 * that fails, takes the raw text as a string), so every value Raymond gives
 * it is written as valid TOML and can never be read as something else.
 */

/** A value TOML can hold and a manifest can write: text, a number, true/false, a list, a mapping. */
export type TomlValue = string | number | boolean | TomlValue[] | { [key: string]: TomlValue };

/** A key codex takes in a dotted `-c` path: codex splits the path on dots and never unquotes a part. */
const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** Whether `path` is a dotted codex config path of bare keys (`model_providers.x.base_url`). */
export function isConfigPath(path: string): boolean {
  return path.split('.').every((part) => BARE_KEY.test(part));
}

const SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};

/** A TOML basic string: quotes, backslashes and control characters escaped; a lone surrogate (no TOML escape exists) becomes U+FFFD. */
export function tomlString(text: string): string {
  let out = '"';
  // A string iterates by code point: a surrogate seen alone is a lone one.
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out +=
      SHORT[ch] ??
      (code < 0x20 || code === 0x7f
        ? `\\u${code.toString(16).padStart(4, '0')}`
        : code >= 0xd800 && code <= 0xdfff
          ? '\uFFFD'
          : ch);
  }
  return `${out}"`;
}

/** A key inside an inline table: bare when it can be, else quoted. */
export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : tomlString(key);
}

/** Why `value` cannot be written as TOML, if it cannot (`at`: where it is, for the message). */
export function tomlProblem(value: unknown, at: string): string | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : `${at} = ${value}: expected a finite number`;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem = tomlProblem(item, `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (
    value !== null &&
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    for (const [k, item] of Object.entries(value)) {
      const problem = tomlProblem(item, `${at}.${k}`);
      if (problem) return problem;
    }
    return undefined;
  }
  const shown = value instanceof Date ? value.toISOString() : JSON.stringify(value);
  return `${at} = ${shown ?? String(value)}: expected text, a number, true or false, a list or a mapping`;
}

/** `value` as TOML (check it with tomlProblem first): arrays and mappings inline, integers as integers. */
export function tomlValue(value: TomlValue): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number')
    // An integer TOML cannot hold exactly (beyond 2^53) goes as a float, with an exponent, as it is in JavaScript.
    return Number.isSafeInteger(value)
      ? String(value)
      : Number.isInteger(value)
        ? value.toExponential()
        : String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  const entries = Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

/** One `-c` override: `["-c", "path=value"]`. */
export function configArg(path: string, value: TomlValue): string[] {
  return ['-c', `${path}=${tomlValue(value)}`];
}
