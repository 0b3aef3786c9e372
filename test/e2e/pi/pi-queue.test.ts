import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { sh, summary } from '../../helpers/cli.js';
import { PiSandbox } from '../../helpers/pi-sandbox.js';
import { queueWorld, TEST_SECRET, type WorkerProcess } from '../../helpers/queue-workers.js';

const box = new PiSandbox();

// Each worker is a machine with a pi folder of its own (the same models.json).
const world = queueWorld(box, (home) =>
  box.env({ HOME: home, PI_CODING_AGENT_DIR: join(home, 'pi-agent') }),
);

/** Whether a worker's pi folder holds the session's file. */
function holds(w: WorkerProcess, session: string): boolean {
  const root = join(w.home, 'pi-agent', 'sessions');
  return (
    existsSync(root) &&
    readdirSync(root).some((d) =>
      readdirSync(join(root, d)).some((f) => f.endsWith(`_${session}.jsonl`)),
    )
  );
}

describe('backend: pi through --queue (real pi, scripted API)', () => {
  it('a pi <goto> chain whose session holder dies between turns goes on elsewhere with the conversation', async (t) => {
    if (!world.redis)
      return t.skip(
        'redis-server is not installed (apt-get install redis-server): queue tests skipped',
      );
    const go = join(box.dir, 'pi-go');
    const ws: WorkerProcess[] = [];
    for (const n of ['a', 'b']) {
      const w = await world.workers.start(`pi-${n}`);
      cpSync(box.agentDir, join(w.home, 'pi-agent'), { recursive: true });
      ws.push(w);
    }
    const s = box.server;
    s.on('PIQ-ONE', { text: 'piq-marker-5 <goto>WAIT.sh</goto>' });
    s.on('PIQ-TWO', (r) => ({
      text: `<result>${r.transcript.includes('piq-marker-5') ? 'remembered' : 'forgot'}</result>`,
    }));
    const wf = box.write(
      {
        'workflow.yaml': 'backend: pi\n',
        'START.md': 'PIQ-ONE',
        'WAIT.sh': sh(`while [ ! -e ${go} ]; do sleep 0.1; done`, 'echo "<goto>TWO.md</goto>"'),
        'TWO.md': 'PIQ-TWO',
      },
      'piq',
    );
    const run = box.run([wf, '--queue', world.redis.url, '--json', '--workflow-id', 'piq'], {
      RAYMOND_QUEUE_SECRET: TEST_SECRET,
    });
    let session: string | null = null;
    let holder: WorkerProcess | undefined;
    for (let i = 0; i < 400 && !holder; i++) {
      await new Promise((r) => setTimeout(r, 50));
      session = existsSync(join(box.dir, '.raymond/state/piq.json'))
        ? box.state('piq').agents[0]!.session
        : null;
      holder = session ? ws.find((w) => holds(w, session!)) : undefined;
    }
    assert.ok(holder, "a worker holds the first turn's pi session");
    await holder.kill();
    writeFileSync(go, '');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'remembered');
    assert.ok(
      holds(
        ws.find((w) => w !== holder)!,
        session!,
      ),
      'the next turn ran on the other worker, in the same session',
    );
  });
});
