import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { followWalkthrough } from '../helpers/walkthrough.js';

describe('docs/first-workflow.md, followed as a newcomer would', () => {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'raymond-first-workflow-')));
  let model: ChildProcess | undefined;
  after(() => {
    if (model?.pid) process.kill(-model.pid, 'SIGTERM');
    rmSync(home, { recursive: true, force: true });
  });

  it(
    'its blocks, run in order with the practice model and the real claude, print what the page shows',
    { timeout: 240_000 },
    async () => {
      await followWalkthrough({
        page: 'docs/first-workflow.md',
        test: 'test/docs/first-workflow.test.ts',
        home,
        folder: join(home, 'practice'),
        onModel: (m) => (model = m),
      });
    },
  );
});
