// Generated: do not edit. Made from SPAWNER_REQUEST (spawner-schemas.ts) by
// test/executors/spawner-request-check.generated.test.ts, which fails when it differs;
// RAYMOND_WRITE_GENERATED=1 node scripts/run-tests.mjs spawner-request-check writes it again.
// The spawner loads this instead of a schema library, to stay small and start fast.
import type { SpawnerRequest } from './spawner-protocol.js';

/** Whether a parsed line is a request the spawner understands. */
// eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- TypeBox's checker is generated as the text of a function body
export const isSpawnerRequest = new Function(
  "const local_0 = /^(.*)$/\nreturn function check(value) {\n  return (\n    (((typeof value === 'object' && value !== null && !Array.isArray(value)) && (value['type'] === 'run') && Number.isFinite(value['id']) && (typeof value['file'] === 'string') && Array.isArray(value['args']) && ((array) => { for(const value of array) if(!(((typeof value === 'string')))) { return false }; return true; })(value['args']) && (typeof value['cwd'] === 'string') && (typeof value['env'] === 'object' && value['env'] !== null && !Array.isArray(value['env']) && !(value['env'] instanceof Date) && !(value['env'] instanceof Uint8Array)) && (Object.entries(value['env']).every(([key, value]) => (local_0.test(key) ? ((((typeof value === 'string')) || ((value === null)))) : true))) && Number.isFinite(value['inactivityMs']) && (typeof value['stream'] === 'boolean') && (value['maxOutputBytes'] !== undefined ? (Number.isFinite(value['maxOutputBytes'])) : true) && (value['stderrBytes'] !== undefined ? (Number.isFinite(value['stderrBytes'])) : true)) || ((typeof value === 'object' && value !== null && !Array.isArray(value)) && (value['type'] === 'kill') && Number.isFinite(value['id']) && (typeof value['signal'] === 'string')))\n  )\n}",
)() as (value: unknown) => value is SpawnerRequest;
