// Preloaded into the built CLI (NODE_OPTIONS=--import) by test/e2e/run-lock.test.ts.
// The first write of a run's lock file (or of the temporary file it is made from)
// waits: until the epoch millisecond RAYMOND_TEST_LOCK_AT, so that processes
// started one after the other race for the lock in the same millisecond; or,
// with RAYMOND_TEST_LOCK_GO, until that file exists (it first writes
// `<GO>.waiting`, so the test knows the process got that far).
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const at = Number(process.env.RAYMOND_TEST_LOCK_AT ?? 0);
const go = process.env.RAYMOND_TEST_LOCK_GO;
const write = fs.writeFileSync;
let waited = false;
fs.writeFileSync = function (path, ...rest) {
  if (!waited && typeof path === 'string' && path.includes('.lock')) {
    waited = true;
    if (go) {
      write(`${go}.waiting`, '');
      const tick = new Int32Array(new SharedArrayBuffer(4));
      while (!fs.existsSync(go)) Atomics.wait(tick, 0, 0, 20);
    }
    while (Date.now() < at);
  }
  return write.call(this, path, ...rest);
};
syncBuiltinESMExports();
