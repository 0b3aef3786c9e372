import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository the worktree bench runs in: generated once per bench run. */
export interface BenchRepo {
  /** The generated repository; figures run in clones of it, never in it. */
  path: string;
  /** Full sha of its one commit: every branch's base. */
  base: string;
  /** Its package folders, `p000`.., one per worker round-robin. */
  packages: string[];
  files: number;
  /** `du -sk` of its work tree without `.git`: the unit of the disk targets. */
  checkoutKb: number;
}

/** The shape the issue measured: 200 packages x 100 files of ~4 KB, 20,000 files, ~79 MB. */
const PACKAGES = 200;
const FILES_PER_PACKAGE = 100;
/** Each file stays under one 4 KB block, so the checkout's size is ~20,000 blocks. */
const FILE_BYTES = { min: 3000, max: 4000 };
const IDENTITY = ['-c', 'user.name=Raymond Bench', '-c', 'user.email=bench@raymond.invalid'];

/** Runs git in `cwd`; throws with git's stderr when it fails. */
export function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 2 ** 20,
  }).trim();
}

/** `du -sk` of `path` (0 when it is missing); `exclude` names folders left out. */
export function diskKb(path: string, exclude: string[] = []): number {
  try {
    const out = execFileSync('du', ['-sk', ...exclude.map((e) => `--exclude=${e}`), path], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return Number(out.split('\t')[0]);
  } catch {
    return 0;
  }
}

/**
 * Varied text, so git's zlib cannot shrink a file to nothing and every
 * checkout costs what a real one of that size would: words drawn by a
 * seeded generator, so every bench run writes the same repository.
 */
function textWriter(): (bytes: number, title: string) => string {
  let seed = 0x9e3779b9;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  const letters = 'etaoinshrdlucmfwypvbgkjqxz';
  const words = Array.from({ length: 4096 }, () =>
    Array.from({ length: 2 + (next() % 9) }, () => letters[next() % letters.length]).join(''),
  );
  return (bytes, title) => {
    let text = `# ${title}\n`;
    while (text.length < bytes) {
      const line: string[] = [];
      for (let n = 6 + (next() % 10); n > 0; n--) line.push(words[next() % words.length]!);
      text += `${line.join(' ')}\n`;
    }
    return text.slice(0, bytes - 1) + '\n';
  };
}

/**
 * Writes the repository into `dir` (which must not exist) with node:fs, then
 * one `git add -A`, one commit with a repo-local identity, and a repack
 * without delta search into one pack: a repository as clones see a real
 * one (packed), made in seconds, which `git clone --local` hardlinks.
 */
export function generateRepo(dir: string): BenchRepo {
  mkdirSync(dir, { recursive: true });
  const text = textWriter();
  const packages = Array.from({ length: PACKAGES }, (_, p) => `p${String(p).padStart(3, '0')}`);
  for (const pkg of packages) {
    mkdirSync(join(dir, 'pkg', pkg), { recursive: true });
    for (let f = 0; f < FILES_PER_PACKAGE; f++) {
      const name = `f${String(f).padStart(3, '0')}.txt`;
      const bytes =
        FILE_BYTES.min + ((f * 7919 + pkg.charCodeAt(3) * 31) % (FILE_BYTES.max - FILE_BYTES.min));
      writeFileSync(join(dir, 'pkg', pkg, name), text(bytes, `${pkg}/${name}`));
    }
  }
  writeFileSync(
    join(dir, 'README.md'),
    `# Bench repository\n\n${PACKAGES} packages under pkg/, ${FILES_PER_PACKAGE} files each.\n`,
  );
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['add', '-A']);
  git(dir, [...IDENTITY, 'commit', '-q', '-m', 'Generated bench repository']);
  git(dir, ['repack', '-adq', '--window=0']);
  git(dir, ['prune']);
  return {
    path: dir,
    base: git(dir, ['rev-parse', 'HEAD']),
    packages,
    files: PACKAGES * FILES_PER_PACKAGE + 2,
    checkoutKb: diskKb(dir, ['.git']),
  };
}

/**
 * A fresh clone of the bench repository at `dir`, with the same local
 * identity: each figure starts from the same state, whatever the one before
 * left (branches, worktrees, sparse-checkout's `extensions.worktreeConfig`).
 */
export function cloneRepo(repo: BenchRepo, dir: string): string {
  git(repo.path, ['clone', '-q', '--local', repo.path, dir]);
  git(dir, ['config', 'user.name', 'Raymond Bench']);
  git(dir, ['config', 'user.email', 'bench@raymond.invalid']);
  return dir;
}

/** Branches under `refs/heads/<prefix>` and those without exactly one commit over `base`. */
export function branchCommits(
  clone: string,
  prefix: string,
  base: string,
): { branches: number; wrong: string[] } {
  const refs = git(clone, ['for-each-ref', '--format=%(refname:short)', `refs/heads/${prefix}`])
    .split('\n')
    .filter((r) => r !== '');
  const wrong = refs.filter(
    (ref) => git(clone, ['rev-list', '--count', `${base}..${ref}`]) !== '1',
  );
  return { branches: refs.length, wrong };
}
