import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { discoverWorkflows } from '../../src/serve/workflow-registry.js';
import { Sandbox, sh } from '../helpers/cli.js';

describe('discoverWorkflows', () => {
  const box = new Sandbox();
  after(() => box.remove());

  it('finds manifests, skill packages and workflows without one; passes over bad manifests and repeated ids', async () => {
    const root = box.write(
      {
        'pkg/workflow.yaml': 'id: pkg-id\ninput: { mode: required }\ndefault_budget: 2\n',
        'pkg/states/START.sh': sh('echo "<result>x</result>"'),
        'plain/1_START.sh': sh('echo "<result>x</result>"'),
        'flow.yaml': 'id: flowy\nstates:\n  START:\n    sh: echo "<result>x</result>"\n',
        'bare.yml': 'states:\n  START:\n    sh: echo "<result>x</result>"\n',
        'bad/workflow.yaml': 'input: { mode: sometimes }\n',
        'zagain/workflow.yaml': 'id: pkg-id\n',
        'empty/readme.md': 'no entry',
      },
      'root',
    );
    const found = await discoverWorkflows([root]);
    assert.deepEqual([...found.workflows.keys()].sort(), ['bare', 'flowy', 'pkg-id', 'plain']);
    const pkg = found.workflows.get('pkg-id')!;
    assert.equal(pkg.path, join(root, 'pkg/states'));
    assert.deepEqual(pkg.input, { mode: 'required', label: '', description: '' });
    assert.equal(pkg.default_budget, 2);
    assert.equal(found.warnings.length, 2, found.warnings.join('\n'));
    assert.match(
      found.warnings.join('\n'),
      /bad: not served: input.mode must be one of required, optional, none/,
    );
    assert.match(found.warnings.join('\n'), /zagain: workflow id "pkg-id" is already/);
  });

  it('reads only regular files: a FIFO as a YAML workflow or a manifest is one warning, never a wait', async () => {
    const root = box.write(
      {
        'ok.yaml': 'states:\n  START:\n    sh: echo "<result>x</result>"\n',
        'pkg/states/START.sh': sh('echo "<result>x</result>"'),
      },
      'fifos',
    );
    execFileSync('mkfifo', [
      join(root, 'x.yaml'),
      join(root, 'pkg/workflow.yaml'),
      join(root, 'z.zip'),
    ]);
    const found = await discoverWorkflows([root]);
    assert.deepEqual([...found.workflows.keys()], ['ok']);
    assert.deepEqual(found.warnings.sort(), [
      `${join(root, 'pkg')}: not served: workflow.yaml is not a regular file (a FIFO); only regular files are read`,
      `${join(root, 'x.yaml')}: not served: x.yaml is not a regular file (a FIFO); only regular files are read`,
      `${join(root, 'z.zip')}: not served: z.zip is not a regular file (a FIFO); only regular files are read`,
    ]);
  });
});
