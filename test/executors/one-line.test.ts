import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneLine, stderrGist } from '../../src/executors/one-line.js';

const GIT_LOCK = `fatal: Unable to create '/r/.git/worktrees/pool-2/index.lock': File exists.

Another git process seems to be running in this repository, e.g.
an editor opened by 'git commit'. Please make sure all processes
are terminated then try again. If it still fails, a git process
may have crashed in this repository earlier:
remove the file manually to continue.
`;

describe('oneLine', () => {
  it('joins the non-empty lines and cuts at the limit', () => {
    assert.equal(oneLine(' a \n\n b\r\n'), 'a | b');
    assert.equal(oneLine('x'.repeat(10), 8), 'xxxxx...');
  });
});

describe('stderrGist', () => {
  it('keeps the last lines of stderr', () => {
    assert.equal(stderrGist('one\ntwo\n\nthree\nfour\n'), 'two | three | four');
  });

  it("leads with the line that names the error when advice follows it (git's lock message)", () => {
    assert.equal(
      stderrGist(GIT_LOCK),
      "fatal: Unable to create '/r/.git/worktrees/pool-2/index.lock': File exists. | ... | are terminated then try again. If it still fails, a git process | may have crashed in this repository earlier: | remove the file manually to continue.",
    );
  });

  it('takes the last error line, and none twice when it is among the last lines', () => {
    assert.equal(
      stderrGist('error: first\nerror: second\nx\ny\nz'),
      'error: second | ... | x | y | z',
    );
    assert.equal(stderrGist('a\nb\nfatal: c\nd'), 'b | fatal: c | d');
    assert.equal(stderrGist(''), '');
  });
});
