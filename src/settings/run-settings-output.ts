import {
  isConfigNotify,
  isConfigNotifyUrl,
  notifyCommandsProblem,
  notifyUrlsProblem,
  notifyUrlProblem,
  configCommands,
  type ConfigNotify,
  type ConfigNotifyUrl,
} from '../notify/hook-spec.js';
import { httpUrlProblem } from '../http-url.js';
import { bool, refuse, setting, text } from '../setting.js';
import { DEFAULT_PUSH_REMOTE } from './run-setting-defaults.js';

/** A `notify` value's words, checked: the command line a flag gives, or the config's shapes. */
function notifyValue(v: unknown): ConfigNotify {
  if (!isConfigNotify(v))
    refuse('expected a command line, an argv array of strings, or a list of those');
  const problem = notifyCommandsProblem(v);
  return problem === undefined ? v : refuse(problem);
}

function notifyUrlValue(v: unknown): ConfigNotifyUrl {
  if (!isConfigNotifyUrl(v)) refuse('expected an http(s) URL or a list of them');
  if (typeof v === 'string' && notifyUrlProblem(v) !== undefined)
    refuse('expected an http: or https: URL');
  const problem = notifyUrlsProblem(v);
  return problem === undefined ? v : refuse(problem);
}

/**
 * The run settings of the help groups Output, Notifications and Queue (with the
 * Run group's --no-wait between them), in the order the help, the config template
 * and the reference show them (RUN_SETTINGS merges them).
 */
export const OUTPUT_QUEUE_SETTINGS = {
  no_debug: setting({
    flag: '--no-debug',
    run: 'debug',
    scope: 'process',
    group: 'Output',
    help: 'do not write debug logs under .raymond/debug/',
    doc: 'Do not write debug logs under .raymond/debug/.',
    example: 'false',
    defaultText: 'false',
    check: bool,
    toRun: (no: boolean) => !no,
    initial: () => true,
  }),
  no_history: setting({
    flag: '--no-history',
    run: 'history',
    scope: 'process',
    group: 'Output',
    help: 'do not record this run in the history under .raymond/history/ (raymond stats, raymond plan)',
    doc: 'Do not record runs in the run history under .raymond/history/, which `raymond stats` and `raymond plan` read.',
    example: 'false',
    defaultText: 'false',
    check: bool,
    toRun: (no: boolean) => !no,
    initial: () => true,
  }),
  no_wait: setting({
    flag: '--no-wait',
    scope: 'command',
    group: 'Run',
    help: 'when every agent hit a usage limit, end the run as paused instead of waiting',
    doc: 'When every agent hit a usage limit, end the run as paused instead of waiting for the reset.',
    example: 'false',
    defaultText: 'false',
    check: bool,
  }),
  verbose: setting({
    flag: '--verbose',
    scope: 'command',
    group: 'Output',
    help: 'more detail on stderr, with stack traces',
    doc: 'More detail on stderr, with stack traces (as --verbose).',
    example: 'false',
    defaultText: 'false',
    check: bool,
  }),
  otel_endpoint: setting({
    flag: '--otel-endpoint <url>',
    run: 'otelEndpoint',
    scope: 'process',
    group: 'Output',
    help: "send the run's OpenTelemetry traces (run, agents, steps, turns) to this OTLP/HTTP endpoint (default: $OTEL_EXPORTER_OTLP_ENDPOINT)",
    doc: "The OTLP/HTTP endpoint the run's OpenTelemetry traces go to (as --otel-endpoint): spans of the run, its agents, steps and agent CLI turns, with their costs; /v1/traces is added. Each step's process gets TRACEPARENT and OTEL_RESOURCE_ATTRIBUTES.",
    example: '"http://127.0.0.1:4318"',
    defaultText: '$OTEL_EXPORTER_OTLP_ENDPOINT; none: no traces',
    check: text('an http:// or https:// URL', (v) => {
      const problem = httpUrlProblem(v);
      return problem === undefined ? undefined : `expected an http:// or https:// URL: ${problem}`;
    }),
  }),
  notify: setting({
    flag: '--notify <cmd>',
    repeatable: true,
    scope: 'command',
    group: 'Notifications',
    help: "run this command (no shell; repeatable) when the run ends, the event as JSON on its stdin and in $RAYMOND_EVENT (replaces the config's notify)",
    doc: 'Commands notified of the run\'s events (as --notify): run without a shell, the event as JSON on stdin and in RAYMOND_EVENT. A string is split into words as a shell would, with no expansion; ["prog", "arg"] is one argv; [["a"], "b c"] is two commands.',
    example: '["notify-send", "Raymond"]',
    defaultText: '',
    check: notifyValue,
    collect: (v, before) => [
      ...(before === undefined ? [] : configCommands(before)),
      ...configCommands(v),
    ],
  }),
  notify_url: setting({
    flag: '--notify-url <url>',
    repeatable: true,
    scope: 'command',
    group: 'Notifications',
    help: "POST the event as JSON to this http(s) URL (repeatable) when the run ends (replaces the config's notify_url)",
    doc: "URLs the run's events are POSTed to as JSON (as --notify-url). Use https for anything off this machine: the JSON holds prompts and results.",
    example: '"https://example.com/hooks/raymond"',
    defaultText: '',
    check: notifyUrlValue,
    collect: (v, before) => [...(before === undefined ? [] : [before].flat()), ...[v].flat()],
  }),
  'queue.url': setting({
    flag: '--queue <url>',
    stored: 'queue',
    scope: 'run',
    group: 'Queue (many machines)',
    help: 'run the steps on worker machines (raymond worker) through BullMQ on Redis: redis://[user:password@]host:port[/db] or rediss://',
    doc: 'Run the steps on worker machines through BullMQ on Redis: redis://[user:password@]host:port[/db] or rediss://... (the state file keeps it without its password).',
    example: '"redis://127.0.0.1:6379"',
    defaultText: 'none: the steps run here',
    check: (v) =>
      typeof v === 'string' && /^rediss?:\/\//.test(v)
        ? v
        : refuse('expected a redis:// or rediss:// URL'),
    flagCheckedLater: true,
  }),
  'queue.secret_file': setting({
    flag: '--queue-secret-file <file>',
    scope: 'process',
    group: 'Queue (many machines)',
    help: "with --queue: the file holding the workers' shared secret",
    doc: "The file holding the workers' shared secret, relative to the project folder.",
    example: '".raymond/queue-secret"',
    defaultText: '$RAYMOND_QUEUE_SECRET',
    check: text('a file'),
  }),
  'queue.push_remote': setting({
    flag: '--push-remote <remote>',
    stored: 'push_remote',
    scope: 'run',
    group: 'Queue (many machines)',
    help: "with --queue: where workers push agents' worktree branches",
    doc: "Where workers push agents' worktree branches.",
    example: `"${DEFAULT_PUSH_REMOTE}"`,
    defaultText: DEFAULT_PUSH_REMOTE,
    check: text('a git remote name or URL'),
  }),
};
