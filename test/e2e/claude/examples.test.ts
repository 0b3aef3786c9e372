import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, summary } from '../../helpers/cli.js';
import { ClaudeSandbox } from '../../helpers/claude-sandbox.js';
import type { ApiRequest } from '../../helpers/api-server.js';

const box = new ClaudeSandbox();
before(() => box.start());
after(() => box.stop());

const example = (name: string) => join(ROOT, 'workflows/examples', name);
const sandboxed = { IS_SANDBOX: '1' };

/** A reply that writes a file with Claude Code's Write tool, then answers `text`. */
function writeThen(file: (r: ApiRequest) => [string, string], text: string) {
  return (r: ApiRequest) => {
    if (r.afterTool) return { text };
    const [name, content] = file(r);
    return { toolUse: { name: 'Write', input: { file_path: join(r.cwd!, name), content } } };
  };
}

describe('markdown example workflows against the scripted API', () => {
  it('classify: a function call to a cheap classifier, back in the caller session', async () => {
    const s = box.server;
    s.on('You triage support tickets', (r) => ({
      text: `<function return="ROUTE.md" input="${/ticket:\n\n(.*)/.exec(r.prompt)![1]}">CLASSIFY.md</function>`,
    }));
    s.on('Classify this support ticket', (r) => ({
      text: `<result>${r.prompt.includes('crashes') ? 'BUG' : 'QUESTION'}</result>`,
    }));
    s.on('The classifier labelled', (r) => ({
      text: `<result>${/as: (\w+)/.exec(r.prompt)![1]}: route to the app team</result>`,
    }));
    const r = await box.run([
      example('classify'),
      '--json',
      '--input',
      'The app crashes when I save',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'BUG: route to the app team');
    assert.match(s.requestsFor('Classify this support ticket')[0]!.model, /haiku/);
    assert.match(
      s.requestsFor('The classifier labelled')[0]!.transcript,
      /The app crashes when I save/,
      'ROUTE resumed the triage session',
    );
  });

  it('plan-then-implement: the plan is written, then implemented in a fresh session', async () => {
    const s = box.server;
    s.on(
      'numbered implementation plan',
      writeThen(
        () => ['plan.md', '1. create hello.txt\n'],
        'Plan written. <reset>IMPLEMENT.md</reset>',
      ),
    );
    s.on('Implement the plan in', (r) =>
      r.afterTool
        ? { text: '<result>created hello.txt</result>' }
        : {
            toolUse: {
              name: 'Bash',
              input: {
                command: 'test -f plan.md && echo hi > hello.txt',
                description: 'implement',
              },
            },
          },
    );
    const r = await box.run(
      [
        example('plan-then-implement'),
        '--json',
        '--input',
        'add a greeting file',
        '--dangerously-skip-permissions',
      ],
      sandboxed,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'created hello.txt');
    assert.equal(readFileSync(join(box.dir, 'plan.md'), 'utf8'), '1. create hello.txt\n');
    assert.equal(readFileSync(join(box.dir, 'hello.txt'), 'utf8'), 'hi\n');
    assert.equal(
      s.requestsFor('Implement the plan in')[0]!.messageCount,
      2,
      'reset: a fresh session',
    );
  });

  it('research: a call whose dead ends never reach the caller', async () => {
    const s = box.server;
    s.on('A user asks', { text: '<call return="ANSWER.md">RESEARCH.md</call>' });
    s.on("Research the user's question", (_r, n) => ({
      text:
        n === 1
          ? 'dead-end-noise, another pass <goto>RESEARCH.md</goto>'
          : '<result>README.md line 3 says so</result>',
    }));
    s.on('The research found', (r) => ({
      text: `<result>Answer from: ${/found:\n\n(.*)/.exec(r.prompt)![1]}</result>`,
    }));
    const r = await box.run([example('research'), '--json', '--input', 'where is the config?']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'Answer from: README.md line 3 says so');
    const answer = s.requestsFor('The research found')[0]!;
    assert.match(answer.transcript, /where is the config\?/);
    assert.doesNotMatch(answer.transcript, /dead-end-noise/);
  });

  it('dispatch: one forked worker per item, each writing its file', async () => {
    const s = box.server;
    s.on('comma-separated list of items', (r) => ({
      text: /items: (.*)/
        .exec(r.prompt)![1]!
        .split(',')
        .map((i) => `<fork next="DONE.md" item="${i.trim()}">WORKER.md</fork>`)
        .join('\n'),
    }));
    s.on('You are worker', (r) => {
      const item = /Your item is: (\w+)/.exec(r.prompt)![1]!;
      return writeThen(
        () => [`${item}.txt`, `${item} is a fruit\n`],
        `<result>${item}: done</result>`,
      )(r);
    });
    s.on('The workers are running', { text: '<result>dispatched</result>' });
    const r = await box.run([example('dispatch'), '--json', '--input', 'apple, pear']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(summary(r).results, {
      main: 'dispatched',
      main_worker1: 'apple: done',
      main_worker2: 'pear: done',
    });
    assert.equal(readFileSync(join(box.dir, 'pear.txt'), 'utf8'), 'pear is a fruit\n');
  });

  it('review-loop: a reviewer that is never satisfied is stopped by the budget', async () => {
    const s = box.server;
    const heavy = { input_tokens: 40_000, output_tokens: 100 };
    s.on('Write a first draft', { text: '<goto>REVIEW.md</goto>', usage: heavy });
    s.on('Review `draft.md` strictly', { text: 'Too long. <goto>REVISE.md</goto>', usage: heavy });
    s.on('Fix the problems you just listed', { text: '<goto>REVIEW.md</goto>', usage: heavy });
    const r = await box.run([
      example('review-loop'),
      '--json',
      '--input',
      'a haiku about state machines',
      '--budget',
      '0.5',
    ]);
    assert.equal(r.code, 3, r.stderr);
    assert.equal(summary(r).status, 'budget_exceeded');
    assert.ok(s.requestsFor('Fix the problems').length >= 1, 'it looped at least once');
    assert.ok(
      s.requestsFor('Fix the problems').every((q) => /sonnet/.test(q.model)),
      'revisions run on sonnet, not the reviewer’s haiku',
    );
    assert.ok(s.requestsFor('Review `draft.md`').every((q) => /haiku/.test(q.model)));
  });

  it('hybrid: scripts gather and check, the model only summarizes', async () => {
    box.write({ 'notes/a.md': '# A\n', 'notes/b.md': '# B\n' });
    box.server.on(
      'Read these markdown files',
      writeThen(() => ['summary.txt', 'Two tiny notes.\nline 2\nline 3\n'], 'Summary written.'),
    );
    const r = await box.run([example('hybrid'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summary(r).results.main, 'Two tiny notes.');
    assert.match(r.stderr, /found \d+ markdown files/);
    assert.match(box.server.requestsFor('Read these markdown files')[0]!.prompt, /notes\/a\.md/);
    assert.ok(existsSync(join(box.dir, 'summary.txt')));
  });
});
