/**
 * Which fork attributes reach a script's environment, and under what names.
 *
 * Fork attributes can come from a model's reply, so their names must never
 * be names that a shell, a loader or a runtime reads (`BASH_ENV`, `ENV`,
 * `LD_PRELOAD`, `PATH`, `IFS`, `SHELLOPTS`, `NODE_OPTIONS`, ...). Those are
 * upper case by convention, so a name reaches the environment as written
 * only when it is lower case (what `ray` workflows use: `$item`), and not
 * one of the few lower-case families tools do read. Every attribute also
 * reaches it as `RAYMOND_ATTR_<name>`, a prefix nothing else reads.
 */

/** The prefix under which every fork attribute reaches scripts. */
export const ATTRIBUTE_ENV_PREFIX = 'RAYMOND_ATTR_';

/** Lower-case letters, digits and `_`, not starting with a digit. */
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;
/**
 * Lower-case names that tools do read: `http_proxy` and its kin (curl, wget,
 * git, Python), npm, pnpm and Yarn settings (Yarn 1 reads `yarn_*` in any
 * case: `yarn_registry` is its registry).
 */
const READ_BY_TOOLS = /_proxy$|^npm_|^pnpm_|^yarn_/i;

/**
 * Whether an attribute reaches scripts under its own name. Never on Windows:
 * names are case-insensitive there, so `path` would be `PATH`.
 */
export function exportedAsIs(name: string, platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'win32' && PLAIN_NAME.test(name) && !READ_BY_TOOLS.test(name);
}

/** `RAYMOND_ATTR_*` variables the orchestrator inherited (a raymond run inside a script): unset, so they cannot leak into ours. */
const INHERITED = Object.keys(process.env).filter((k) => k.startsWith(ATTRIBUTE_ENV_PREFIX));

/** The environment entries a worker's attributes give its scripts; `undefined` unsets. */
export function attributeEnvironment(
  attributes: Record<string, string>,
  platform: NodeJS.Platform = process.platform,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = Object.create(null) as Record<
    string,
    string | undefined
  >;
  for (const key of INHERITED) env[key] = undefined;
  for (const [name, value] of Object.entries(attributes)) {
    env[ATTRIBUTE_ENV_PREFIX + name] = value;
    if (exportedAsIs(name, platform)) env[name] = value;
  }
  return env;
}
