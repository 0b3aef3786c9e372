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
//
// With "floor": {"spawner": PATH, "flags": [...], "journal": PATH}, the runs go
// through `lanes` of Raymond's own spawner processes instead, and each run's
// tag is found and recorded as one journal line (written once per turn of the
// event loop, as Raymond does): what any orchestrator over those spawners must
// pay at the least, with no agent machines, no supervisor and no debug logs.
import { spawn } from 'node:child_process';
import { openSync, writeSync } from 'node:fs';

const { lanes, jobs, floor } = JSON.parse(process.argv[2] ?? '');
const queue = jobs.flatMap((job) =>
  Array.from({ length: job.runs }, (_, n) => ({ script: job.script, k: job.worker ? n + 1 : 0 })),
);
const ids = (k) => ({
  RAYMOND_WORKFLOW_ID: 'bench',
  RAYMOND_AGENT_ID: k ? `main_worker${k}` : 'main',
  ...(k ? { i: String(k) } : {}),
});

/** One script run; resolves with whether it exited 0. */
function run({ script, k }) {
  const env = { ...process.env, ...ids(k) };
  return new Promise((resolve) => {
    // Like Raymond: a process group of its own, stdin closed, output read.
    const child = spawn('bash', [script], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
}

/** The floor's runner: Raymond's spawner protocol, one spawner per lane, a journal line per run. */
function spawnerRunner({ spawner, flags, journal }) {
  const fd = openSync(journal, 'w');
  let lines = [];
  const record = (line) => {
    if (lines.length === 0)
      setImmediate(() => (writeSync(fd, `${lines.join('\n')}\n`), (lines = [])));
    lines.push(line);
  };
  const waiting = new Map();
  const children = Array.from({ length: lanes }, () => {
    const child = spawn(process.execPath, [...flags, spawner], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (data) => {
      buffer += data;
      for (let end = buffer.indexOf('\n'); end !== -1; end = buffer.indexOf('\n')) {
        const reply = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        if (reply.type === 'exit') waiting.get(reply.id)(reply);
      }
    });
    return child;
  });
  let next = 0;
  const runOne = ({ script, k }) =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, (reply) => {
        waiting.delete(id);
        const tag = /<(result|goto|fork|reset|call|function)\b[^>]*>/.exec(reply.stdout);
        record(
          JSON.stringify({
            agent: ids(k).RAYMOND_AGENT_ID,
            step: script,
            tag: tag?.[0] ?? null,
            exit: reply.exitCode,
          }),
        );
        resolve(reply.exitCode === 0 && tag !== null);
      });
      const message = {
        type: 'run',
        id,
        file: 'bash',
        args: [script],
        cwd: process.cwd(),
        env: ids(k),
        inactivityMs: 600_000,
        stream: false,
      };
      children[id % lanes].stdin.write(`${JSON.stringify(message)}\n`);
    });
  return { run: runOne, close: () => children.forEach((child) => child.stdin.end()) };
}

const runner = floor ? spawnerRunner(floor) : { run, close() {} };
let next = 0;
let failed = 0;
async function lane() {
  while (next < queue.length) {
    const item = queue[next++];
    if (!(await runner.run(item))) failed++;
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: lanes }, lane));
const loopMs = performance.now() - started;
runner.close();
// The loop's own CPU (not its children's): what Raymond's orchestrator is set against per step.
const cpu = process.cpuUsage();
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(`${JSON.stringify({ loopMs, runs: queue.length, failed, cpuMs })}\n`);
