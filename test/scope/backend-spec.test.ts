import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { RaymondError } from '../../src/errors.js';
import { parseBackend } from '../../src/agents/registry/parse-backend.js';
import { folderBackend, manifestBackend } from '../../src/scope/backend-spec.js';

const FILE = '/wf/workflow.yaml';
const root = mkdtempSync(join(tmpdir(), 'raymond-backend-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The ERR_SCOPE `run` throws. */
function refused(run: () => unknown): RaymondError {
  try {
    run();
  } catch (err) {
    assert.ok(
      err instanceof RaymondError && err.code === 'ERR_SCOPE',
      `not ERR_SCOPE: ${String(err)}`,
    );
    return err;
  }
  assert.fail('accepted');
}

/** A fresh folder under the temp root, with the given files. */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, 'wf-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('parseBackend', () => {
  const accepted: Array<[string, unknown, unknown]> = [
    ['undefined', undefined, undefined],
    ['null', null, undefined],
    ['"claude"', 'claude', { name: 'claude' }],
    ['{ name: claude }', { name: 'claude' }, { name: 'claude' }],
    ['"pi"', 'pi', { name: 'pi', options: {} }],
    ['{ name: pi }', { name: 'pi' }, { name: 'pi', options: {} }],
    ['{ name: pi, options: {} }', { name: 'pi', options: {} }, { name: 'pi', options: {} }],
    [
      'pi with every option',
      {
        name: 'pi',
        options: {
          provider: 'openai',
          thinking: 'high',
          tools: ['read', 'ls'],
          extensions: ['./e.ts'],
          skills: ['./s'],
          no_extensions: true,
          no_skills: false,
          session_dir: '/s',
        },
      },
      {
        name: 'pi',
        options: {
          provider: 'openai',
          thinking: 'high',
          tools: ['read', 'ls'],
          extensions: ['./e.ts'],
          skills: ['./s'],
          no_extensions: true,
          no_skills: false,
          session_dir: '/s',
        },
      },
    ],
    [
      'pi with no_tools',
      { name: 'pi', options: { no_tools: true } },
      { name: 'pi', options: { no_tools: true } },
    ],
    [
      'pi with tools and no_tools: false',
      { name: 'pi', options: { tools: ['read'], no_tools: false } },
      { name: 'pi', options: { tools: ['read'], no_tools: false } },
    ],
  ];
  for (const [what, value, expected] of accepted) {
    it(`reads ${what}`, () => assert.deepEqual(parseBackend(value, FILE), expected));
  }

  it('names the known backends and the file for an unknown name', () => {
    for (const value of ['opencode', { name: 'gemini' }, '', 'Pi', 'Codex']) {
      const err = refused(() => parseBackend(value, FILE));
      assert.match(err.message, /known: claude, codex, pi$/);
      assert.equal(err.file, FILE);
    }
  });

  const refusals: Array<[string, unknown, RegExp]> = [
    ['a number', 42, /expected a name/],
    ['a list', ['pi'], /expected a name/],
    ['true', true, /expected a name/],
    ['a table without a name', { options: {} }, /unknown backend/],
    ['an unknown key beside name', { name: 'pi', option: {} }, /unknown key "option"/],
    ['claude with options', { name: 'claude', options: {} }, /takes no options/],
    [
      'claude with options given',
      { name: 'claude', options: { thinking: 'high' } },
      /takes no options/,
    ],
    ['options that are a list', { name: 'pi', options: ['tools'] }, /options must be a mapping/],
    ['options that are text', { name: 'pi', options: 'tools' }, /options must be a mapping/],
    ['options that are null', { name: 'pi', options: null }, /options must be a mapping/],
    [
      'an unknown option',
      { name: 'pi', options: { tool: ['read'] } },
      /unknown pi option "tool".*provider/,
    ],
    [
      'a prototype key as option',
      { name: 'pi', options: JSON.parse('{"__proto__": 1}') },
      /unknown pi option "__proto__"/,
    ],
    [
      'toString as option',
      { name: 'pi', options: { toString: 'x' } },
      /unknown pi option "toString"/,
    ],
    [
      'provider not text',
      { name: 'pi', options: { provider: 3 } },
      /options.provider = 3: expected a provider name/,
    ],
    ['provider empty', { name: 'pi', options: { provider: '  ' } }, /options.provider/],
    ['thinking not text', { name: 'pi', options: { thinking: true } }, /options.thinking/],
    [
      'tools as text',
      { name: 'pi', options: { tools: 'read,edit' } },
      /options.tools .*expected a list of tool names/,
    ],
    ['tools with a number', { name: 'pi', options: { tools: ['read', 1] } }, /options.tools/],
    ['tools with an empty name', { name: 'pi', options: { tools: ['read', ''] } }, /options.tools/],
    [
      'no_tools as text',
      { name: 'pi', options: { no_tools: 'yes' } },
      /options.no_tools .*expected true or false/,
    ],
    ['no_skills as number', { name: 'pi', options: { no_skills: 1 } }, /options.no_skills/],
    ['extensions as text', { name: 'pi', options: { extensions: './e.ts' } }, /options.extensions/],
    [
      'session_dir as list',
      { name: 'pi', options: { session_dir: ['/s'] } },
      /options.session_dir/,
    ],
    [
      'tools with no_tools',
      { name: 'pi', options: { tools: ['read'], no_tools: true } },
      /tools and no_tools exclude each other/,
    ],
    [
      'tools with no_builtin_tools',
      { name: 'pi', options: { tools: ['read'], no_builtin_tools: true } },
      /exclude each other/,
    ],
    [
      'no_tools with no_builtin_tools',
      { name: 'pi', options: { no_tools: true, no_builtin_tools: true } },
      /exclude each other/,
    ],
  ];
  for (const [what, value, message] of refusals) {
    it(`refuses ${what}, naming the file`, () => {
      const err = refused(() => parseBackend(value, FILE));
      assert.match(err.message, /^backend: /);
      assert.match(err.message, message);
      assert.equal(err.file, FILE);
    });
  }
});

describe('manifestBackend', () => {
  it('reads the backend of a manifest, or none', () => {
    assert.deepEqual(manifestBackend('name: x\nbackend: pi\n', FILE), { name: 'pi', options: {} });
    assert.deepEqual(
      manifestBackend(
        'backend:\n  name: pi\n  options:\n    tools: [read, grep]\n    thinking: low\n',
        FILE,
      ),
      { name: 'pi', options: { tools: ['read', 'grep'], thinking: 'low' } },
    );
    assert.deepEqual(manifestBackend('backend: claude\n', FILE), { name: 'claude' });
    assert.equal(manifestBackend('name: x\n', FILE), undefined);
    assert.equal(manifestBackend('', FILE), undefined);
    assert.equal(manifestBackend('- a\n- b\n', FILE), undefined);
    assert.equal(manifestBackend('just text', FILE), undefined);
    assert.equal(manifestBackend('backend:\n', FILE), undefined);
  });

  it('refuses invalid YAML, naming the file', () => {
    const err = refused(() => manifestBackend('backend: [pi\nname: x: y\n', FILE));
    assert.match(err.message, /not valid YAML/);
    assert.equal(err.file, FILE);
  });

  it('refuses a bad backend, naming the file', () => {
    assert.equal(refused(() => manifestBackend('backend: gemini\n', FILE)).file, FILE);
  });
});

describe('folderBackend', () => {
  it('reads workflow.yaml in the folder', () => {
    const dir = folder({ 'workflow.yaml': 'backend: pi\n', 'START.md': 'hi' });
    assert.deepEqual(folderBackend(dir), { name: 'pi', options: {} });
  });

  it('reads workflow.yaml beside a states/ folder', () => {
    const dir = folder({
      'workflow.yaml': 'backend:\n  name: pi\n  options: { no_skills: true }\n',
      'states/START.md': 'hi',
    });
    assert.deepEqual(folderBackend(join(dir, 'states')), {
      name: 'pi',
      options: { no_skills: true },
    });
  });

  it('prefers the states/ folder own workflow.yaml', () => {
    const dir = folder({
      'workflow.yaml': 'backend: pi\n',
      'states/workflow.yaml': 'backend: claude\n',
    });
    assert.deepEqual(folderBackend(join(dir, 'states')), { name: 'claude' });
  });

  it('looks beside only a folder named states', () => {
    const dir = folder({ 'workflow.yaml': 'backend: pi\n', 'other/START.md': 'hi' });
    assert.equal(folderBackend(join(dir, 'other')), undefined);
  });

  it('gives undefined without a manifest or without a backend in it', () => {
    assert.equal(folderBackend(folder({ 'START.md': 'hi' })), undefined);
    assert.equal(folderBackend(folder({ 'workflow.yaml': 'name: x\n' })), undefined);
    assert.equal(folderBackend(join(root, 'missing')), undefined);
  });

  it('refuses invalid YAML, naming the manifest', () => {
    const dir = folder({ 'workflow.yaml': 'backend: {pi\n' });
    const err = refused(() => folderBackend(dir));
    assert.match(err.message, /not valid YAML/);
    assert.equal(err.file, join(dir, 'workflow.yaml'));
  });
});
