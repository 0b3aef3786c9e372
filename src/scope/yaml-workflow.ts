import { parseDocument, stringify } from 'yaml';
import { RaymondError } from '../errors.js';
import { parseStateSource } from '../language/frontmatter.js';
import { fitsPolicyKey, policyKeyProblem } from '../language/frontmatter-schema.js';
import { yamlData } from '../language/yaml-data.js';
import { GRANT_KEYS } from '../language/grant.js';

/** Script keys of a state, in the order their virtual files are listed. */
export const SCRIPT_KEYS = ['sh', 'ps1', 'bat'] as const;

/** Policy keys of a markdown state: they become its synthesized frontmatter, in this order. */
export const POLICY_KEYS = [
  'allowed_transitions',
  'model',
  'fallback_models',
  'effort',
  'timeout',
  'force_implicit',
  'budget',
  ...GRANT_KEYS,
] as const;

/** Top-level keys besides `states`: manifest metadata, read by the server, and the grant keys, every markdown state's defaults. */
export const MANIFEST_KEYS = [
  'id',
  'name',
  'description',
  'input',
  'default_budget',
  'working_directory',
  'environment',
  'requires_human_input',
  'backend',
  ...GRANT_KEYS,
] as const;

const STATE_KEYS = new Set<string>(['prompt', ...SCRIPT_KEYS, ...POLICY_KEYS]);
/** Policy keys a script state may not carry (it may carry `timeout`). */
const MARKDOWN_ONLY = POLICY_KEYS.filter((k) => k !== 'timeout');

/** One state of a YAML workflow. */
export interface YamlState {
  name: string;
  /** Virtual file name → its text: `NAME.md`, or one per script key (`NAME.sh`, `NAME.ps1`, `NAME.bat`). */
  files: Map<string, string>;
  /** `timeout:` in seconds (0: none). */
  timeoutSeconds?: number;
  /** Keys Raymond does not know (typos): tolerated, warned about. */
  unknownKeys: string[];
}

/** A YAML workflow, checked. */
export interface YamlWorkflow {
  states: YamlState[];
  /** The manifest keys present at the top level. */
  manifest: Record<string, unknown>;
}

/**
 * Parses and checks a YAML workflow's text. Every problem is one
 * RaymondError naming `file` (and the state): ERR_YAML_PARSE for YAML that
 * does not parse, ERR_YAML_INVALID for a schema violation.
 */
export function parseYamlWorkflow(text: string, file: string): YamlWorkflow {
  const invalid = (message: string): never => {
    throw new RaymondError('ERR_YAML_INVALID', message, { file });
  };
  // prettyErrors is what fills in linePos; the message's own " at line N, column M:" is dropped for ours.
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = first.linePos?.[0]?.line;
    const message = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new RaymondError(
      'ERR_YAML_PARSE',
      `YAML syntax error${line ? ` (line ${line})` : ''}: ${message}`,
      { file },
    );
  }
  const data: unknown = yamlData(doc, (message) => {
    throw new RaymondError('ERR_YAML_PARSE', message, { file });
  });
  if (!isMapping(data)) return invalid('a YAML workflow must be a mapping with a `states:` key');
  const manifest = Object.fromEntries(
    MANIFEST_KEYS.filter((k) => k in data).map((k) => [k, data[k]]),
  );
  if (!('states' in data)) {
    const looksLikeStates = Object.values(data).some(
      (v) => isMapping(v) && ['prompt', ...SCRIPT_KEYS].some((k) => k in v),
    );
    return invalid(
      `no \`states:\` key${looksLikeStates ? '; did you forget `states:`? the states go under it, indented' : ''}`,
    );
  }
  const states = data.states;
  if (!isMapping(states)) return invalid('`states:` must be a mapping of state names to states');
  const names = Object.keys(states);
  if (names.length === 0) return invalid('`states:` is empty; give at least one state');
  return { states: names.map((name) => checkState(name, states[name], invalid)), manifest };
}

function checkState(name: string, value: unknown, invalid: (message: string) => never): YamlState {
  const where = `state "${name}"`;
  if (name === '' || /[/\\]/.test(name))
    invalid(`${where}: a state name must not be empty or hold / or \\`);
  if (!isMapping(value))
    return invalid(
      `${where} must be a mapping with \`prompt:\` or a script (${SCRIPT_KEYS.join(', ')})`,
    );
  const scripts = SCRIPT_KEYS.filter((k) => k in value);
  const hasPrompt = 'prompt' in value;
  if (hasPrompt && scripts.length > 0)
    invalid(
      `${where} has both prompt and ${scripts.join(', ')}; a state is either a prompt or a script`,
    );
  if (!hasPrompt && scripts.length === 0)
    invalid(`${where} has neither prompt nor a script (${SCRIPT_KEYS.join(', ')})`);
  const state: YamlState = {
    name,
    files: new Map(),
    unknownKeys: Object.keys(value).filter((k) => !STATE_KEYS.has(k)),
  };
  if ('timeout' in value) {
    const t = value.timeout;
    // The frontmatter's schema: a script state's timeout is checked as a markdown state's is.
    if (!fitsPolicyKey('timeout', t)) invalid(`${where}: ${policyKeyProblem('timeout', t)}`);
    state.timeoutSeconds = t;
  }
  if (!hasPrompt) {
    const misplaced = MARKDOWN_ONLY.filter((k) => k in value);
    if (misplaced.length > 0)
      invalid(
        `${where} is a script and cannot have ${misplaced.join(', ')} (markdown states only)`,
      );
    for (const key of scripts)
      state.files.set(`${name}.${key}`, text(value[key], `${where}: ${key}`, invalid));
    return state;
  }
  const md = `${name}.md`;
  const fields = Object.fromEntries(
    POLICY_KEYS.filter((k) => k in value).map((k) => [k, value[k]]),
  );
  const markdown = synthesize(fields, text(value.prompt, `${where}: prompt`, invalid));
  // The frontmatter is checked now, so a bad policy refuses the workflow before anything runs.
  try {
    parseStateSource(markdown, md);
  } catch (err) {
    if (err instanceof RaymondError) invalid(`${where}: ${err.message}`);
    throw err;
  }
  state.files.set(md, markdown);
  return state;
}

/**
 * A markdown state's text: the policy fields as frontmatter, then the
 * prompt. No fields, no frontmatter block, unless the prompt itself starts
 * with `---` (an empty block keeps it from being read as frontmatter).
 */
export function synthesize(fields: Record<string, unknown>, prompt: string): string {
  if (Object.keys(fields).length > 0) return `---\n${stringify(fields)}---\n${prompt}`;
  return /^\uFEFF?---/.test(prompt) ? `---\n---\n${prompt}` : prompt;
}

function text(value: unknown, where: string, invalid: (message: string) => never): string {
  if (typeof value !== 'string') invalid(`${where} must be text (use a block scalar: \`|\`)`);
  return value;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
