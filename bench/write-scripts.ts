import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes a benchmark workflow's files into `dir`; `.sh` files become executable. */
export function writeScripts(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(dir, name), text);
    if (name.endsWith('.sh')) chmodSync(join(dir, name), 0o755);
  }
}
