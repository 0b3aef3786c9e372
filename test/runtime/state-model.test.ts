import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backendNamed, defaultBackend } from '../../src/agents/registry/registry.js';
import { stateModel } from '../../src/runtime/state-model.js';

describe('stateModel', () => {
  const claude = defaultBackend();
  const codex = backendNamed('codex')!;

  it("takes the state's own model and effort over the run's", () => {
    assert.deepEqual(
      stateModel(
        claude,
        { model: 'opus', effort: 'high' },
        { model: 'sonnet', effort: 'low' },
        'A.md',
      ),
      { model: 'opus', effort: 'high' },
    );
    assert.deepEqual(stateModel(codex, {}, { model: 'gpt-5-codex', effort: 'max' }, 'A.md'), {
      model: 'gpt-5-codex',
      effort: 'max',
    });
    assert.deepEqual(stateModel(claude, {}, {}, 'A.md'), {});
  });

  it("refuses a run-wide value this state's backend does not take, naming the flag and the backend", () => {
    assert.throws(() => stateModel(claude, {}, { model: 'gpt-5-codex' }, 'A.md'), {
      code: 'ERR_MODEL',
      file: 'A.md',
      message:
        /^--model: model "gpt-5-codex" is not .*\(this state's workflow runs on Claude Code\)$/,
    });
    assert.throws(() => stateModel(claude, { model: 'opus' }, { effort: 'max' }, 'A.md'), {
      message:
        /^--effort: effort "max" is not one of low, medium, high \(this state's workflow runs on Claude Code\)$/,
    });
  });

  it("refuses the state's own value in the backend's words alone", () => {
    assert.throws(() => stateModel(claude, { model: 'gpt-5' }, {}, 'A.md'), {
      code: 'ERR_MODEL',
      message: /^model "gpt-5" is not opus, sonnet, haiku/,
    });
  });

  it('takes fallback models from the state, else the run, each checked by the backend', () => {
    assert.deepEqual(
      stateModel(claude, { fallbackModels: ['haiku'] }, { fallbackModels: ['opus'] }, 'A.md'),
      { fallbackModels: ['haiku'] },
    );
    assert.deepEqual(
      stateModel(claude, { model: 'opus' }, { fallbackModels: ['sonnet'] }, 'A.md'),
      {
        model: 'opus',
        fallbackModels: ['sonnet'],
      },
    );
    assert.throws(() => stateModel(claude, { fallbackModels: ['haiku', 'gpt-5'] }, {}, 'A.md'), {
      code: 'ERR_MODEL',
      message: /^fallback_models: model "gpt-5" is not opus, sonnet, haiku/,
    });
    assert.throws(() => stateModel(claude, {}, { fallbackModels: ['gpt-5'] }, 'A.md'), {
      message:
        /^--fallback-models: model "gpt-5" is not .*\(this state's workflow runs on Claude Code\)$/,
    });
  });
});
