import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { TestSpec } from '../../../src/testing/test-spec-schema.js';
import { PiSandbox } from '../../helpers/pi-sandbox.js';

const box = new PiSandbox();
before(() => box.start());
after(() => box.stop());

describe('raymond record of a pi run', () => {
  it("each turn's text, bash call and tokens come from pi's stream; the test replays", async () => {
    const s = box.server;
    s.on('PIREC-1', (r) =>
      r.afterTool
        ? { text: 'ran it <goto>TWO</goto>', usage: { input_tokens: 400, output_tokens: 40 } }
        : {
            toolUse: { name: 'bash', input: { command: 'echo pi > pi.txt' } },
            usage: { input_tokens: 100, output_tokens: 10 },
          },
    );
    s.on('PIREC-2', { text: '<result>pi done</result>' });
    const wf = box.write(
      {
        'workflow.yaml': 'backend: pi\n',
        'START.md': '---\ntools: [Bash, Read]\n---\nPIREC-1',
        'TWO.md': 'PIREC-2',
      },
      'pirec',
    );
    const run = await box.run([wf, '--workflow-id', 'pirec1']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(box.read('pi.txt'), 'pi\n');

    const r = await box.run(['record', 'pirec1']);
    assert.equal(r.code, 0, r.stderr);
    const file = join(wf, 'tests', 'pirec1.test.yaml');
    const spec = parse(box.read('pirec/tests/pirec1.test.yaml')) as TestSpec;
    assert.deepEqual(spec.replies, {
      START: [
        {
          tools: [{ bash: 'echo pi > pi.txt' }],
          text: 'ran it <goto>TWO</goto>',
          tokens: { input: 500, output: 50 },
        },
      ],
      TWO: [{ text: '<result>pi done</result>', tokens: { input: 1000, output: 100 } }],
    });
    assert.deepEqual(spec.expect?.paths, { main: ['START -goto->', 'TWO -result->'] });
    assert.deepEqual(spec.expect?.results, { main: 'pi done' });

    const replay = await box.run(['test', file]);
    assert.equal(replay.code, 0, `${replay.stdout}${replay.stderr}`);
    assert.match(replay.stdout, /^ok +\S+pirec1\.test\.yaml/m);
  });
});
