import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs git in `dir` and returns its trimmed stdout; throws when git fails. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** Temp folders made by a test file, removed by `removeTemps` in its `after` hook. */
const temps: string[] = [];

export function tempDir(prefix = 'raymond-git-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

export function removeTemps(): void {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A fresh repository on `main` with one commit of `files` (default a README),
 * a local identity and `node_modules/` ignored; its path as git reports it.
 */
export function makeRepo(files: Record<string, string> = { 'README.md': 'hello\n' }): string {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Raymond Test');
  git(dir, 'config', 'user.email', 'raymond@example.com');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  for (const [name, text] of Object.entries(files)) {
    execFileSync('mkdir', ['-p', join(dir, name, '..')]);
    writeFileSync(join(dir, name), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  return git(dir, 'rev-parse', '--show-toplevel');
}

/** Writes and commits one file; returns the new HEAD. */
export function commitFile(dir: string, name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  git(dir, 'add', name);
  git(dir, 'commit', '-q', '-m', `add ${name}`);
  return git(dir, 'rev-parse', 'HEAD');
}

/** The repository's `raymond/*` branches, one per line. */
export function raymondBranches(repo: string): string[] {
  const out = git(repo, 'branch', '--list', '--format=%(refname:short)', 'raymond/*');
  return out === '' ? [] : out.split('\n');
}
