// The baseline of the warm bench: the same Claude Code turns as a Raymond
// run, typed by hand into live processes. Each agent is one
// `claude -p --input-format stream-json` process fed its prompts one after
// the other, each sent when the previous `result` line arrives; `lanes`
// agents at once. Plain JavaScript, so that no loader is in it.
//
//   node bench/warm-loop.mjs '{"lanes":4,"agents":[["prompt 1","prompt 2"]],"cwd":"/t","bin":"claude"}'
//
// Prints {"loopMs", "turns", "failed"} as JSON.
import { spawn } from 'node:child_process';

const { lanes, agents, cwd, bin } = JSON.parse(process.argv[2] ?? '');
const flags = [
  '-p',
  '--input-format',
  'stream-json',
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'acceptEdits',
];

/** One agent's prompts through one live process; resolves with the turns that ended in a result. */
function agent(prompts) {
  return new Promise((resolve) => {
    const child = spawn(bin, flags, { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let buffer = '';
    let turns = 0;
    const send = () =>
      child.stdin.write(
        `${JSON.stringify({ type: 'user', message: { role: 'user', content: prompts[turns] } })}\n`,
      );
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (data) => {
      buffer += data;
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        let type;
        try {
          type = JSON.parse(line).type;
        } catch {
          continue;
        }
        if (type !== 'result') continue;
        turns++;
        if (turns < prompts.length) send();
        else child.stdin.end();
      }
    });
    child.on('close', () => resolve(turns));
    send();
  });
}

let next = 0;
let turns = 0;
let failed = 0;
async function lane() {
  while (next < agents.length) {
    const prompts = agents[next++];
    const done = await agent(prompts);
    turns += done;
    if (done < prompts.length) failed++;
  }
}
const started = performance.now();
await Promise.all(Array.from({ length: lanes }, lane));
process.stdout.write(`${JSON.stringify({ loopMs: performance.now() - started, turns, failed })}\n`);
