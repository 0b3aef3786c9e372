import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { RaymondError, formatError } from '../../src/errors.js';
import {
  createInlineLanguageService,
  createLanguageService,
  createPoolLanguageService,
} from '../../src/language/language-service.js';

const pool = createPoolLanguageService({ threads: 1 });
const inline = createInlineLanguageService();
// The run's own service: small outputs inline, large ones on the pool (a tiny threshold sends the big ones there).
const hybrid = createLanguageService({ inlineBelow: 32 });
after(() => Promise.all([pool.close(), hybrid.close()]));

describe("language service: pool, inline and the run's mix agree", () => {
  for (const [name, service] of [
    ['pool', pool],
    ['inline', inline],
    ['mixed', hybrid],
  ] as const) {
    it(`${name}: prepares a markdown state`, async () => {
      const prepared = await service.prepare({
        text: '---\nmodel: haiku\nfoo: 1\n---\nHi {{agent_id}} {{x}}',
        file: 'wf/A.md',
        variables: { agent_id: 'main' },
      });
      assert.deepEqual(prepared, {
        policy: { model: 'haiku' },
        prompt: 'Hi main {{x}}',
        warnings: [
          'unknown frontmatter key "foo" (known: allowed_transitions, model, fallback_models, effort, timeout, force_implicit, budget, tools, allowed_tools, disallowed_tools, mcp_servers, mcp_inherit, append_system_prompt, add_dirs, permission_mode, on_denial)',
        ],
      });
    });

    it(`${name}: interprets an output`, async () => {
      const r = await service.interpret({
        output: '<print>p</print> <call return="B">C</call>',
        file: 'wf/A.md',
      });
      assert.deepEqual(r, {
        prints: ['p'],
        decision: { kind: 'call', target: 'C', returnTo: 'B', input: undefined },
      });
    });

    it(`${name}: rebuilds errors with their class, code and file`, async () => {
      await assert.rejects(
        service.interpret({ output: '<goto>../x</goto>', file: 'wf/A.md' }),
        (err: unknown) => {
          assert.ok(err instanceof RaymondError);
          assert.equal(err.code, 'ERR_TARGET_INVALID');
          assert.equal(err.file, 'wf/A.md');
          assert.match(formatError(err), /^wf\/A\.md: <goto> target "\.\.\/x" is a path/);
          return true;
        },
      );
    });
  }

  it('mixed: a large output goes through the pool and reads the same', async () => {
    const output = `${' '.repeat(100)}<fork next="B" item="1">W</fork><fork next="B" item="2">W</fork>`;
    assert.deepEqual(
      await hybrid.interpret({ output, file: 'f' }),
      await inline.interpret({ output, file: 'f' }),
    );
  });

  it('pool: an aborted task rejects', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      pool.interpret({ output: '<goto>A</goto>', file: 'f' }, controller.signal),
    );
  });
});
