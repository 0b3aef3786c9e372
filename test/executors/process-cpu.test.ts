import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { CpuSampler, processCpuMs } from '../../src/executors/process-cpu.js';

describe('processCpuMs', () => {
  it("reads this process's CPU time, which grows as it works", () => {
    const before = processCpuMs(process.pid)!;
    const until = Date.now() + 300;
    let x = 0;
    while (Date.now() < until) x += Math.sqrt(x + 1);
    assert.ok(x > 0);
    const after = processCpuMs(process.pid)!;
    assert.ok(after - before >= 100, `${before} -> ${after}`);
  });

  it('is undefined for a process that is not there', () => {
    assert.equal(processCpuMs(2 ** 22 + 12345), undefined);
  });
});

describe('CpuSampler', () => {
  it("keeps a busy child's CPU time as last sampled when its output ends", async () => {
    const child = spawn(
      'bash',
      ['-c', 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo done'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const cpu = new CpuSampler(child.pid);
    child.stdout.on('data', () => cpu.sample());
    child.stdout.on('end', () => cpu.sample(true));
    await new Promise((resolve) => child.on('close', resolve));
    assert.ok(cpu.ms >= 100, `sampled ${cpu.ms} ms`);
  });
});
