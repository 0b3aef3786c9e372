import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestResult } from '../../src/testing/test-runner.js';
import { usd } from '../../machines/money.js';
import { junitXml, suiteJson, summaryLine, testLines } from '../../src/testing/test-report.js';

const pass: TestResult = {
  file: 'wf/tests/a.test.yaml',
  name: 'a',
  passed: true,
  costUsd: 0.0045,
  events: [],
};
const fail: TestResult = {
  file: 'wf/tests/b.test.yaml',
  name: 'b & <c>',
  passed: false,
  costUsd: 0.00001234,
  events: [],
  divergence: {
    what: 'agent main, step 2 (after START)',
    expected: 'REVIEW',
    got: 'DONE',
    state: 'START',
    prompt: 'line 1\n\u0007bell\n',
  },
};

describe('test report', () => {
  it('shows money to four significant figures, never rounded to zero', () => {
    assert.deepEqual([0, 0.00001234, 0.0045, 12.345678].map(usd), [
      '$0.00',
      '$0.00001234',
      '$0.0045',
      '$12.35',
    ]);
  });
  it('gives each test one line, and a failure its divergence and prompt below', () => {
    assert.deepEqual(testLines(pass), ['ok    wf/tests/a.test.yaml  a  ($0.0045)']);
    assert.deepEqual(testLines(fail), [
      'FAIL  wf/tests/b.test.yaml  b & <c>  ($0.00001234)',
      '      agent main, step 2 (after START)',
      '      expected: REVIEW',
      '      got:      DONE',
      '      prompt the model saw in START:',
      '        | line 1',
      '        | \u0007bell',
    ]);
    assert.equal(
      summaryLine([pass, fail]),
      '2 tests: 1 passed, 1 failed (scripted cost $0.004510, nothing spent)'.replace(
        '$0.004510',
        usd(0.0045 + 0.00001234),
      ),
    );
  });
  it('writes JUnit XML with escaped text and no control characters, and JSON with the counts', () => {
    const xml = junitXml([pass, fail]);
    assert.match(xml, /<testsuite name="raymond test" tests="2" failures="1">/);
    assert.match(xml, /<testcase classname="wf\/tests\/a\.test\.yaml" name="a"\/>/);
    assert.match(
      xml,
      /<testcase classname="wf\/tests\/b\.test\.yaml" name="b &amp; &lt;c&gt;">\n {4}<failure message="agent main, step 2 \(after START\)">/,
    );
    assert.doesNotMatch(xml, /\u0007/);
    assert.deepEqual(suiteJson([pass, fail]).failed, 1);
  });
});
