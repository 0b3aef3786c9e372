/** A branch to order: its agent and the files it changed since its base. */
export interface OrderItem {
  agent: string;
  files: readonly string[];
}

/**
 * The order branches are merged in, so that two branches touching the same
 * file are not merged back to back when that can be avoided: greedy, in
 * fork order, each next branch is the first one left that shares no file
 * with the branch merged just before it; when every branch left shares one,
 * the first left is taken. Deterministic, so a merge run again plans the
 * same order.
 */
export function mergeOrder(items: readonly OrderItem[]): string[] {
  const left = [...items];
  const order: string[] = [];
  let previous: ReadonlySet<string> = new Set();
  while (left.length > 0) {
    let i = left.findIndex((item) => !item.files.some((f) => previous.has(f)));
    if (i < 0) i = 0;
    const [next] = left.splice(i, 1);
    order.push(next!.agent);
    previous = new Set(next!.files);
  }
  return order;
}
