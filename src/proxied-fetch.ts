/**
 * `fetch` through the proxy the environment names, as curl and git read
 * it: `HTTPS_PROXY` for https URLs, `HTTP_PROXY` for http ones (either
 * case), with `NO_PROXY` naming hosts reached directly. Node's own fetch
 * ignores these variables; undici's EnvHttpProxyAgent follows them.
 * Without a proxy variable it is Node's fetch, and undici is not loaded.
 */

let viaProxy: Promise<typeof fetch> | undefined;

/** A variable in lower case or else upper case (curl's order); an empty one counts as unset. */
function variable(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return env[name.toLowerCase()] || env[name] || undefined;
}

/** The proxies the environment names, if it names any; NO_PROXY alone changes nothing. */
export function proxySettings(
  env: NodeJS.ProcessEnv = process.env,
): { httpProxy?: string; httpsProxy?: string; noProxy?: string } | undefined {
  const httpProxy = variable('HTTP_PROXY', env);
  const httpsProxy = variable('HTTPS_PROXY', env);
  if (!httpProxy && !httpsProxy) return undefined;
  const noProxy = variable('NO_PROXY', env);
  return {
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(noProxy ? { noProxy } : {}),
  };
}

/** `fetch(url, init)`, through the environment's proxy when it names one. */
export async function proxiedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const settings = proxySettings();
  if (!settings) return fetch(url, init);
  viaProxy ??= import('undici').then((loaded) => {
    // Bundled, undici (CommonJS) is only the default export of its chunk; unbundled, Node gives both.
    const { fetch: undiciFetch, EnvHttpProxyAgent } =
      (loaded.default as typeof loaded.default | undefined) ?? loaded;
    // One agent for the process: it keeps the proxy's connections for the next request.
    // http URLs go to the proxy as plain requests (absolute-form, as curl sends them), https ones through CONNECT.
    const dispatcher = new EnvHttpProxyAgent({ ...settings, proxyTunnel: false });
    return ((input: string, options: RequestInit) =>
      undiciFetch(input, { ...(options as object), dispatcher })) as unknown as typeof fetch;
  });
  return (await viaProxy)(url, init);
}
