import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import {
  CHARS_PER_TOKEN,
  DEFAULT_TURNS,
  GUESS_P90_FACTOR,
  OUTPUT_TOKENS_PER_TURN,
  SECONDS_PER_TURN,
  SYSTEM_PROMPT_TOKENS,
  statePrior,
} from '../../src/plan/state-prior.js';
import { Sandbox, sh } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const PROMPT = 'x'.repeat(4000);

async function nodes() {
  const dir = box.write({
    'START.md': `---\nmodel: opus\n---\n${PROMPT} {{input}}\n<goto>NEXT</goto>\n`,
    'NEXT.md': 'Short. <result>ok</result>\n',
    'DONE.sh': sh("echo '<result>ok</result>'"),
  });
  const graph = await loadWorkflowGraph(dir);
  return (file: string) => graph.nodes.find((n) => n.file === file)!;
}

describe('state prior', () => {
  it('prices a markdown state as its model × (prompt + system prompt) × the default turns', async () => {
    const node = await nodes();
    const prior = statePrior(node('START.md'));
    const body = `${PROMPT} {{input}}\n<goto>NEXT</goto>\n`;
    const tokens = Math.ceil(body.length / CHARS_PER_TOKEN);
    assert.equal(prior.promptTokens, tokens);
    assert.equal(prior.model, 'opus');
    // Opus 5.5: $4 input, $0.20 cache reads, $20 output per million tokens.
    const perTurn = (tokens * 4 + SYSTEM_PROMPT_TOKENS * 0.2 + OUTPUT_TOKENS_PER_TURN * 20) / 1e6;
    assert.ok(Math.abs(prior.forecast.p50Usd - perTurn * DEFAULT_TURNS) < 1e-12);
    assert.ok(Math.abs(prior.forecast.p90Usd - perTurn * DEFAULT_TURNS * GUESS_P90_FACTOR) < 1e-12);
    assert.equal(prior.forecast.p50Ms, SECONDS_PER_TURN * 1000 * DEFAULT_TURNS);
    assert.equal(prior.forecast.basis, 'guess');
  });

  it('counts the run input into the entry state’s prompt, and takes the run model when the state names none', async () => {
    const node = await nodes();
    const bare = statePrior(node('START.md'));
    const withInput = statePrior(node('START.md'), { input: 'y'.repeat(8000) });
    const rendered = `${PROMPT} ${'y'.repeat(8000)}\n<goto>NEXT</goto>\n`;
    assert.equal(withInput.promptTokens, Math.ceil(rendered.length / CHARS_PER_TOKEN));
    assert.ok(withInput.forecast.p50Usd > bare.forecast.p50Usd);
    const next = statePrior(node('NEXT.md'), { model: 'haiku' });
    assert.equal(next.model, 'haiku');
    assert.ok(
      next.forecast.p50Usd < statePrior(node('NEXT.md')).forecast.p50Usd,
      'haiku is cheaper than the default',
    );
  });

  it('makes a script free', async () => {
    const node = await nodes();
    const prior = statePrior(node('DONE.sh'));
    assert.equal(prior.forecast.basis, 'free');
    assert.equal(prior.forecast.p90Usd, 0);
  });
});
