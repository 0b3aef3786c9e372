// Preloaded into the built CLI (NODE_OPTIONS=--import) by test/e2e/run-lock.test.ts:
// the first write of a run's lock file (or of the temporary file it is made from)
// waits until the epoch millisecond RAYMOND_TEST_LOCK_AT, so that processes
// started one after the other race for the lock in the same millisecond.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const at = Number(process.env.RAYMOND_TEST_LOCK_AT);
const write = fs.writeFileSync;
let waited = false;
fs.writeFileSync = function (path, ...rest) {
  if (!waited && typeof path === 'string' && path.includes('.lock')) {
    waited = true;
    while (Date.now() < at);
  }
  return write.call(this, path, ...rest);
};
syncBuiltinESMExports();
