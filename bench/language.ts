import {
  createInlineLanguageService,
  createPoolLanguageService,
  type LanguageService,
} from '../src/language/language-service.js';

const PROMPT = `---\nmodel: haiku\nallowed_transitions:\n  - { tag: goto, target: NEXT.md }\n  - { tag: result }\n---\n${'Review {{item}} for {{agent_id}} in {{workflow_id}}.\n'.repeat(40)}`;
const OUTPUT = `${'I looked at the files and everything is fine. '.repeat(50)}<print>ok</print><goto>NEXT.md</goto>`;

async function measure(service: LanguageService, n: number, concurrency: number): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const lane = async () => {
    while (next++ < n) {
      await service.prepare({
        text: PROMPT,
        file: 'S.md',
        variables: { item: 'x', agent_id: 'main', workflow_id: 'w' },
      });
      await service.interpret({ output: OUTPUT, file: 'S.md' });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return ((performance.now() - t0) * 1000) / n;
}

/** Microseconds of wall time per step (one prepare plus one interpret), pool against inline. */
export async function benchLanguage(n: number): Promise<{ poolUs: number; inlineUs: number }> {
  const pool = createPoolLanguageService();
  try {
    await measure(pool, 200, 8);
    const poolUs = await measure(pool, n, 8);
    const inline = createInlineLanguageService();
    await measure(inline, 200, 8);
    return { poolUs, inlineUs: await measure(inline, n, 8) };
  } finally {
    await pool.close();
  }
}
