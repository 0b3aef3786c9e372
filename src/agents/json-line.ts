/**
 * Reading an agent CLI's JSON lines without trusting their shape. A stream
 * line may be any JSON value (`null`, a number, an array) and any field may
 * hold any type: each reader takes its objects through these, so a bad line
 * is a counted bad line, never a TypeError that stops the run.
 */

/** A JSON object, as a reader looks into it. */
export type JsonObject = Record<string, unknown>;

/** The value if it is a JSON object (not null, not an array). */
export function asObject(value: unknown): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

/** One stream line as an object: undefined when it is not JSON or not an object. */
export function parseObjectLine(text: string): JsonObject | undefined {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** The objects of a field that should be an array of them: none when it is not an array; other elements skipped. */
export function objectsOf(value: unknown): JsonObject[] {
  if (!Array.isArray(value)) return [];
  const out: JsonObject[] = [];
  for (const v of value) {
    const o = asObject(v);
    if (o) out.push(o);
  }
  return out;
}
