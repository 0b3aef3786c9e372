import { PATHS } from './openapi-paths.js';
import { SCHEMAS } from './openapi-schemas.js';

/**
 * The OpenAPI 3.1 description of `raymond serve`, served at `/openapi.json`.
 * The request bodies are the schemas the routes check them with
 * (request-schemas.ts); OpenAPI 3.1's schemas are JSON Schema, as TypeBox's
 * are. The paths are written in openapi-paths.ts and the answers in
 * openapi-schemas.ts; a test checks that it lists exactly the routes the
 * server has.
 */

/** The document, with the server's version. */
export function openApiDocument(version: string): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'raymond serve',
      version,
      description:
        "Raymond's workflow server: the HTTP API of `ray serve`, plus event ids, snapshots and diagrams. With a token, every request but /, /login and /openapi.json carries `Authorization: Bearer TOKEN` (or the login cookie).",
    },
    components: {
      schemas: SCHEMAS,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearer: [] }],
    paths: PATHS,
  };
}
