import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import { createInlineLanguageService, createPoolLanguageService } from '../../src/language/language-service.js';

const pool = createPoolLanguageService({ threads: 1 });
const inline = createInlineLanguageService();
after(() => pool.close());

describe('language service: pool and inline agree', () => {
  for (const [name, service] of [['pool', pool], ['inline', inline]] as const) {
    it(`${name}: prepares a markdown state`, async () => {
      const prepared = await service.prepare({ text: '---\nmodel: haiku\nfoo: 1\n---\nHi {{agent_id}} {{x}}', file: 'wf/A.md', variables: { agent_id: 'main' } });
      assert.deepEqual(prepared, { policy: { model: 'haiku' }, prompt: 'Hi main {{x}}', warnings: ['unknown frontmatter key "foo" (known: allowed_transitions, model, effort)'] });
    });

    it(`${name}: interprets an output`, async () => {
      const r = await service.interpret({ output: '<print>p</print> <call return="B">C</call>', file: 'wf/A.md' });
      assert.deepEqual(r, { prints: ['p'], decision: { kind: 'call', target: 'C', returnTo: 'B', input: undefined } });
    });

    it(`${name}: rebuilds errors with their class, code and file`, async () => {
      await assert.rejects(service.interpret({ output: '<goto>../x</goto>', file: 'wf/A.md' }), (err: unknown) => {
        assert.ok(err instanceof RaymondError);
        assert.equal(err.code, 'ERR_TARGET_INVALID');
        assert.equal(err.file, 'wf/A.md');
        assert.match(formatError(err), /^wf\/A\.md: <goto> target "\.\.\/x" is a path/);
        return true;
      });
    });
  }

  it('pool: an aborted task rejects', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(pool.interpret({ output: '<goto>A</goto>', file: 'f' }, controller.signal));
  });
});
