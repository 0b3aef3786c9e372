import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { join } from 'node:path';
import { loadWorkflowGraph } from '../../src/analysis/workflow-graph.js';
import { loadTestFile } from '../../src/testing/test-file.js';
import { lintTest } from '../../src/testing/test-lint.js';
import { ROOT, Sandbox } from '../helpers/cli.js';

const box = new Sandbox();
after(() => box.remove());

const EXAMPLES = join(ROOT, 'workflows/examples');
let n = 0;

/** Lints a test file (YAML text, without its `workflow:` line) against a bundled example. */
async function lint(example: string, yaml: string): Promise<string[]> {
  const workflow = join(EXAMPLES, example);
  const dir = box.write({ [`t${++n}.test.yaml`]: `workflow: ${workflow}\n${yaml}` }, `case${n}`);
  const test = loadTestFile(join(dir, `t${n}.test.yaml`));
  return lintTest(test, await loadWorkflowGraph(workflow)).map((f) => {
    assert.equal(f.file, test.file);
    return `${f.severity} ${f.check}: ${f.message}`;
  });
}

describe('lintTest', () => {
  it('finds nothing wrong in a test that matches its workflow', async () => {
    const yaml = [
      'replies:',
      '  START: ["<goto>REVIEW.md</goto>"]',
      '  REVIEW.md: ["<result>approved</result>"]',
      'expect:',
      '  paths: { main: [START, REVIEW] }',
      '  results: { main: approved }',
      '  never: [REVISE]',
      '  agents: 1',
    ].join('\n');
    assert.deepEqual(await lint('review-loop', yaml), []);
  });

  it('names the states the workflow does not have, with the one meant', async () => {
    const yaml = [
      'replies: { REVEIW: [x] }',
      'expect:',
      '  paths: { main: [START, ESCALATE, ESCALATE] }',
      '  never: [REVIEW.sh]',
    ].join('\n');
    assert.deepEqual(await lint('review-loop', yaml), [
      'error test-unknown-state: replies names state REVEIW, which the workflow does not have (did you mean REVIEW?)',
      'error test-unknown-state: expect.paths of main names state ESCALATE, which the workflow does not have',
      'error test-unknown-state: expect.never names state REVIEW.sh, which the workflow does not have (did you mean REVIEW.md?)',
    ]);
  });

  it('refuses a stub for a markdown state and replies for a script state', async () => {
    assert.deepEqual(await lint('review-loop', 'scripts: { REVIEW: { exit: 0 } }'), [
      'error test-wrong-state-kind: scripts stubs REVIEW, a markdown state: only a script state takes a stub (give it replies: instead)',
    ]);
    assert.deepEqual(await lint('hybrid', 'replies: { CHECK: ["<goto>SUMMARIZE</goto>"] }'), [
      'error test-wrong-state-kind: replies give turns to CHECK, a script state: a script prints its own output (stub it under scripts: instead)',
    ]);
    assert.deepEqual(await lint('hybrid', 'scripts: { CHECK.sh: { exit: 1 } }'), []);
  });

  it("warns of answers for a state that never asks, unless the test's own reply asks", async () => {
    assert.deepEqual(await lint('review-loop', 'answers: { REVIEW: [yes] }'), [
      "warning test-answer-without-ask: answers for REVIEW, which never asks: neither the state nor the test's replies for it hold an <ask>",
    ]);
    const asks = [
      'replies: { REVIEW: [\'<ask next="REVISE.md">ship it?</ask>\'] }',
      'answers: { REVIEW: [yes] }',
    ].join('\n');
    assert.deepEqual(await lint('review-loop', asks), []);
  });

  it('refuses agents a workflow without <fork> cannot have', async () => {
    const yaml = [
      'replies:',
      '  REVIEW:',
      '    - { when: { item: a }, text: "<result>a</result>" }',
      '    - { agent: main_review1, text: "<result>b</result>" }',
      'expect:',
      '  paths: { main_review1: [REVIEW] }',
      '  agents: 2',
    ].join('\n');
    assert.deepEqual(await lint('review-loop', yaml), [
      'error test-impossible-agent: replies of REVIEW: when: never matches, as the workflow has no <fork> and so no agent has fork attributes',
      'error test-impossible-agent: expect.paths names agent main_review1, which cannot exist: the workflow has no <fork>, so its only agent is main',
      'error test-impossible-agent: replies of REVIEW names agent main_review1, which cannot exist: the workflow has no <fork>, so its only agent is main',
      'error test-impossible-agent: expect.agents is 2, but the workflow has no <fork>: its only agent is main',
    ]);
  });

  it("accepts the workers a workflow's forks make, and refuses other stems and shapes", async () => {
    const ok = [
      'replies: { WORKER: [{ when: { item: a }, text: "<result>a</result>" }] }',
      'expect:',
      '  results: { main_worker1: a, main_worker1_worker12: b }',
      '  agents: 3',
    ].join('\n');
    assert.deepEqual(await lint('dispatch', ok), []);
    const bad = 'expect:\n  results: { main_work1: a, main_worker: b, other_worker1: c }';
    assert.deepEqual(await lint('dispatch', bad), [
      'error test-impossible-agent: expect.results names agent main_work1, which cannot exist: no <fork> makes a "work" worker (its targets give worker)',
      "error test-impossible-agent: expect.results names agent main_worker, which cannot exist: worker is not a worker's {stem}{n} (worker1)",
      'error test-impossible-agent: expect.results names agent other_worker1, which cannot exist: agents are main and its workers, {parent}_{stem}{n} (main_worker1)',
    ]);
  });

  it("counts the forks of the test's own replies", async () => {
    const yaml = [
      'replies: { START: [\'<fork next="REVIEW.md" item="a">REVISE.md</fork>\'] }',
      'expect: { results: { main_revise1: ok } }',
    ].join('\n');
    assert.deepEqual(await lint('review-loop', yaml), []);
  });

  it('accepts any worker of a fork whose target only the run knows', async () => {
    const wf = box.write(
      {
        'START.md': 'Fork <fork next="DONE.md">{{target}}</fork>',
        'DONE.md': '<result>ok</result>',
      },
      'dynamic',
    );
    const file = join(
      box.write(
        { 'any.test.yaml': `workflow: ${wf}\nexpect: { results: { main_whatev3: ok } }\n` },
        'dynamic-tests',
      ),
      'any.test.yaml',
    );
    assert.deepEqual(lintTest(loadTestFile(file), await loadWorkflowGraph(wf)), []);
  });
});
