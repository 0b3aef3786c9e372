import { descendants, isSpawner, proportionalKb, residentKb } from './process-tree.js';

/** Peaks seen while sampling one process and its spawners, in MB. */
export interface MemoryPeaks {
  /**
   * Highest sum of the process's and its spawners' proportional set sizes in
   * one sample: their memory together, pages they share counted once.
   */
  withSpawnersMb: number;
  /** The same as a sum of VmRSS, which counts the shared node binary once per process. */
  withSpawnersRssMb: number;
  /** The process alone: the kernel's own peak (VmHWM), so nothing between samples is missed. */
  aloneMb: number;
  /** Most spawner processes alive in one sample. */
  spawners: number;
}

/** A running sampler of one process tree. */
export interface MemorySampler {
  /** The peaks so far; the process's own VmRSS in MB as of the last sample. */
  peaks(): MemoryPeaks & { nowMb: number };
  stop(): MemoryPeaks;
}

/** How often /proc is read: often enough for the peaks, rarely enough to cost little CPU. */
export const SAMPLE_MS = 20;

/**
 * Samples `pid` and those of its descendants that are spawners every
 * SAMPLE_MS. Script processes are not counted: they are the workload, not
 * Raymond's memory. `onSample` runs after each sample.
 */
export function sampleMemory(pid: number, onSample?: () => void): MemorySampler {
  let withSpawnersKb = 0;
  let withSpawnersRssKb = 0;
  let aloneKb = 0;
  let nowKb = 0;
  let spawners = 0;
  const sample = () => {
    const own = residentKb(pid);
    // After the process exits its status is gone: keep what was seen.
    if (own.rss === 0) return;
    const found = descendants(pid).filter(isSpawner);
    const sum = found.reduce((kb, child) => kb + residentKb(child).rss, own.rss);
    withSpawnersRssKb = Math.max(withSpawnersRssKb, sum);
    withSpawnersKb = Math.max(
      withSpawnersKb,
      found.reduce((kb, child) => kb + proportionalKb(child), proportionalKb(pid)),
    );
    aloneKb = Math.max(aloneKb, own.hwm);
    nowKb = own.rss;
    spawners = Math.max(spawners, found.length);
  };
  const peaks = (): MemoryPeaks => ({
    withSpawnersMb: withSpawnersKb / 1024,
    withSpawnersRssMb: withSpawnersRssKb / 1024,
    aloneMb: aloneKb / 1024,
    spawners,
  });
  const timer = setInterval(() => {
    sample();
    onSample?.();
  }, SAMPLE_MS);
  sample();
  return {
    peaks: () => ({ ...peaks(), nowMb: nowKb / 1024 }),
    stop: () => {
      clearInterval(timer);
      return peaks();
    },
  };
}
