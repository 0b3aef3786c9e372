/**
 * The one check of an http(s) URL a user gives (`--otel-endpoint`,
 * $OTEL_EXPORTER_OTLP_ENDPOINT, codex's `base_url`, `notify_url`): a
 * pattern alone let `http://[::1` through to the libraries that parse it,
 * which then failed mid-run with a stack trace. Parsing it as fetch and the
 * exporters will moves that failure to where options are checked.
 */

/**
 * What is wrong with `url` as an http: or https: URL with a host (a few
 * words to follow "expected an http:// or https:// URL"), or undefined when
 * it is one.
 */
export function httpUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it cannot be parsed';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return `it is a ${parsed.protocol} URL`;
  if (parsed.hostname === '') return 'it has no host';
  return undefined;
}
