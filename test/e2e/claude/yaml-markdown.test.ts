import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

describe('YAML markdown states', () => {
  it("enforce the state's allowed_transitions and pass its model", async () => {
    const s = box.server;
    s.on('YAML-ASK', (_r, n) => ({
      text: n === 1 ? '<goto>ELSEWHERE</goto>' : '<goto>NEXT</goto>',
    }));
    s.on('YAML-NEXT', { text: '<result>yaml done</result>' });
    const flow = [
      'states:',
      '  START:',
      '    prompt: YAML-ASK',
      '    model: haiku',
      '    allowed_transitions:',
      '      - { tag: goto, target: NEXT.md }',
      '  NEXT:',
      '    prompt: YAML-NEXT',
      '  ELSEWHERE:',
      '    prompt: never',
      '',
    ].join('\n');
    writeFileSync(join(box.dir, 'flow.yaml'), flow);
    const r = await box.run(['flow.yaml', '--json', '--model', 'sonnet']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'yaml done');
    const asks = s.requestsFor('YAML-ASK');
    assert.equal(asks.length, 2, 'the disallowed goto was refused and reminded');
    assert.match(
      asks[1]!.prompt,
      /emitted <goto>ELSEWHERE<\/goto>, which allowed_transitions does not allow/,
    );
    assert.ok(
      asks.every((q) => /haiku/.test(q.model)),
      "the state's model beats --model",
    );
    assert.ok(
      s.requestsFor('YAML-NEXT').every((q) => /sonnet/.test(q.model)),
      'a state without model: --model',
    );
  });
});
