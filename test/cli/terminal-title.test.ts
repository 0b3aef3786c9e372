import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTerminalTitle, stateStem } from '../../src/cli/terminal-title.js';

describe('terminal title', () => {
  it('strips only the last extension', () => {
    assert.deepEqual(['START.md', 'CHECK.sh', 'foo.bar.md', 'NOEXT', '.hidden'].map(stateStem), [
      'START',
      'CHECK',
      'foo.bar',
      'NOEXT',
      '.hidden',
    ]);
  });

  it('sets the title (OSC 2) when a state starts, once per change, with no control characters from the name', () => {
    const out: string[] = [];
    const title = createTerminalTitle({ write: (t: string) => out.push(t) });
    title({ type: 'step.started', agentId: 'main', state: 'START.md' });
    title({ type: 'step.started', agentId: 'main_w1', state: 'START.md' });
    title({ type: 'print', agentId: 'main', text: 'x' });
    title({ type: 'step.started', agentId: 'main', state: 'EVIL\u0007\u001b]2;x.sh' });
    assert.deepEqual(out, ['\u001b]2;ray: START\u0007', '\u001b]2;ray: EVIL]2;x\u0007']);
  });

  it("puts a run's --name before the state", () => {
    const out: string[] = [];
    const title = createTerminalTitle({ write: (t: string) => out.push(t) });
    title({
      type: 'run.started',
      workflowId: 'w',
      workflow: 'w',
      name: 'nightly',
      resumed: false,
      at: 0,
      budgetUsd: 0,
      totalCostUsd: 0,
      counts: { idle: 0, invoking: 0, 'awaiting-child': 0, terminated: 0, paused: 0, asking: 0 },
    });
    title({ type: 'step.started', agentId: 'main', state: 'START.md' });
    assert.deepEqual(out, ['\u001b]2;ray: nightly: START\u0007']);
  });
});
