import { HttpError } from './http-error.js';
import { answerAsk, getAskFile, listAskFiles, pendingAsks } from './routes-asks.js';
import {
  cancelRun,
  createRun,
  getRun,
  getWorkflow,
  listRuns,
  listWorkflows,
  rescanWorkflows,
  runDiagram,
  runOutput,
  runSnapshot,
} from './routes-runs.js';
import type { Handler } from './serve-context.js';

/** One route: a method and an OpenAPI-style path (`/runs/{id}`; `{path}` takes the rest of the path). */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  handler: Handler;
}

/**
 * Every API route of `raymond serve`: `ray serve`'s paths, methods and
 * status codes, and Raymond's additions (`/workflows/rescan`,
 * `/runs/{id}/snapshot`, `/runs/{id}/diagram.svg`). `/openapi.json`,
 * `/login` and the page are served beside them (serve-server.ts); the
 * OpenAPI description lists all of them (test/serve checks it).
 */
export const API_ROUTES: readonly Route[] = [
  { method: 'GET', path: '/workflows', handler: listWorkflows },
  { method: 'POST', path: '/workflows/rescan', handler: rescanWorkflows },
  { method: 'GET', path: '/workflows/{id}', handler: getWorkflow },
  { method: 'POST', path: '/runs', handler: createRun },
  { method: 'GET', path: '/runs', handler: listRuns },
  { method: 'GET', path: '/runs/{id}', handler: getRun },
  { method: 'GET', path: '/runs/{id}/snapshot', handler: runSnapshot },
  { method: 'GET', path: '/runs/{id}/output', handler: runOutput },
  { method: 'POST', path: '/runs/{id}/cancel', handler: cancelRun },
  { method: 'GET', path: '/runs/{id}/diagram.svg', handler: runDiagram },
  { method: 'GET', path: '/runs/{id}/pending-asks', handler: pendingAsks },
  { method: 'POST', path: '/runs/{id}/asks/{ask_id}', handler: answerAsk },
  { method: 'GET', path: '/runs/{id}/asks/{ask_id}/files', handler: listAskFiles },
  { method: 'GET', path: '/runs/{id}/asks/{ask_id}/files/{path}', handler: getAskFile },
];

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'bad_path', `"${segment}" is not a valid path segment`);
  }
}

/** The parameters of `pathname` under a route's pattern, or undefined when it does not match. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const got = pathname.split('/');
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    if (w === '{path}') {
      if (i >= got.length || got.slice(i).join('/') === '') return undefined;
      params.path = got.slice(i).map(decode).join('/');
      return params;
    }
    const g = got[i];
    if (g === undefined) return undefined;
    const param = /^\{(\w+)\}$/.exec(w)?.[1];
    if (param) {
      if (g === '') return undefined;
      params[param] = decode(g);
    } else if (w !== g) return undefined;
  }
  return got.length === want.length ? params : undefined;
}

/** The route for a request: its handler and parameters; 404 for an unknown path, 405 for a known path and another method. */
export function findRoute(
  method: string,
  pathname: string,
  routes: readonly Route[] = API_ROUTES,
): { route: Route; params: Record<string, string> } {
  let pathKnown = false;
  for (const route of routes) {
    const params = matchPath(route.path, pathname);
    if (!params) continue;
    if (route.method === method || (method === 'HEAD' && route.method === 'GET'))
      return { route, params };
    pathKnown = true;
  }
  if (pathKnown)
    throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${pathname}`);
  throw new HttpError(404, 'not_found', `no such endpoint: ${pathname}`);
}
