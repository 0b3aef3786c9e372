#!/usr/bin/env node
// tsc does not keep the executable bit; the bins must be runnable directly.
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/src/cli/main.js', import.meta.url), 0o755);
