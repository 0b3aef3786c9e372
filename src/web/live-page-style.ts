/**
 * The live page's style. The diagram brings its own (it is the SVG of
 * `raymond diagram`); these rules add the live marks on top: a state box
 * with agents in it is outlined, and a badge counts them.
 */
export const LIVE_STYLE = `
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a202c; background: #f7fafc; }
header { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: center; gap: 8px 24px; padding: 10px 20px; background: #1d3557; color: #fff; }
header h1 { margin: 0; font-size: 18px; }
header p { margin: 2px 0 0; color: #d6e2f0; font-size: 13px; }
header a { color: #fff; }
.run { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 14px; font-variant-numeric: tabular-nums; }
.status, .connection, .machine { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; background: #e2e8f0; color: #1a202c; }
.status.running { background: #c6f6d5; color: #22543d; }
.status.completed { background: #bee3f8; color: #1a365d; }
.status.failed, .status.budget_exceeded, .connection.offline { background: #fed7d7; color: #742a2a; }
.status.asking, .status.paused, .status.stopped, .status.cancelled { background: #feebc8; color: #7b341e; }
.connection.live { background: #c6f6d5; color: #22543d; }
button { font: inherit; padding: 4px 12px; border-radius: 5px; border: 1px solid #a0aec0; background: #fff; cursor: pointer; }
button:disabled { opacity: 0.6; cursor: default; }
#cancel { border-color: #c53030; color: #c53030; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(320px, 2fr); gap: 14px; padding: 14px 20px; }
.panel { background: #fff; border: 1px solid #e2e8f0; border-radius: 6px; padding: 10px 14px; min-width: 0; }
.panel h2 { margin: 0 0 8px; font-size: 15px; }
.count { display: inline-block; min-width: 22px; padding: 0 6px; border-radius: 10px; background: #edf2f7; font-size: 12px; text-align: center; }
.empty { color: #718096; margin: 4px 0; }
#result-panel { grid-column: 1 / -1; }
#run-result { margin: 0; max-height: 30vh; overflow: auto; white-space: pre-wrap; word-break: break-word; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
#diagram-panel { grid-row: span 2; }
#diagram { overflow: auto; max-height: 70vh; }
#asks .ask { border: 2px solid #dd6b20; border-radius: 6px; padding: 8px 10px; margin-bottom: 8px; background: #fffaf0; }
.ask .who { font-size: 12px; color: #4a5568; }
.ask pre { margin: 6px 0; white-space: pre-wrap; word-break: break-word; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
.ask textarea { width: 100%; min-height: 48px; font: inherit; }
.ask .files { margin: 4px 0; font-size: 12.5px; }
.ask .sent { color: #2f855a; }
.ask .error { color: #c53030; }
#chips { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 6px; }
#chips button { padding: 1px 8px; font-size: 12px; border-radius: 10px; }
#chips button.on { background: #1d3557; color: #fff; border-color: #1d3557; }
.row { display: grid; grid-template-columns: 2fr 1.2fr 2fr 0.8fr 0.8fr; gap: 6px; height: 24px; align-items: center; padding: 0 4px; white-space: nowrap; }
.row > span { overflow: hidden; text-overflow: ellipsis; }
.table-head { font-weight: 600; border-bottom: 1px solid #e2e8f0; }
#agents { position: relative; height: 300px; overflow-y: auto; font-variant-numeric: tabular-nums; }
#agents .row { position: absolute; left: 0; right: 0; border-bottom: 1px solid #f1f4f8; }
.machine.invoking { background: #c6f6d5; color: #22543d; }
.machine.asking { background: #feebc8; color: #7b341e; }
.machine.terminated { background: #edf2f7; color: #718096; }
.machine.paused { background: #fed7d7; color: #742a2a; }
#costs { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }
#costs th, #costs td { padding: 2px 6px; text-align: right; white-space: nowrap; border-bottom: 1px solid #f1f4f8; }
#costs th { border-bottom-color: #e2e8f0; }
#costs th:first-child, #costs td.state { text-align: left; white-space: normal; word-break: break-word; }
#log { list-style: none; margin: 0; padding: 0; height: 260px; overflow-y: auto; font: 12px/1.45 ui-monospace, Menlo, Consolas, monospace; }
#log li { white-space: pre-wrap; word-break: break-word; border-bottom: 1px solid #f7f7f7; }
#log li.print { color: #2b6cb0; }
#log li.warning, #log li.failed, #log li.denied { color: #c53030; }
.denials { color: #c53030; font-weight: 600; }
#log li.ask { color: #c05621; }
svg text { font: 13px system-ui, -apple-system, "Segoe UI", sans-serif; text-anchor: middle; dominant-baseline: central; }
#diagram .node.live-here rect, #diagram .node.live-here polygon { stroke: #d53f8c; stroke-width: 3.5; }
#diagram .node.live-invoking rect { fill: #c6f6d5; }
#diagram .node.live-asking rect { fill: #feebc8; }
#diagram .live-badge ellipse { fill: #d53f8c; stroke: #fff; stroke-width: 1.5; }
#diagram .live-badge text { fill: #fff; font-size: 11px; font-weight: 700; }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } #diagram-panel { grid-row: auto; } }
`;
