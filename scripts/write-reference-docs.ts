// Writes docs/reference/*.md from the code (`npm run docs:reference`); test/docs/reference.test.ts fails when they are stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { referencePages } from '../src/cli/reference-docs.js';

const root = new URL('..', import.meta.url).pathname;
for (const [path, text] of Object.entries(referencePages())) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}
