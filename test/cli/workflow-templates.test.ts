import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { TEMPLATE_NAMES, templateFiles } from '../../src/cli/workflow-templates.js';

describe('templateFiles', () => {
  for (const template of TEMPLATE_NAMES) {
    it(`${template}: states under states/, a manifest named after the folder, a README naming the command`, () => {
      const files = templateFiles(template, 'my: flow', 'ray');
      const states = Object.keys(files).filter((f) => f.startsWith('states/'));
      assert.ok(
        states.some((f) => /^states\/START\.(md|sh)$/.test(f)),
        'an entry state',
      );
      assert.deepEqual(
        Object.keys(files)
          .filter((f) => !f.startsWith('states/') && !f.startsWith('tests/'))
          .sort(),
        ['README.md', 'workflow.yaml'],
      );
      const tests = Object.keys(files).filter((f) => f.startsWith('tests/'));
      assert.equal(tests.length, 1, 'one workflow test');
      assert.match(tests[0]!, /^tests\/[a-z-]+\.test\.yaml$/);
      const test = parse(files[tests[0]!]!) as { replies: object; expect: { status: string } };
      assert.ok(Object.keys(test.replies).length > 0, 'scripted replies');
      assert.equal(test.expect.status, 'completed');
      assert.match(files['README.md']!, /^ray test my: flow +# /m);
      const manifest = parse(files['workflow.yaml']!) as {
        id: string;
        name: string;
        description: string;
        input: { mode: string };
        default_budget: number;
      };
      assert.equal(manifest.id, 'my: flow', 'a name with YAML syntax in it is quoted');
      assert.equal(manifest.name, 'my: flow');
      assert.ok(manifest.description.length > 0);
      assert.ok(['required', 'optional'].includes(manifest.input.mode));
      assert.ok(manifest.default_budget > 0);
      assert.match(files['README.md']!, /^ray my: flow --input "/m);
      for (const script of states.filter((f) => f.endsWith('.sh')))
        assert.match(files[script]!, /^#!\/usr\/bin\/env bash\n/);
    });
  }
});
