import { relative } from 'node:path';

// A second reporter for `node --test`: the TAP stream is long, and what a CI
// log keeps is its tail, so the names and first lines of the failed tests are
// written once more at the very end.
/**
 * @param {AsyncIterable<{ type: string, data: any }>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* failures(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    // A suite fails with its failing test: name only the tests themselves.
    if (details?.type === 'suite') continue;
    const error = details?.error;
    const cause = error?.cause ?? error;
    const message = String(cause?.message ?? cause ?? '')
      .split('\n')
      .slice(0, 6)
      .join('\n    ');
    failed.push(`✖ ${file ? relative(process.cwd(), file) : '?'}: ${name}\n    ${message}`);
  }
  if (failed.length === 0) return;
  yield `\n# ${failed.length} failed:\n${failed.join('\n')}\n`;
}
