import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { folderMentions, MENTION_LIMITS } from '../../src/scope/folder-mentions.js';

const WORDS = ['TASK_FOLDER'];

describe('folderMentions', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function folder(files: Record<string, string | Buffer>): string {
    dir = mkdtempSync(join(tmpdir(), 'raymond-mentions-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return dir;
  }

  it('finds a word in a state file, or in a helper in a folder below', async () => {
    assert.equal(
      await folderMentions(folder({ 'START.sh': 'echo $RAYMOND_TASK_FOLDER' }), WORDS),
      true,
    );
    rmSync(dir, { recursive: true });
    const helper = folder({ 'START.sh': '. lib/x.sh', 'lib/x.sh': 'cd "$RAYMOND_TASK_FOLDER"' });
    assert.equal(await folderMentions(helper, WORDS), true);
  });

  it('does not read hidden folders, node_modules, files past the size limit, nor below the depth limit', async () => {
    const deep = 'a/b/c/d/deep.sh';
    const big = Buffer.alloc(MENTION_LIMITS.fileBytes + 1, 'TASK_FOLDER ');
    const d = folder({
      'START.sh': 'echo "<result>x</result>"',
      '.git/hooks/x': 'TASK_FOLDER',
      'node_modules/p/index.js': 'TASK_FOLDER',
      'data.txt': big,
      [deep]: 'TASK_FOLDER',
    });
    assert.equal(await folderMentions(d, WORDS), false);
    writeFileSync(join(d, 'a/b/c/shallow.sh'), 'TASK_FOLDER');
    assert.equal(await folderMentions(d, WORDS), true, 'three folders down is still read');
  });
});
