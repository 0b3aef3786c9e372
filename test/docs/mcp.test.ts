import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { followWalkthrough } from '../helpers/walkthrough.js';

describe('docs/mcp.md, "Try it offline" followed as written', () => {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'raymond-mcp-doc-')));
  let model: ChildProcess | undefined;
  after(() => {
    if (model?.pid) process.kill(-model.pid, 'SIGTERM');
    rmSync(home, { recursive: true, force: true });
  });

  it(
    'the practice model, claude mcp add of the raymond on PATH, and claude -p calling its tool print what the page shows',
    { timeout: 240_000 },
    async () => {
      await followWalkthrough({
        page: 'docs/mcp.md',
        test: 'test/docs/mcp.test.ts',
        home,
        folder: join(home, 'practice-mcp'),
        onModel: (m) => (model = m),
      });
    },
  );
});
