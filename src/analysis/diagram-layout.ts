import type { DiagramLink, DiagramModel, DiagramNode } from './diagram-model.js';

export interface Point {
  x: number;
  y: number;
}

/** A box placed on the page; `x`, `y` is its centre. */
export interface PlacedNode {
  node: DiagramNode;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An arrow as the points its curve passes through, with controls, and where its label goes. */
export interface RoutedLink {
  link: DiagramLink;
  /** SVG path data, from the source box to the target box. */
  path: string;
  labelAt: Point;
}

export interface Layout {
  nodes: PlacedNode[];
  links: RoutedLink[];
  width: number;
  height: number;
}

const ROW_STEP = 110;
const GAP = 40;
const MARGIN = 30;
/** Room on the right for arrows that go back up and for self-loops. */
const RIGHT_ROOM = 110;

/**
 * A layered (Sugiyama-style) layout: arrows that close a cycle are set
 * aside, every state sits one row below its lowest predecessor, arrows that
 * span rows pass through invisible points so they bend around boxes, and rows
 * are reordered to reduce crossings. Arrows that go back up leave and enter
 * boxes on their right side, so they never hide the arrow going down.
 */
export function layoutDiagram(
  model: DiagramModel,
  size: (node: DiagramNode) => { width: number; height: number },
): Layout {
  const index = new Map(model.nodes.map((n, i) => [n.id, i]));
  const links = model.links.map((link) => ({
    link,
    from: index.get(link.from)!,
    to: index.get(link.to)!,
  }));
  const { back, topo } = classify(model.nodes.length, links);
  const layer = new Array<number>(model.nodes.length).fill(0);
  for (const v of topo)
    for (const [i, l] of links.entries())
      if (l.from === v && l.to !== v && !back.has(i))
        layer[l.to] = Math.max(layer[l.to]!, layer[v]! + 1);
  // Vertices: the boxes, then one invisible point per row an arrow crosses.
  const widths = model.nodes.map((n) => size(n).width);
  const vLayer = [...layer];
  const chains = links.map((l, i) => {
    if (l.from === l.to) return [l.from];
    const [top, bottom] = back.has(i) ? [l.to, l.from] : [l.from, l.to];
    const chain = [top];
    for (let row = layer[top]! + 1; row < layer[bottom]!; row++) {
      chain.push(vLayer.length);
      vLayer.push(row);
      widths.push(12);
    }
    chain.push(bottom);
    return back.has(i) ? chain.reverse() : chain;
  });
  const segments = chains.flatMap((c) =>
    c
      .slice(1)
      .map((v, k): [number, number] => (vLayer[v]! > vLayer[c[k]!]! ? [c[k]!, v] : [v, c[k]!])),
  );
  const rows = orderRows(vLayer, segments, topo);
  const xs = placeRows(rows, widths, loopRoom(links, widths.length), segments);
  const ys = vLayer.map((row) => MARGIN + 30 + row * ROW_STEP);
  const shift = MARGIN - Math.min(...rows.flat().map((v) => xs[v]! - widths[v]! / 2));
  for (let v = 0; v < xs.length; v++) xs[v] = xs[v]! + shift;
  const nodes = model.nodes.map((node, v) => ({ node, x: xs[v]!, y: ys[v]!, ...size(node) }));
  const routed = links.map((l, i) =>
    route(l.link, chains[i]!, back.has(i), nodes, xs, ys, twinIndex(links, i)),
  );
  spreadLabels(routed);
  const width = Math.max(...nodes.map((n) => n.x + n.width / 2)) + RIGHT_ROOM;
  const height = Math.max(...nodes.map((n) => n.y + n.height / 2)) + MARGIN;
  return { nodes, links: routed, width, height };
}

/** Width of an arrow's label box (11.5px text). */
export function labelWidth(label: string): number {
  return label.length * 6.6 + 10;
}

/** Labels that would cover each other move sideways, away from the one already there. */
function spreadLabels(routed: RoutedLink[]): void {
  const placed: { x: number; y: number; w: number }[] = [];
  for (const r of routed) {
    if (!r.link.label) continue;
    const w = labelWidth(r.link.label);
    let { x } = r.labelAt;
    const y = r.labelAt.y;
    for (let tries = 0; tries < 8; tries++) {
      const hit = placed.find(
        (p) => Math.abs(p.x - x) < (p.w + w) / 2 + 3 && Math.abs(p.y - y) < 20,
      );
      if (!hit) break;
      x = hit.x + (x >= hit.x ? 1 : -1) * ((hit.w + w) / 2 + 4);
    }
    r.labelAt = { x, y };
    placed.push({ x, y, w });
  }
}

/** Depth-first from the first node (the start marker): arrows to a node still on the stack close a cycle. */
function classify(
  n: number,
  links: { from: number; to: number }[],
): { back: Set<number>; topo: number[] } {
  const state = new Array<number>(n).fill(0);
  const back = new Set<number>();
  const finished: number[] = [];
  const visit = (v: number) => {
    state[v] = 1;
    for (const [i, l] of links.entries()) {
      if (l.from !== v || l.to === v) continue;
      if (state[l.to] === 1) back.add(i);
      else if (state[l.to] === 0) visit(l.to);
    }
    state[v] = 2;
    finished.push(v);
  };
  for (let v = 0; v < n; v++) if (state[v] === 0) visit(v);
  return { back, topo: finished.reverse() };
}

/** Rows in barycentre order (each vertex at the mean position of its neighbours), keeping the order with fewest crossings. */
function orderRows(vLayer: number[], segments: [number, number][], topo: number[]): number[][] {
  const rows: number[][] = [];
  const inTopo = new Set(topo);
  for (const v of [...topo, ...[...vLayer.keys()].filter((v) => !inTopo.has(v))])
    (rows[vLayer[v]!] ??= []).push(v);
  for (let r = 0; r < rows.length; r++) rows[r] ??= [];
  let best = rows.map((r) => [...r]);
  let bestCrossings = crossings(best, segments);
  for (let pass = 0; pass < 8; pass++) {
    const down = pass % 2 === 0;
    for (let k = 1; k < rows.length; k++) {
      const r = down ? k : rows.length - 1 - k;
      const pos = new Map(rows[down ? r - 1 : r + 1]!.map((v, i) => [v, i]));
      const bary = new Map(
        rows[r]!.map((v, i) => {
          const near = segments
            .filter((s) => s.includes(v))
            .map((s) => pos.get(s[0] === v ? s[1] : s[0]))
            .filter((p): p is number => p !== undefined);
          return [v, near.length ? near.reduce((a, b) => a + b, 0) / near.length : i];
        }),
      );
      rows[r]!.sort((a, b) => bary.get(a)! - bary.get(b)!);
    }
    const c = crossings(rows, segments);
    if (c < bestCrossings) [best, bestCrossings] = [rows.map((r) => [...r]), c];
  }
  return best;
}

function crossings(rows: number[][], segments: [number, number][]): number {
  const pos = new Map(rows.flatMap((r) => r.map((v, i) => [v, i] as const)));
  let count = 0;
  for (const [i, a] of segments.entries()) {
    for (const b of segments.slice(i + 1)) {
      const top = pos.get(a[0])! - pos.get(b[0])!;
      const bottom = pos.get(a[1])! - pos.get(b[1])!;
      if (top * bottom < 0) count++;
    }
  }
  return count;
}

/**
 * Horizontal positions: each vertex moves towards the mean of its
 * neighbours; a row is then packed once pushing right and once pushing left
 * from those wishes, and the mean of the two keeps the order and the gaps.
 */
function placeRows(
  rows: number[][],
  widths: number[],
  room: number[],
  segments: [number, number][],
): number[] {
  const xs = new Array<number>(widths.length).fill(0);
  const gap = (a: number, b: number) => (widths[a]! + widths[b]!) / 2 + GAP + room[a]!;
  for (const row of rows)
    row.forEach((v, i) => (xs[v] = i === 0 ? 0 : xs[row[i - 1]!]! + gap(row[i - 1]!, v)));
  for (let pass = 0; pass < 12; pass++) {
    for (const row of pass % 2 === 0 ? rows : [...rows].reverse()) {
      const wish = row.map((v) => {
        const near = segments
          .filter((s) => s.includes(v))
          .map((s) => xs[s[0] === v ? s[1] : s[0]]!);
        return near.length ? near.reduce((a, b) => a + b, 0) / near.length : xs[v]!;
      });
      const right = [...wish];
      for (let i = 1; i < row.length; i++)
        right[i] = Math.max(right[i]!, right[i - 1]! + gap(row[i - 1]!, row[i]!));
      const left = [...wish];
      for (let i = row.length - 2; i >= 0; i--)
        left[i] = Math.min(left[i]!, left[i + 1]! - gap(row[i]!, row[i + 1]!));
      row.forEach((v, i) => (xs[v] = (right[i]! + left[i]!) / 2));
    }
  }
  return xs;
}

/** Room each vertex needs on its right for its self-loops and their labels. */
function loopRoom(links: { link: DiagramLink; from: number; to: number }[], n: number): number[] {
  const room = new Array<number>(n).fill(0);
  links.forEach((l, i) => {
    if (l.from !== l.to) return;
    room[l.from] = Math.max(
      room[l.from]!,
      0.75 * loopReach(twinIndex(links, i)) + labelWidth(l.link.label) + 10,
    );
  });
  return room;
}

function loopReach(twin: number): number {
  return 45 + 18 * twin;
}

/** How many arrows between the same two boxes come before this one, so they sit side by side (or nest, for loops). */
function twinIndex(links: { from: number; to: number }[], i: number): number {
  const { from, to } = links[i]!;
  return links
    .slice(0, i)
    .filter((l) => (l.from === from && l.to === to) || (l.from === to && l.to === from)).length;
}

function route(
  link: DiagramLink,
  chain: number[],
  back: boolean,
  nodes: PlacedNode[],
  xs: number[],
  ys: number[],
  twin: number,
): RoutedLink {
  const box = nodes[chain[0]!]!;
  if (chain.length === 1) {
    const r = box.x + box.width / 2;
    const reach = loopReach(twin);
    const path = `M${r},${box.y - 8} C${r + reach},${box.y - 34 - 6 * twin} ${r + reach},${box.y + 34 + 6 * twin} ${r},${box.y + 8}`;
    return {
      link,
      path,
      labelAt: { x: r + reach * 0.75 + labelWidth(link.label) / 2 + 3, y: box.y },
    };
  }
  const end = nodes[chain[chain.length - 1]!]!;
  // Going down: bottom to top edges. Going back up: out of and into the right sides.
  const pts: Point[] = chain.map((v) => ({ x: xs[v]!, y: ys[v]! }));
  const shift = 14 * twin;
  pts[0] = back
    ? { x: box.x + box.width / 2, y: box.y + shift }
    : { x: box.x + shift, y: box.y + box.height / 2 };
  pts[pts.length - 1] = back
    ? { x: end.x + end.width / 2, y: end.y + shift }
    : { x: end.x + shift, y: end.y - end.height / 2 };
  const dir = back ? -1 : 1;
  let path = `M${pts[0].x},${pts[0].y}`;
  let labelAt = pts[0];
  for (let i = 1; i < pts.length; i++) {
    const [p, q] = [pts[i - 1]!, pts[i]!];
    const k = Math.max(25, Math.abs(q.y - p.y) / 2);
    const c1 = back && i === 1 ? { x: p.x + 60, y: p.y } : { x: p.x, y: p.y + dir * k };
    const c2 =
      back && i === pts.length - 1 ? { x: q.x + 60, y: q.y } : { x: q.x, y: q.y - dir * k };
    path += ` C${c1.x},${c1.y} ${c2.x},${c2.y} ${q.x},${q.y}`;
    if (i === Math.ceil(pts.length / 2)) {
      // The label sits on the middle point, or halfway along the middle curve.
      const odd = pts.length % 2 === 1;
      labelAt = odd
        ? pts[(pts.length - 1) / 2]!
        : { x: (p.x + 3 * c1.x + 3 * c2.x + q.x) / 8, y: (p.y + 3 * c1.y + 3 * c2.y + q.y) / 8 };
    }
  }
  return { link, path, labelAt };
}
