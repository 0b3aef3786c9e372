import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('{{task_folder}} in markdown states, with the real claude binary', () => {
  it("renders the agent's folder in the prompt and in an implicit transition's input, and makes the folder", async () => {
    const s = box.server;
    s.on('TF-START', { text: 'written, no tag' });
    s.on('TF-NEXT', (r) => ({
      text: `<result>${r.prompt.includes('plan at ') ? 'got input' : 'no input'}</result>`,
    }));
    const wf = box.write(
      {
        'START.md':
          '---\nallowed_transitions:\n  - { tag: goto, target: NEXT, input: "plan at {{task_folder}}/plan.md" }\n---\nTF-START: write to {{task_folder}}/report.md',
        'NEXT.md': 'TF-NEXT: {{input}}',
      },
      'tf',
    );
    const r = await box.run([wf, '--json', '--workflow-id', 'tfmd']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'got input');
    const folder = box.state('tfmd').agents[0]!.task_folder!;
    assert.ok(folder.endsWith(join('.raymond', 'tasks', 'tfmd', 'main')), folder);
    assert.ok(existsSync(folder), 'the folder was made before the turn');
    const [first] = s.requestsFor('TF-START');
    assert.ok(first!.prompt.includes(`write to ${folder}/report.md`), first!.prompt);
    const [next] = s.requestsFor('TF-NEXT');
    assert.ok(next!.prompt.includes(`TF-NEXT: plan at ${folder}/plan.md`), next!.prompt);
  });
});
