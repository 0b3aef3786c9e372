/**
 * The default of a switch that must handle every kind (of a decision, of a
 * transition tag): `default: return exhaustive(decision)`. A new kind makes
 * each such switch a compile error ("not assignable to parameter of type
 * 'never'"), so the compiler lists every place a new tag must be handled
 * (docs/architecture.md, "Adding a transition tag"). Reached at run time
 * only by data the types lied about.
 */
export function exhaustive(value: never): never {
  throw new Error(`unhandled kind: ${JSON.stringify(value)}`);
}
