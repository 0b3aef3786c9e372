import { isConfigPath, tomlProblem, type TomlValue } from './codex-toml.js';
import { httpUrlProblem } from '../../http-url.js';

/** codex's sandbox modes (`--sandbox`), least to most trusting. */
export const CODEX_SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type CodexSandbox = (typeof CODEX_SANDBOXES)[number];

/** The provider codex builds in whose address is `openai_base_url` (codex refuses a `model_providers` table of a built-in id). */
export const OPENAI_PROVIDER = 'openai';

/**
 * `backend.options` of a Codex workflow (`backend: { name: codex, options:
 * {...} }`); each becomes codex flags on every turn, before the grant's.
 */
// A type, not an interface: it is also a backend's options bag, Readonly<Record<string, unknown>>.
export type CodexOptions = {
  /** `-p NAME`: codex layers `$CODEX_HOME/NAME.config.toml` over the user's config. */
  profile?: string;
  /** The workflow's sandbox for states that give no `permission_mode` (default `workspace-write`). */
  sandbox?: CodexSandbox;
  /** `-c model_provider=NAME`: a provider of the user's config.toml (or codex's own `openai`, `ollama`, `lmstudio`). */
  provider?: string;
  /**
   * The provider's address (a Responses API: `https://host/v1`). With a
   * `provider` other than `openai`, it is that provider's `base_url`, given
   * with a `name` (codex refuses a provider table without one); its other
   * keys (`env_key`, the API key's variable; `wire_api`, `responses` by
   * default) come from the user's config.toml or from `config`. Without a
   * `provider` (or with `openai`), it is codex's `openai_base_url`: the
   * built-in OpenAI provider, logged in as `codex login` left it, reached at
   * another address (a proxy or a gateway).
   */
  base_url?: string;
  /**
   * More codex settings, each one `-c PATH=VALUE` after the others (so it
   * wins over them): a dotted config path (`model_verbosity`,
   * `model_providers.acme.env_key`) and a value written as TOML (text,
   * numbers, true/false, lists, mappings as inline tables).
   */
  config?: Record<string, TomlValue>;
};

const text = (v: unknown) => typeof v === 'string' && v.trim() !== '';

const CODEX_OPTIONS: Record<
  keyof CodexOptions,
  { check: (v: unknown) => boolean; expected: string }
> = {
  profile: {
    check: (v) => text(v) && !/[\s/\\]/.test(v as string),
    expected: 'a profile name (codex reads $CODEX_HOME/NAME.config.toml)',
  },
  sandbox: {
    check: (v) => (CODEX_SANDBOXES as readonly unknown[]).includes(v),
    expected: `one of ${CODEX_SANDBOXES.join(', ')}`,
  },
  provider: {
    check: (v) => text(v) && isConfigPath(v as string) && !(v as string).includes('.'),
    expected: 'a provider name (letters, digits, _ and -)',
  },
  base_url: {
    check: (v) => text(v) && httpUrlProblem(v as string) === undefined,
    expected: 'an http:// or https:// address',
  },
  config: {
    check: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
    expected: 'a mapping of codex config keys to values',
  },
};

/**
 * Checks a manifest's `backend.options` for Codex and gives them as the
 * executor reads them. Each problem is one `bad(...)` line: an unknown
 * option, a wrong value, a config key codex cannot take in `-c`, a value
 * TOML cannot hold.
 */
export function parseCodexOptions(
  raw: Record<string, unknown>,
  bad: (message: string) => never,
): CodexOptions {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const spec = Object.hasOwn(CODEX_OPTIONS, key)
      ? CODEX_OPTIONS[key as keyof CodexOptions]
      : undefined;
    if (!spec)
      bad(`unknown codex option "${key}" (known: ${Object.keys(CODEX_OPTIONS).join(', ')})`);
    if (!spec.check(value))
      bad(`options.${key} = ${JSON.stringify(value)}: expected ${spec.expected}`);
    out[key] = value;
  }
  for (const [path, value] of Object.entries((out.config ?? {}) as Record<string, unknown>)) {
    if (!isConfigPath(path))
      bad(
        `options.config: "${path}" is not a codex config key (dotted names of letters, digits, _ and -)`,
      );
    const problem = tomlProblem(value, `options.config.${path}`);
    if (problem) bad(problem);
  }
  return out;
}
