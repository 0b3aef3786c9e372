import { clientScript } from './client-scripts.js';

/**
 * The server page's script, built from src/web/client/serve-index.ts
 * (plain DOM, no library): the workflows with their launch forms, the runs
 * polled every 2 seconds, the login form on a 401.
 */
export const SERVE_INDEX_SCRIPT = clientScript('serve-index');
