import { Type as T, type Static, type TSchema } from '@sinclair/typebox';
import { checked, type Checked } from '../schema-problem.js';
import { GRANT_SCHEMAS } from './grant-schema.js';
import { TRANSITION_TAGS } from './parse-output.js';
import { ATTRIBUTE_NAME_PATTERN } from './tag-scanner.js';

/**
 * A markdown state's frontmatter as written, one TypeBox schema per key (a
 * YAML workflow's states carry the same keys). Each key's value is checked
 * by its compiled schema; only a value that fails is walked again, for the
 * one-line message the key has always given. What a schema cannot say (a
 * target is a state name; a `goto` needs one) stays in frontmatter.ts.
 */

/** A plain YAML value: what a model, an effort or a tag's attribute is written as. */
const SCALAR = T.Union([T.String(), T.Number(), T.Boolean()]);
const opt = T.Optional;
const nullable = <S extends TSchema>(s: S) => T.Union([s, T.Null()]);

const ENTRY_FIELDS = {
  target: opt(nullable(SCALAR)),
  attributes: opt(T.Array(T.String({ pattern: ATTRIBUTE_NAME_PATTERN }))),
};
/** `payload` fixes a <result>'s text; on any other tag it is an attribute like the rest (a plain value). */
const RESULT_ENTRY = T.Object(
  { tag: T.Literal('result'), ...ENTRY_FIELDS, payload: opt(nullable(SCALAR)) },
  { additionalProperties: SCALAR },
);
const OTHER_ENTRY = T.Object(
  {
    tag: T.Union(TRANSITION_TAGS.filter((t) => t !== 'result').map((t) => T.Literal(t))),
    ...ENTRY_FIELDS,
  },
  { additionalProperties: SCALAR },
);
/** One entry of `allowed_transitions`; keys besides these are the attributes the emitted tag must have. */
export const ALLOWED_ENTRY = T.Union([RESULT_ENTRY, OTHER_ENTRY]);
export type AllowedEntryAsWritten = Static<typeof ALLOWED_ENTRY>;

/** Each policy key's schema, in the order the keys are documented. */
export const POLICY_SCHEMAS = {
  allowed_transitions: T.Array(ALLOWED_ENTRY),
  model: SCALAR,
  /** Models a turn goes on with, in order, when its model is overloaded or unavailable: one name or a list. */
  fallback_models: T.Union([T.String({ minLength: 1 }), T.Array(T.String({ minLength: 1 }))]),
  effort: SCALAR,
  /** Seconds, 0: none. */
  timeout: T.Number({ minimum: 0 }),
  force_implicit: T.Boolean(),
  /** USD each visit of the state may spend (its turns together); above 0. */
  budget: T.Number({ exclusiveMinimum: 0 }),
};
export type PolicyKey = keyof typeof POLICY_SCHEMAS;

/** A markdown state's frontmatter as written, every key optional (others are warned about); its JSON Schema as well. */
export const FRONTMATTER = T.Partial(T.Object({ ...POLICY_SCHEMAS, ...GRANT_SCHEMAS }));
export type FrontmatterAsWritten = Static<typeof FRONTMATTER>;

const policyChecks = new Map<string, Checked<TSchema>>(
  Object.entries(POLICY_SCHEMAS).map(([k, s]) => [k, checked(s)]),
);
const scalar = checked(SCALAR);
const attributeName = checked(T.String({ pattern: ATTRIBUTE_NAME_PATTERN }));
const tag = checked(T.Union(TRANSITION_TAGS.map((t) => T.Literal(t))));

/** Whether `value` fits policy key `key`'s schema (compiled on first use). */
export function fitsPolicyKey<K extends PolicyKey>(
  key: K,
  value: unknown,
): value is Static<(typeof POLICY_SCHEMAS)[K]> {
  return policyChecks.get(key)!.check(value);
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function notScalar(value: unknown, where: string): string | undefined {
  return scalar.check(value)
    ? undefined
    : `${where} must be a plain value, not ${value === null ? 'null' : typeof value}`;
}

/** What is wrong with one `allowed_transitions` entry, fields in the order they are read. */
function entryProblem(entry: unknown, i: number): string | undefined {
  const where = `allowed_transitions[${i}]`;
  if (!isMapping(entry)) return `${where} must be a mapping like { tag: goto, target: NEXT.md }`;
  const { tag: name, target, attributes, ...rest } = entry;
  const payload = name === 'result' ? rest.payload : undefined;
  if (name === 'result') delete rest.payload;
  if (!tag.check(name))
    return `${where} has tag ${JSON.stringify(name)}; expected one of ${TRANSITION_TAGS.join(', ')}`;
  if (target !== undefined && target !== null && !scalar.check(target))
    return notScalar(target, `${where}.target`);
  for (const [k, v] of Object.entries(rest))
    if (!scalar.check(v)) return notScalar(v, `${where}.${k}`);
  if (attributes !== undefined) {
    const usage = `${where}.attributes must be a list of attribute names, like [item, input]`;
    if (!Array.isArray(attributes)) return usage;
    const bad = attributes.findIndex((a) => !attributeName.check(a));
    if (bad !== -1) return `${usage}; ${JSON.stringify(attributes[bad])} is not one`;
  }
  return payload !== undefined && payload !== null
    ? notScalar(payload, `${where}.payload`)
    : undefined;
}

/** The one line that says why `value` does not fit policy key `key` (call it on a value that does not). */
export function policyKeyProblem(key: PolicyKey, value: unknown): string {
  switch (key) {
    case 'allowed_transitions': {
      if (!Array.isArray(value))
        return 'allowed_transitions must be a list of { tag: ..., target: ... } entries';
      for (let i = 0; i < value.length; i++) {
        const problem = entryProblem(value[i], i);
        if (problem !== undefined) return problem;
      }
      return 'allowed_transitions must be a list of { tag: ..., target: ... } entries';
    }
    case 'model':
    case 'effort':
      return notScalar(value, key) ?? `${key} must be a plain value`;
    case 'fallback_models':
      return `fallback_models must be a model name or a list of them, like [sonnet, haiku], not ${JSON.stringify(value)}`;
    case 'timeout':
      return `timeout must be a number of seconds, 0 or more (0: none), not ${JSON.stringify(value)}`;
    case 'force_implicit':
      return `force_implicit must be true or false, not ${JSON.stringify(value)}`;
    case 'budget':
      return `budget must be an amount in USD above 0 (budget: 0.25), not ${JSON.stringify(value)}`;
  }
}
