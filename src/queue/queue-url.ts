import { isIP } from 'node:net';
import type { RedisOptions } from 'ioredis';
import { RaymondError } from '../errors.js';

/** Where the step queue lives: ioredis options, and the URL as shown (no password). */
export interface QueueTarget {
  options: RedisOptions;
  shown: string;
}

/**
 * Reads `redis://[user:pass@]host:port[/db]` or `rediss://...` (TLS). The
 * password and user travel as the URL says; `shown` leaves the password out,
 * since it is printed and logged.
 */
export function parseQueueUrl(url: string, where = '--queue'): QueueTarget {
  // The URL as a message may repeat it: whatever comes before an `@` (user and password) left out.
  const said = url.replace(/^([^:/]*:\/\/).*@/, '$1*@');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RaymondError(
      'ERR_USAGE',
      `${where} "${said}" is not a URL; expected redis://[user:password@]host:port[/db] or rediss://...`,
    );
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new RaymondError(
      'ERR_USAGE',
      `${where} "${u.protocol}//${u.host}" is not a Redis URL; expected redis:// or rediss:// (TLS)`,
    );
  }
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db))
    throw new RaymondError('ERR_USAGE', `${where}: database "${db}" is not a number`);
  if (!u.hostname) throw new RaymondError('ERR_USAGE', `${where} "${said}" names no host`);
  const options: RedisOptions = {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : 6379,
    // BullMQ's blocking commands need this; the run waits through outages instead of failing a command.
    maxRetriesPerRequest: null,
    // Reconnect forever, at most every 2 s: a restarted Redis is picked up again.
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
  if (u.username) options.username = decodeURIComponent(u.username);
  if (u.password) options.password = decodeURIComponent(u.password);
  if (db !== '') options.db = Number(db);
  // SNI takes a host name only; an address is checked against the certificate's IP names without it.
  if (u.protocol === 'rediss:')
    options.tls = isIP(options.host!) ? {} : { servername: options.host! };
  const auth = u.username ? `${u.username}@` : u.password ? '*@' : '';
  return { options, shown: `${u.protocol}//${auth}${u.host}${db ? `/${db}` : ''}` };
}
