import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/*
 * The process groups Raymond starts itself (Claude Code, pi, Codex; scripts
 * run in spawner processes, which end theirs when Raymond goes) must not
 * outlive it, even when it is killed with SIGKILL and no exit hook runs. A
 * Claude Code turn left alone would go on for minutes: its requests go to
 * Raymond's request gate, which died with Raymond, and it retries them.
 *
 * One small shell per Raymond process holds the live groups, told over its
 * stdin; when that closes (Raymond is gone, however it ended) it stops what
 * it still holds as Raymond stops a step: SIGTERM, then SIGKILL for what is
 * left 2 s later. A Claude Code killed outright may leave its session half
 * written; one sent SIGTERM ends it. A shell costs a megabyte or two; a
 * Node helper would cost forty. Its own process group keeps a Ctrl-C at the
 * terminal from ending it before Raymond has let go of its groups.
 */
const SCRIPT = [
  "live=' '",
  'while IFS= read -r line; do',
  '  case $line in',
  '    +*) live="$live${line#+} " ;;',
  '    -*) p=${line#-}; case $live in *" $p "*) live="${live%% $p *} ${live#* $p }" ;; esac ;;',
  '  esac',
  'done',
  '[ "$live" = " " ] && exit 0',
  'for p in $live; do kill -TERM "-$p" 2>/dev/null; done',
  'sleep 2',
  'for p in $live; do kill -KILL "-$p" 2>/dev/null; done',
].join('\n');

let watchdog: ChildProcess | undefined;
let broken = false;

function tell(line: string): void {
  if (broken) return;
  if (!watchdog) {
    try {
      watchdog = spawn('/bin/sh', ['-c', SCRIPT], {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
      });
    } catch {
      broken = true;
      return;
    }
    // Neither the shell nor its pipe keeps Raymond running.
    watchdog.unref();
    (watchdog.stdin as Socket | null)?.unref();
    watchdog.on('error', () => (broken = true));
    watchdog.stdin?.on('error', () => (broken = true));
  }
  watchdog.stdin?.write(line);
}

/** Hands a group to the watchdog: it is killed if Raymond dies while the group lives. */
export function watchGroup(pid: number): void {
  tell(`+${pid}\n`);
}

/** The group ended: the watchdog forgets it (its id may be given to another process later). */
export function unwatchGroup(pid: number): void {
  tell(`-${pid}\n`);
}
