// Every agent CLI Raymond drives: one line per backend, its AgentBackend as its folder exports it.
// This is the only file that imports a backend's folder (scripts/check-imports.mjs holds it so).
export { CLAUDE } from '../claude/claude-backend.js';
export { PI } from '../pi/pi-backend.js';
export { CODEX } from '../codex/codex-backend.js';
