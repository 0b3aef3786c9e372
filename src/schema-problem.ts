import { Kind, OptionalKind, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';

/**
 * Schemas at the edges: data another process wrote (a state file, an HTTP
 * body, a queue payload, a spawner message) is checked against a TypeBox
 * schema, which is also its JSON Schema (served in /openapi.json). The check
 * is compiled once, so a value that fits costs what a hand-written check
 * would; only a value that does not fit is walked again, to say in one line
 * which field is wrong (`agents[2].stack[0].state is 7; it must be a string`).
 *
 * Annotations read by the message: `must` says what a value must be where the
 * kind alone does not say it well; `opaque` reports any problem inside an
 * object at the object itself (an ask, a worktree), naming what it must be.
 */

/** A compiled schema: a fast check, and the one-line problem of a value that fails it. */
export interface Checked<T extends TSchema> {
  readonly schema: T;
  check(value: unknown): value is Static<T>;
  /** What is wrong with `value`, naming the field; undefined when it fits. `root` names the whole value. */
  problem(value: unknown, root?: string): string | undefined;
}

/**
 * Compiles `schema` on its first use (a command that never reads a state
 * file does not pay for compiling its schema); its checks then run as
 * generated code.
 */
export function checked<T extends TSchema>(schema: T): Checked<T> {
  let compiled: TypeCheck<T> | undefined;
  const fits = (value: unknown): value is Static<T> =>
    (compiled ??= TypeCompiler.Compile(schema)).Check(value);
  return {
    schema,
    check: fits,
    problem: (value, root = 'the value') =>
      fits(value) ? undefined : walk(schema, value, '', root),
  };
}

/** A value as it appears in a message: JSON, cut short. */
function shown(value: unknown): string {
  return value === undefined ? 'missing' : String(JSON.stringify(value)).slice(0, 40);
}

/** What a schema's values must be, in words. */
export function mustBe(schema: TSchema): string {
  if (typeof schema.must === 'string') return schema.must;
  switch (schema[Kind]) {
    case 'String':
      return schema.minLength ? 'a non-empty string' : 'a string';
    case 'Number':
    case 'Integer':
      return schema[Kind] === 'Integer' ? 'a whole number' : 'a number';
    case 'Boolean':
      return 'true or false';
    case 'Literal':
      return String(schema.const);
    case 'Null':
      return 'null';
    case 'Array':
      return 'a list';
    case 'Union': {
      const variants = schema.anyOf as TSchema[];
      if (variants.every((v) => v[Kind] === 'Literal'))
        return `one of ${variants.map((v) => String(v.const)).join(', ')}`;
      const nulls = variants.filter((v) => v[Kind] === 'Null');
      const rest = variants.filter((v) => v[Kind] !== 'Null');
      return `${rest.map(mustBe).join(' or ')}${nulls.length > 0 ? ' or null' : ''}`;
    }
    default:
      return 'an object';
  }
}

/** The first field of `value` that `schema` refuses, as one line; `path` is the field so far (`agents[0].`). */
function walk(schema: TSchema, value: unknown, path: string, root: string): string | undefined {
  const here = path.replace(/\.$/, '');
  const wrong = () => `${here || root} is ${shown(value)}; it must be ${mustBe(schema)}`;
  if (schema[Kind] === 'Object' && schema.opaque !== true) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return `${here || root} must be an object`;
    const record = value as Record<string, unknown>;
    const known = Object.keys(schema.properties as Record<string, TSchema>);
    const stranger =
      schema.additionalProperties === false
        ? Object.keys(record).find((k) => !known.includes(k))
        : undefined;
    if (stranger !== undefined)
      return `${path}${stranger} is not a key ${here ? `of ${here}` : `here`} (keys: ${known.join(', ')})`;
    for (const [key, sub] of Object.entries(schema.properties as Record<string, TSchema>)) {
      if (record[key] === undefined && sub[OptionalKind] === 'Optional') continue;
      const problem = walk(sub, record[key], `${path}${key}.`, root);
      if (problem !== undefined) return problem;
    }
    return Value.Check(schema, value) ? undefined : wrong();
  }
  if (schema[Kind] === 'Array') {
    if (!Array.isArray(value))
      return typeof schema.must === 'string' ? wrong() : `${here || root} must be a list`;
    for (let i = 0; i < value.length; i++) {
      const problem = walk(schema.items as TSchema, value[i], `${here}[${i}].`, root);
      if (problem !== undefined) return problem;
    }
    return Value.Check(schema, value) ? undefined : wrong();
  }
  // A record that says what it must be as a whole (`an object of strings`) is reported whole.
  if (
    schema[Kind] === 'Record' &&
    schema.must === undefined &&
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value)
  ) {
    const sub = Object.values(schema.patternProperties as Record<string, TSchema>)[0]!;
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const problem = walk(sub, item, `${path}${key}.`, root);
      if (problem !== undefined) return problem;
    }
  }
  // A tagged union (`type: 'run' | 'kill'`): the variant whose tag the value has names the wrong field;
  // else the one object variant whose keys the value's are (`{ bash }`, `{ write }`).
  if (schema[Kind] === 'Union') {
    const objects = (schema.anyOf as TSchema[]).filter((v) => v[Kind] === 'Object');
    const tagged = objects.filter((v) => tagsMatch(v, value));
    if (tagged.length === 1) return walk(tagged[0]!, value, path, root);
    const keyed = objects.filter((v) => keysFit(v, value));
    if (tagged.length === 0 && keyed.length === 1) {
      const inner = walk(keyed[0]!, value, path, root);
      if (inner !== undefined) return inner;
    }
  }
  return Value.Check(schema, value) ? undefined : wrong();
}

/** Whether every key of `value` (an object with some) is a property of an object schema. */
function keysFit(schema: TSchema, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  const props = schema.properties as Record<string, TSchema>;
  return keys.length > 0 && keys.every((k) => Object.hasOwn(props, k));
}

/** Whether `value` has every literal field of an object schema (its tag). */
function tagsMatch(schema: TSchema, value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const tags = Object.entries(schema.properties as Record<string, TSchema>).filter(
    ([, s]) => s[Kind] === 'Literal',
  );
  return (
    tags.length > 0 && tags.every(([key, s]) => (value as Record<string, unknown>)[key] === s.const)
  );
}
