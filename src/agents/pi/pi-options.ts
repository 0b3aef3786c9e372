/** `backend.options` of a pi workflow, as `ray` has them; each maps to one `pi` flag. */
export type PiOptions = {
  provider?: string;
  thinking?: string;
  tools?: string[];
  no_tools?: boolean;
  no_builtin_tools?: boolean;
  extensions?: string[];
  skills?: string[];
  no_extensions?: boolean;
  no_skills?: boolean;
  session_dir?: string;
};

const text = (v: unknown) => typeof v === 'string' && v.trim() !== '';
const flag = (v: unknown) => typeof v === 'boolean';
const list = (v: unknown) => Array.isArray(v) && v.every(text);
const PI_OPTIONS: Record<keyof PiOptions, { check: (v: unknown) => boolean; expected: string }> = {
  provider: { check: text, expected: 'a provider name' },
  thinking: { check: text, expected: 'a thinking level' },
  tools: { check: list, expected: 'a list of tool names' },
  no_tools: { check: flag, expected: 'true or false' },
  no_builtin_tools: { check: flag, expected: 'true or false' },
  extensions: { check: list, expected: 'a list of extension sources' },
  skills: { check: list, expected: 'a list of skill folders' },
  no_extensions: { check: flag, expected: 'true or false' },
  no_skills: { check: flag, expected: 'true or false' },
  session_dir: { check: text, expected: 'a folder' },
};

/** Checks a pi manifest's `options`: an unknown option, a wrong value or two exclusive ones is one `bad(...)` line. */
export function parsePiOptions(
  options: Record<string, unknown>,
  bad: (message: string) => never,
): PiOptions {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(options)) {
    const spec = Object.hasOwn(PI_OPTIONS, key) ? PI_OPTIONS[key as keyof PiOptions] : undefined;
    if (!spec) bad(`unknown pi option "${key}" (known: ${Object.keys(PI_OPTIONS).join(', ')})`);
    if (!spec.check(v)) bad(`options.${key} = ${JSON.stringify(v)}: expected ${spec.expected}`);
    out[key] = v;
  }
  const exclusive = ['tools', 'no_tools', 'no_builtin_tools'].filter(
    (k) => out[k] !== undefined && out[k] !== false,
  );
  if (exclusive.length > 1) bad(`options ${exclusive.join(' and ')} exclude each other`);
  return out;
}
