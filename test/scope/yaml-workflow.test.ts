import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { parseStateSource } from '../../src/language/frontmatter.js';
import { parseYamlWorkflow, synthesize } from '../../src/scope/yaml-workflow.js';

const F = 'flow.yaml';

function refused(text: string, code: string, message: RegExp): void {
  assert.throws(
    () => parseYamlWorkflow(text, F),
    (e) => {
      assert.ok(e instanceof RaymondError);
      assert.equal(e.code, code);
      assert.match(formatError(e), message);
      assert.doesNotMatch(formatError(e), /\n/);
      return true;
    },
  );
}

describe('YAML workflow validation', () => {
  it('presents markdown states with synthesized frontmatter and scripts as one file per key', () => {
    const wf = parseYamlWorkflow(
      [
        'id: demo',
        'states:',
        '  START:',
        '    prompt: |',
        '      Hello',
        '    model: haiku',
        '    timeout: 5',
        '    allowed_transitions:',
        '      - { tag: goto, target: B.sh }',
        '  B:',
        '    sh: echo b',
        '    bat: echo b',
        '    timeout: 0',
        '  C:',
        '    prompt: Bare',
      ].join('\n'),
      F,
    );
    assert.deepEqual(wf.manifest, { id: 'demo' });
    const [start, b, c] = wf.states;
    const md = start!.files.get('START.md')!;
    assert.equal(
      md,
      '---\nallowed_transitions:\n  - tag: goto\n    target: B.sh\nmodel: haiku\ntimeout: 5\n---\nHello\n',
    );
    assert.deepEqual(parseStateSource(md, 'START.md').policy, {
      allowed: [{ tag: 'goto', target: 'B.sh', attributes: {} }],
      model: 'haiku',
      timeoutSeconds: 5,
    });
    assert.deepEqual([...b!.files.keys()], ['B.sh', 'B.bat']);
    assert.equal(b!.timeoutSeconds, 0);
    assert.equal(c!.files.get('C.md'), 'Bare', 'no fields, no frontmatter block');
  });

  it('keeps a prompt that starts with --- from being read as frontmatter', () => {
    const text = synthesize({}, '---\nmodel: opus\n---\nhi');
    assert.deepEqual(parseStateSource(text, 'X.md'), {
      policy: {},
      body: '---\nmodel: opus\n---\nhi',
      warnings: [],
    });
  });

  it('tolerates unknown state keys and lists them', () => {
    const wf = parseYamlWorkflow('states:\n  START:\n    sh: echo\n    force_implcit: true\n', F);
    assert.deepEqual(wf.states[0]!.unknownKeys, ['force_implcit']);
  });

  it('refuses what the schema does not allow, naming the file and the state', () => {
    refused(
      'START:\n  sh: echo\n',
      'ERR_YAML_INVALID',
      /^flow\.yaml: no `states:` key; did you forget `states:`\?/,
    );
    refused('name: x\n', 'ERR_YAML_INVALID', /^flow\.yaml: no `states:` key$/);
    refused('states: [a]\n', 'ERR_YAML_INVALID', /must be a mapping/);
    refused('states: {}\n', 'ERR_YAML_INVALID', /is empty/);
    refused(
      'states:\n  S:\n    prompt: p\n    sh: echo\n',
      'ERR_YAML_INVALID',
      /^flow\.yaml: state "S" has both prompt and sh/,
    );
    refused(
      'states:\n  S:\n    model: haiku\n',
      'ERR_YAML_INVALID',
      /^flow\.yaml: state "S" has neither prompt nor a script/,
    );
    refused('states:\n  S:\n', 'ERR_YAML_INVALID', /^flow\.yaml: state "S" must be a mapping/);
    refused(
      'states:\n  "a/b":\n    sh: echo\n',
      'ERR_YAML_INVALID',
      /^flow\.yaml: state "a\/b": a state name must not/,
    );
    refused(
      'states:\n  S:\n    sh: echo\n    model: haiku\n    effort: low\n',
      'ERR_YAML_INVALID',
      /^flow\.yaml: state "S" is a script and cannot have model, effort/,
    );
    refused(
      'states:\n  S:\n    sh: echo\n    allowed_transitions: []\n',
      'ERR_YAML_INVALID',
      /cannot have allowed_transitions/,
    );
    refused(
      'states:\n  S:\n    sh: echo\n    force_implicit: true\n',
      'ERR_YAML_INVALID',
      /cannot have force_implicit/,
    );
    refused(
      'states:\n  S:\n    sh: echo\n    timeout: -1\n',
      'ERR_YAML_INVALID',
      /^flow\.yaml: state "S": timeout must be a number of seconds, 0 or more/,
    );
    refused(
      'states:\n  S:\n    prompt: p\n    timeout: soon\n',
      'ERR_YAML_INVALID',
      /state "S": timeout must be a number/,
    );
    refused(
      'states:\n  S:\n    prompt: p\n    allowed_transitions: { tag: goto }\n',
      'ERR_YAML_INVALID',
      /^flow\.yaml: state "S": allowed_transitions must be a list/,
    );
    refused(
      'states:\n  S:\n    sh: [echo\n',
      'ERR_YAML_PARSE',
      /^flow\.yaml: YAML syntax error \(line 4\): Flow sequence/,
    );
    refused(
      'states:\n  S:\n    sh: a\n  S:\n    sh: b\n',
      'ERR_YAML_PARSE',
      /^flow\.yaml: YAML syntax error \(line 4\): Map keys must be unique$/,
    );
  });
});
