import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { convertToYaml } from '../../src/analysis/convert-workflow.js';
import { RaymondError, formatError } from '../../src/errors.js';
import { parseYamlWorkflow } from '../../src/scope/yaml-workflow.js';

const files = (o: Record<string, string | Uint8Array>) =>
  new Map(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v) : v]));
const display = (f: string) => `wf/${f}`;

function refused(input: Map<string, Uint8Array>, message: RegExp): void {
  assert.throws(
    () => convertToYaml(input, display),
    (e) => e instanceof RaymondError && e.code === 'ERR_CONVERT' && message.test(formatError(e)),
  );
}

describe('convert to YAML', () => {
  it('turns frontmatter into keys, bodies into prompts, scripts of one name into one state, and keeps the manifest', () => {
    const yaml = convertToYaml(
      files({
        'START.md':
          '---\nmodel: haiku\nallowed_transitions:\n  - { tag: goto, target: BUILD }\n---\nBuild it.\n  indented line\nno final newline',
        'BUILD.sh': '#!/bin/sh\necho "<result>ok</result>"\n',
        'BUILD.bat': '@echo off\r\necho ^<result^>ok^</result^>\r\n',
        'workflow.yaml': 'id: build\nname: Build\nunknown: dropped\n',
        'notes.txt': 'ignored',
      }),
      display,
    );
    assert.deepEqual(parse(yaml), {
      id: 'build',
      name: 'Build',
      states: {
        BUILD: {
          sh: '#!/bin/sh\necho "<result>ok</result>"\n',
          bat: '@echo off\r\necho ^<result^>ok^</result^>\r\n',
        },
        START: {
          prompt: 'Build it.\n  indented line\nno final newline',
          model: 'haiku',
          allowed_transitions: [{ tag: 'goto', target: 'BUILD' }],
        },
      },
    });
    assert.match(yaml, /prompt: \|-\n {6}Build it\./, 'prompts are block scalars');
    const wf = parseYamlWorkflow(yaml, 'out.yaml');
    assert.equal(
      wf.states.find((s) => s.name === 'BUILD')!.files.get('BUILD.sh'),
      '#!/bin/sh\necho "<result>ok</result>"\n',
    );
  });

  it('refuses what would not run the same', () => {
    refused(
      files({ 'X.md': 'prompt', 'X.sh': 'echo' }),
      /^wf\/X\.sh: state X is both X\.md and X\.sh/,
    );
    refused(
      files({ 'START.sh': new Uint8Array([0xff, 0xfe]) }),
      /^wf\/START\.sh: is not valid UTF-8/,
    );
    refused(
      files({ 'START.md': '---\nmodel: [\n---\nx' }),
      /^wf\/START\.md: cannot be converted: malformed YAML frontmatter/,
    );
    refused(files({ 'README.txt': 'x' }), /holds no state files/);
  });
});
