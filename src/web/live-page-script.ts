import { clientScript } from './client-scripts.js';

/**
 * The live page's script, built from src/web/client/live-page.ts (plain
 * DOM, no library): it loads the snapshot, then folds each event of the
 * stream into its model with the server's own fold (live-fold.ts) and
 * redraws at most every 100 ms.
 */
export const LIVE_SCRIPT = clientScript('live-page');
