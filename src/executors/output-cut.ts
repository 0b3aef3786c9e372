/** A size for messages, in MiB: `16 MiB`, `572.2 MiB`. Stream text is mostly ASCII JSON, so characters pass for bytes. */
export function mib(bytes: number): string {
  const n = bytes / 2 ** 20;
  return `${Number.isInteger(n) ? n : n.toFixed(1)} MiB`;
}

/** What a warning or an error says when a cap kept only the last `kept` bytes of `total`. */
export function cutNote(kept: number, total: number): string {
  return `output was cut: only the last ${mib(kept)} of ${mib(total)} were kept`;
}
