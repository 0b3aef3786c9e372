// The baseline of the fanout bench: the same script runs as a Raymond run,
// spawned at the same parallelism from a process that stays small, so its
// fork()s copy few page tables (the bench process itself, with tsx loaded,
// would not). Plain JavaScript, so that no loader is in it.
//
//   node bench/plain-loop.mjs '{"lanes":2,"jobs":[{"script":"/x/W1.sh","runs":1000,"worker":true}]}'
//
// Each job's script runs `runs` times, jobs in order, `lanes` at once; a
// worker run k gets `i=k` as Raymond gives a fork attribute, and every run
// gets the two RAYMOND_ ids. Prints {"loopMs", "runs", "failed"} as JSON.
import { spawn } from 'node:child_process';

const { lanes, jobs } = JSON.parse(process.argv[2] ?? '');
const queue = jobs.flatMap((job) => Array.from({ length: job.runs }, (_, n) => ({ script: job.script, k: job.worker ? n + 1 : 0 })));

/** One script run; resolves with whether it exited 0. */
function run({ script, k }) {
  const env = { ...process.env, RAYMOND_WORKFLOW_ID: 'bench', RAYMOND_AGENT_ID: k ? `main_worker${k}` : 'main' };
  if (k) env.i = String(k);
  return new Promise((resolve) => {
    // Like Raymond: a process group of its own, stdin closed, output read.
    const child = spawn('bash', [script], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

let next = 0;
let failed = 0;
async function lane() {
  while (next < queue.length) {
    const item = queue[next++];
    if (!(await run(item))) failed++;
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: lanes }, lane));
const loopMs = performance.now() - started;
process.stdout.write(`${JSON.stringify({ loopMs, runs: queue.length, failed })}\n`);
