import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resumedToEnd, stoppedAtBudget } from '../../helpers/budget-hard.js';
import { CodexSandbox } from '../../helpers/codex-sandbox.js';

/*
 * --budget-hard on Codex: `codex exec --json` tells no usage before its turn
 * ends, so the executor reads the rollout's token count as the turn's items
 * come. codex writes a response's count a moment after it (measured on
 * 0.171: by the next response), so a Codex turn is stopped one message
 * later than a Claude Code or pi turn.
 */

const box = new CodexSandbox();
before(async () => {
  await box.start();
  writeFileSync(
    join(box.dir, '.raymond', 'config.toml'),
    '[raymond.prices."mock-model"]\ninput = 2\ncached_input = 0.5\noutput = 10\n',
  );
});
after(() => box.stop());

const USAGE = { input: 100_000, output: 100 };
/** A response's price at the config's $2 / $10 per million tokens. */
const MESSAGE = (100_000 * 2 + 100 * 10) / 1e6;
/** The turn runs a command until its input holds this many items: about ten responses. */
const LONG = 24;

describe('--budget-hard on Codex (real codex, scripted API)', () => {
  const budget = 3.5 * MESSAGE;
  let stopped = 0;

  before(() => {
    box.server.on('CDX-HARD-LONG', (r) =>
      r.inputCount < LONG
        ? { command: 'sleep 1', again: true, usage: USAGE }
        : { text: '<result>long done</result>', usage: USAGE },
    );
  });

  it('stops the turn once its rollout tells the budget is reached: paused in its thread, charged its tokens', async () => {
    const wf = box.write(
      { 'workflow.yaml': 'backend: codex\n', 'START.md': 'CDX-HARD-LONG' },
      'long',
    );
    const { out } = await stoppedAtBudget(box, wf, 'cdxhard', budget);
    const served = box.server.requestsFor('CDX-HARD-LONG').length;
    assert.ok(served >= 4 && served <= 6, `${served} responses served of about ten`);
    assert.ok(
      out.total_cost_usd >= budget && out.total_cost_usd <= budget + 2 * MESSAGE + 1e-9,
      `${out.total_cost_usd} for a budget of ${budget}, ${served} responses`,
    );
    stopped = out.total_cost_usd;
  });

  it('--resume with a larger budget goes on in that thread and completes', async () => {
    const before = box.server.requests.length;
    const out = await resumedToEnd(box, 'cdxhard', 30 * MESSAGE);
    const resumed = box.server.requests.slice(before);
    assert.ok(resumed[0]!.inputCount > 8, `${resumed[0]!.inputCount} items: the stopped turn's`);
    assert.ok(out.total_cost_usd > stopped);
  });
});
