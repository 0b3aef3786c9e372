import type { ApiServer } from './api-server.js';

/** A workflow whose START forks `n` workers, one markdown turn each (`Worker N: say the word.`), then ends. */
export function fanOut(n: number): Record<string, string> {
  const forks = Array.from({ length: n }, (_, i) => `<fork n="${i}">WORKER.md</fork>`);
  return {
    'START.sh': `#!/usr/bin/env bash\ncat <<'EOF'\n${forks.join('\n')}\n<goto>DONE.sh</goto>\nEOF\n`,
    'WORKER.md': 'Worker {{n}}: say the word.',
    'DONE.sh': '#!/usr/bin/env bash\necho "<result>all forked</result>"\n',
  };
}

/** The scripted API answers each of fanOut's turns with its worker's number: `<result>worker N done</result>`. */
export function answerWorkers(server: ApiServer): void {
  server.on(/^Worker (\d+)/, (r) => ({
    text: `<result>worker ${/^Worker (\d+)/.exec(r.prompt)![1]} done</result>`,
  }));
}

/**
 * answerWorkers with a known usage a turn (20,000 input tokens), and the
 * price of one such turn as this `claude` computes it, from a one-worker
 * workflow of its own (`probe`), so the runs after it have no history.
 */
export async function priceWorkers(box: {
  server: ApiServer;
  write(files: Record<string, string>, name: string): string;
  run(args: string[]): Promise<{ stdout: string; stderr: string }>;
}): Promise<number> {
  box.server.on(/^Worker (\d+)/, (r) => ({
    text: `<result>worker ${/^Worker (\d+)/.exec(r.prompt)![1]} done</result>`,
    usage: { input_tokens: 20_000, output_tokens: 100 },
  }));
  const probe = await box.run([box.write(fanOut(1), 'probe'), '--json', '--workflow-id', 'probe']);
  const turn = (JSON.parse(probe.stdout) as { total_cost_usd: number }).total_cost_usd;
  if (!(turn > 0)) throw new Error(`the probe turn cost nothing: ${probe.stderr}`);
  return turn;
}
