import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

/** The JSON types a property of an elicitation's schema may have. */
const TYPES: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
};

/**
 * The one check the MCP server makes with JSON Schema: that an elicitation's
 * answer fits the schema it asked with. MCP allows only flat objects of
 * primitive properties there (strings, numbers, booleans, enums), which this
 * checks in full. It stands in for the SDK's default (Ajv with its formats,
 * some 200 KB of the bundle), which the build leaves out (scripts/bundle.mjs).
 */
export class FlatSchemaValidator implements jsonSchemaValidator {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const s = schema as {
      properties?: Record<string, { type?: string; enum?: unknown[] }>;
      required?: string[];
    };
    return (input) => {
      const problem = flatProblem(s.properties ?? {}, s.required ?? [], input);
      return problem === undefined
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: problem };
    };
  }
}

/** What is wrong with `input` against a flat schema's properties, or undefined. */
function flatProblem(
  properties: Record<string, { type?: string; enum?: unknown[] }>,
  required: readonly string[],
  input: unknown,
): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return 'the answer must be an object';
  const values = input as Record<string, unknown>;
  for (const key of required) if (values[key] === undefined) return `"${key}" is required`;
  for (const [key, value] of Object.entries(values)) {
    const p = properties[key];
    if (!p) continue;
    if (p.type && TYPES[p.type] && !TYPES[p.type]!(value))
      return `"${key}" must be ${p.type === 'integer' ? 'an' : 'a'} ${p.type}`;
    if (p.enum && !p.enum.includes(value)) return `"${key}" must be one of ${p.enum.join(', ')}`;
  }
  return undefined;
}
