import { parseDocument } from 'yaml';
import { RaymondError } from '../errors.js';
import { isWorkflowTag, type TagName, checkStateName } from './parse-output.js';
import {
  fitsPolicyKey,
  policyKeyProblem,
  type AllowedEntryAsWritten,
  type PolicyKey,
} from './frontmatter-schema.js';
import { yamlData } from './yaml-data.js';
import { GRANT_KEYS, isGrantKey, readGrantKey, type Grant } from './grant.js';

/** One entry of `allowed_transitions`. */
export interface AllowedTransition {
  tag: TagName;
  target?: string;
  /** Other keys of the entry (`return`, `next`, ...) that the emitted tag must match. */
  attributes: Record<string, string>;
  /**
   * The entry's `attributes: [...]` list: the only attribute names the
   * emitted tag may carry besides those fixed above and the one it needs
   * (`next` of `<fork>`, `return` of `<call>`/`<function>`). Absent: any.
   */
  allowedAttributes?: string[];
  /** `payload:` of a `<result>` entry: the only payload it allows (compared trimmed). */
  payload?: string;
}

/** A markdown state's policy, read from its YAML frontmatter. */
export interface Policy {
  allowed?: AllowedTransition[];
  model?: string;
  /** `fallback_models:`: the models a turn goes on with when its own is overloaded or unavailable, in order. */
  fallbackModels?: string[];
  effort?: string;
  /** `force_implicit: true`: take the single allowed transition without reading the reply for tags. */
  forceImplicit?: boolean;
  /** `timeout:` in seconds (0: none): replaces `--timeout` for this state. */
  timeoutSeconds?: number;
  /** `budget:` USD each visit of the state may spend, its turns together. */
  budgetUsd?: number;
  /** What the state may do: its tools, MCP servers, system prompt, directories and permissions; absent: nothing of its own. */
  grant?: Grant;
}

/** A state file split into policy and prompt body. */
export interface StateSource {
  policy: Policy;
  body: string;
  warnings: string[];
}

/** How a force_implicit the policy cannot take is refused: lint tells it apart by this. */
export const FORCE_IMPLICIT_PROBLEM = 'force_implicit: true needs exactly one allowed transition';

const KNOWN_KEYS = new Set<string>([
  'allowed_transitions',
  'model',
  'fallback_models',
  'effort',
  'timeout',
  'force_implicit',
  'budget',
  ...GRANT_KEYS,
]);
/** A block between two lines that are exactly `---` (trailing blanks allowed): `effort: low---` does not close it. */
const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)??---[ \t]*(?:\r?\n|$)/;

function fail(file: string, message: string): never {
  throw new RaymondError('ERR_FRONTMATTER', message, { file });
}

/** Allowed transitions checked by their schema; what it cannot say (a target is a state name, a goto needs one) is checked here. */
function parseAllowed(entries: AllowedEntryAsWritten[], file: string): AllowedTransition[] {
  return entries.map((entry, i) => {
    const where = `allowed_transitions[${i}]`;
    const { tag, target, attributes, ...others } = entry;
    // Keys besides these are attributes (plain values, by the schema); a <result>'s payload is not one.
    const rest: Record<string, unknown> = others;
    const payload = entry.tag === 'result' ? entry.payload : undefined;
    if (tag === 'result') delete rest.payload;
    const out: AllowedTransition = { tag, attributes: {} };
    if (target !== undefined && target !== null) {
      out.target = String(target);
      // A cross-workflow entry's target is a workflow specifier, a path by design.
      if (!isWorkflowTag(tag)) checkStateName(out.target, `${where}.target`, file);
      else if (out.target.trim() === '') fail(file, `${where}.target is empty`);
    } else if (tag !== 'result' && tag !== 'ask' && !isWorkflowTag(tag)) {
      // A cross-workflow entry without a target allows any workflow, as in `ray`; an ask's body is its question.
      fail(file, `${where} (${tag}) needs a target`);
    }
    // fromEntries defines keys, so an attribute named `__proto__` is kept as one, never a prototype.
    out.attributes = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, String(v)]));
    if (attributes !== undefined) out.allowedAttributes = attributes;
    if (payload !== undefined && payload !== null) out.payload = String(payload);
    return out;
  });
}

/** Reads one policy key, checked by its schema (frontmatter-schema.ts), into `policy`. */
function readPolicyKey(policy: Policy, key: PolicyKey, value: unknown, file: string): void {
  if (!fitsPolicyKey(key, value)) fail(file, policyKeyProblem(key, value));
  // model and effort are plain values, by their schemas.
  const plain = value as string | number | boolean;
  if (key === 'allowed_transitions')
    policy.allowed = parseAllowed(value as AllowedEntryAsWritten[], file);
  else if (key === 'model') policy.model = String(plain);
  else if (key === 'effort') policy.effort = String(plain);
  else if (key === 'fallback_models')
    policy.fallbackModels = typeof value === 'string' ? [value] : (value as string[]);
  else if (key === 'timeout') policy.timeoutSeconds = value as number;
  else if (key === 'budget') policy.budgetUsd = value as number;
  else if (value === true) policy.forceImplicit = true;
}

/**
 * The frontmatter of a markdown state as YAML data, keys as written (for
 * `raymond convert`); undefined without a frontmatter block. Call it on text
 * parseStateSource accepted: it does not check again.
 */
export function frontmatterData(text: string): Record<string, unknown> | undefined {
  const m = FRONTMATTER.exec(text);
  const data: unknown = m ? parseDocument(m[1] ?? '').toJS() : undefined;
  return data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : undefined;
}

/**
 * Splits a markdown state into its frontmatter policy and its prompt body.
 * Unknown keys are warnings, malformed YAML is an error naming the file.
 */
export function parseStateSource(text: string, file: string): StateSource {
  const m = FRONTMATTER.exec(text);
  if (!m) return { policy: {}, body: text, warnings: [] };
  const body = text.slice(m[0].length);
  // prettyErrors fills in linePos (1-based in the block, whose first line is the file's second).
  const doc = parseDocument(m[1] ?? '', { prettyErrors: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const line = first.linePos?.[0]?.line;
    const message = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    fail(file, `malformed YAML frontmatter${line ? ` (line ${line + 1})` : ''}: ${message}`);
  }
  const data: unknown = yamlData(doc, (message) =>
    fail(file, `malformed YAML frontmatter: ${message}`),
  );
  if (data === null || data === undefined) return { policy: {}, body, warnings: [] };
  if (typeof data !== 'object' || Array.isArray(data))
    fail(file, 'frontmatter must be a YAML mapping');
  const policy: Policy = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (!KNOWN_KEYS.has(key)) {
      warnings.push(`unknown frontmatter key "${key}" (known: ${[...KNOWN_KEYS].join(', ')})`);
      continue;
    }
    if (isGrantKey(key))
      readGrantKey((policy.grant ??= {}), key, value, (message) => fail(file, message));
    else readPolicyKey(policy, key as PolicyKey, value, file);
  }
  const only = policy.allowed?.length === 1 ? policy.allowed[0]! : undefined;
  if (
    policy.forceImplicit &&
    (!only ||
      only.tag === 'ask' ||
      (only.tag === 'result' ? only.payload === undefined : only.target === undefined))
  ) {
    fail(
      file,
      `${FORCE_IMPLICIT_PROBLEM} with a fixed target (or a <result> with a fixed payload), which the reply then cannot change`,
    );
  }
  return { policy, body, warnings };
}
