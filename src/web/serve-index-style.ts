import { LIVE_STYLE } from './live-page-style.js';

/** The server page's style: the live page's (same header, panels, badges), and the launch forms and the runs list. */
export const SERVE_INDEX_STYLE = `${LIVE_STYLE}
main { grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); }
#login { margin: 14px 20px; max-width: 640px; }
.error { color: #c53030; }
.launch { border: 1px solid #e2e8f0; border-radius: 6px; padding: 8px 10px; margin-bottom: 10px; }
.launch h3 { margin: 0; font-size: 14px; }
.launch .wid { color: #718096; font-weight: 400; font-size: 12px; }
.launch .desc, .launch .hint { margin: 2px 0 6px; color: #4a5568; font-size: 12.5px; }
.launch label { display: block; margin: 4px 0; font-size: 12.5px; }
.launch textarea { width: 100%; min-height: 40px; font: inherit; }
.launch .options { display: grid; grid-template-columns: 1fr 1fr 1fr 2fr; gap: 6px; }
.launch .options input, .launch .options select { width: 100%; font: inherit; }
.launch .result { margin-top: 4px; font-size: 12.5px; }
#runs { position: relative; height: 420px; overflow-y: auto; font-variant-numeric: tabular-nums; }
#runs .row { position: absolute; left: 0; right: 0; border-bottom: 1px solid #f1f4f8; }
#runs-panel .row { grid-template-columns: 3fr 1.2fr 1.6fr 1fr 0.6fr; }
.asks-pending { font-weight: 700; color: #c05621; }
`;
