import { usd } from '../../machines/money.js';
import type { Divergence } from './test-checks.js';
import type { TestResult } from './test-runner.js';

/** Lines of a prompt shown under a failure: all of a short one; of a long one its start and its end, where a reminder says why the last reply was refused. */
const PROMPT_HEAD = 8;
const PROMPT_TAIL = 12;

/** A divergence as indented lines under its test's line. */
function divergenceLines(d: Divergence): string[] {
  const lines = [`      ${d.what}`];
  if (d.expected !== undefined) lines.push(`      expected: ${d.expected}`);
  if (d.got !== undefined) lines.push(`      got:      ${d.got}`);
  if (d.prompt !== undefined) {
    const prompt = d.prompt.trimEnd().split('\n');
    lines.push(`      prompt the model saw${d.state ? ` in ${d.state}` : ''}:`);
    const cut = prompt.length > PROMPT_HEAD + PROMPT_TAIL + 1;
    const shownLines = cut
      ? [
          ...prompt.slice(0, PROMPT_HEAD),
          `... (${prompt.length - PROMPT_HEAD - PROMPT_TAIL} lines)`,
          ...prompt.slice(-PROMPT_TAIL),
        ]
      : prompt;
    for (const line of shownLines) lines.push(`        | ${line}`);
  }
  return lines;
}

/** One test as text: its line, and under a failure where it diverged. */
export function testLines(r: TestResult): string[] {
  const head = `${r.passed ? 'ok  ' : 'FAIL'}  ${r.file}  ${r.name}  (${usd(r.costUsd)})`;
  const kept = r.kept ? [`      scratch folder kept: ${r.kept}`] : [];
  return [head, ...(r.divergence ? divergenceLines(r.divergence) : []), ...kept];
}

/** The closing line of a suite. */
export function summaryLine(results: readonly TestResult[]): string {
  const failed = results.filter((r) => !r.passed).length;
  const cost = results.reduce((sum, r) => sum + r.costUsd, 0);
  return `${results.length} test${results.length === 1 ? '' : 's'}: ${results.length - failed} passed, ${failed} failed (scripted cost ${usd(cost)}, nothing spent)`;
}

/** The suite as JSON: each test with its divergence, and the counts. */
export function suiteJson(results: readonly TestResult[]): Record<string, unknown> {
  return {
    passed: results.filter((r) => r.passed).length,
    failed: results.filter((r) => !r.passed).length,
    tests: results.map((r) => ({
      file: r.file,
      name: r.name,
      passed: r.passed,
      cost_usd: r.costUsd,
      ...(r.divergence ? { divergence: r.divergence } : {}),
    })),
  };
}

/** Control characters XML 1.0 cannot hold (tab, newline and carriage return it can). */
// eslint-disable-next-line no-control-regex -- these are the characters removed
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f]/g;

const xml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 has no place for most control characters.
    .replace(CONTROL, '');

/**
 * The suite as JUnit XML, as CI systems read it: one testsuite, a testcase
 * per test (classname: its file), a failure element holding the divergence.
 * No times: the same suite gives the same bytes.
 */
export function junitXml(results: readonly TestResult[]): string {
  const failed = results.filter((r) => !r.passed).length;
  const cases = results.map((r) => {
    const open = `  <testcase classname="${xml(r.file)}" name="${xml(r.name)}"`;
    if (!r.divergence) return `${open}/>`;
    const body = divergenceLines(r.divergence)
      .map((l) => l.trim())
      .join('\n');
    return `${open}>\n    <failure message="${xml(r.divergence.what)}">${xml(body)}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${results.length}" failures="${failed}">`,
    `<testsuite name="raymond test" tests="${results.length}" failures="${failed}">`,
    ...cases,
    '</testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
