import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allBackends,
  BACKEND_NAMES,
  backendNamed,
  backendOf,
} from '../../../src/agents/registry/registry.js';

describe('the registry', () => {
  it('names every backend, Claude Code (the default) first, then by name', () => {
    assert.deepEqual(BACKEND_NAMES, ['claude', 'codex', 'pi']);
    for (const name of BACKEND_NAMES) assert.equal(backendNamed(name)?.name, name);
    assert.equal(backendNamed('gemini'), undefined);
  });
});

describe('backendOf', () => {
  it('is Claude Code unless the workflow says pi', () => {
    assert.equal(backendOf(undefined).name, 'claude');
    assert.equal(backendOf({ name: 'claude' }).name, 'claude');
    assert.equal(backendOf({ name: 'pi', options: {} }).name, 'pi');
  });

  const claude = backendOf(undefined);
  const pi = backendOf({ name: 'pi', options: { thinking: 'low' } });

  for (const m of [
    'sonnet',
    'opus',
    'haiku',
    'claude-sonnet-4-5-20250929',
    'claude-opus-4-1',
    'claude-sonnet-4-5[1m]',
  ]) {
    it(`claude takes model ${m}`, () => assert.equal(claude.modelProblem(m), undefined));
  }
  for (const m of ['openai/gpt-5', 'gpt-5', 'Sonnet', 'claude-', '', 'sonnet ']) {
    it(`claude refuses model ${JSON.stringify(m)}`, () => {
      const problem = claude.modelProblem(m);
      assert.ok(problem?.includes(`"${m}"`), problem);
      assert.match(problem!, /opus, sonnet, haiku/);
    });
  }
  for (const e of ['low', 'medium', 'high']) {
    it(`claude takes effort ${e}`, () => assert.equal(claude.effortProblem(e), undefined));
  }
  for (const e of ['xhigh', 'off', 'minimal', 'max', '']) {
    it(`claude refuses effort ${JSON.stringify(e)}`, () => {
      const problem = claude.effortProblem(e);
      assert.ok(problem?.includes(`"${e}"`), problem);
      assert.match(problem!, /low, medium, high/);
    });
  }

  for (const m of [
    'openai/gpt-5',
    'mock-model',
    'anthropic/claude-sonnet-4-6',
    'sonnet',
    'openrouter/qwen/qwen3-coder:free',
  ]) {
    it(`pi takes model ${m}`, () => assert.equal(pi.modelProblem(m), undefined));
  }
  for (const m of ['openai/ gpt-5', 'gpt 5', '', '  ', 'gpt-5\n', '\tx']) {
    it(`pi refuses model ${JSON.stringify(m)}`, () => {
      const problem = pi.modelProblem(m);
      assert.ok(problem?.includes('not a pi model'), problem);
    });
  }
  for (const e of ['off', 'minimal', 'low', 'medium', 'high', 'xhigh']) {
    it(`pi takes effort ${e}`, () => assert.equal(pi.effortProblem(e), undefined));
  }
  for (const e of ['max', 'HIGH', '', 'none']) {
    it(`pi refuses effort ${JSON.stringify(e)}`, () => {
      const problem = pi.effortProblem(e);
      assert.ok(problem?.includes(`"${e}"`), problem);
      assert.match(problem!, /off, minimal, low, medium, high, xhigh/);
    });
  }
});

describe("a backend's lists", () => {
  for (const backend of allBackends()) {
    it(`${backend.name} offers models it takes itself`, () => {
      assert.ok(backend.models.length > 0);
      for (const m of backend.models) assert.equal(backend.modelProblem(m), undefined, m);
    });
  }

  it("offers Claude Code's aliases for Claude, and OpenAI's names for Codex", () => {
    assert.deepEqual(backendOf(undefined).models, ['opus', 'sonnet', 'haiku']);
    assert.ok(backendNamed('codex')!.models.includes('gpt-6.2-sol'));
  });

  it('knows Claude Code tool names; pi and Codex check none here (their grants refuse what they lack)', () => {
    const claude = backendOf(undefined);
    for (const tool of ['Read', 'Bash(git *)', 'mcp__gh__list'])
      assert.equal(claude.toolProblem?.(tool), undefined, tool);
    assert.match(claude.toolProblem?.('Bsh') ?? '', /^"Bsh" is not a Claude Code tool \(known: /);
    assert.equal(backendNamed('pi')!.toolProblem, undefined);
    assert.equal(backendNamed('codex')!.toolProblem, undefined);
  });
});
