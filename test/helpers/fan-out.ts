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
