import assert from 'node:assert/strict';
import { isIP } from 'node:net';
import { describe, it } from 'node:test';
import { parseQueueUrl } from '../../src/queue/queue-url.js';
import { RaymondError } from '../../src/errors.js';

/** The message of the ERR_USAGE a URL is refused with. */
function refused(url: string, where?: string): string {
  try {
    parseQueueUrl(url, where);
  } catch (err) {
    assert.ok(err instanceof RaymondError, `not a RaymondError: ${String(err)}`);
    assert.equal(err.code, 'ERR_USAGE');
    return err.message;
  }
  assert.fail(`accepted: ${url}`);
}

describe('parseQueueUrl', () => {
  const cases: Array<{
    url: string;
    host: string;
    port: number;
    db?: number;
    username?: string;
    password?: string;
    tls?: boolean;
    shown: string;
  }> = [
    { url: 'redis://localhost', host: 'localhost', port: 6379, shown: 'redis://localhost' },
    {
      url: 'redis://127.0.0.1:6380',
      host: '127.0.0.1',
      port: 6380,
      shown: 'redis://127.0.0.1:6380',
    },
    {
      url: 'redis://cache.example:7000/3',
      host: 'cache.example',
      port: 7000,
      db: 3,
      shown: 'redis://cache.example:7000/3',
    },
    { url: 'redis://h/0', host: 'h', port: 6379, db: 0, shown: 'redis://h/0' },
    { url: 'redis://h/', host: 'h', port: 6379, shown: 'redis://h' },
    { url: 'redis://[::1]:6390', host: '::1', port: 6390, shown: 'redis://[::1]:6390' },
    {
      url: 'redis://ray:s3cret@h:1234/2',
      host: 'h',
      port: 1234,
      db: 2,
      username: 'ray',
      password: 's3cret',
      shown: 'redis://ray@h:1234/2',
    },
    { url: 'redis://:s3cret@h', host: 'h', port: 6379, password: 's3cret', shown: 'redis://*@h' },
    {
      url: 'redis://us%40er:p%3A%2Fss%20w@h',
      host: 'h',
      port: 6379,
      username: 'us@er',
      password: 'p:/ss w',
      shown: 'redis://us%40er@h',
    },
    {
      url: 'rediss://ray:s3cret@secure.example:6380',
      host: 'secure.example',
      port: 6380,
      username: 'ray',
      password: 's3cret',
      tls: true,
      shown: 'rediss://ray@secure.example:6380',
    },
    {
      url: 'rediss://secure.example',
      host: 'secure.example',
      port: 6379,
      tls: true,
      shown: 'rediss://secure.example',
    },
    // An address: no SNI (it takes host names only), the certificate's IP names are checked instead.
    {
      url: 'rediss://127.0.0.1:6479',
      host: '127.0.0.1',
      port: 6479,
      tls: true,
      shown: 'rediss://127.0.0.1:6479',
    },
  ];
  for (const c of cases) {
    it(`reads ${c.url}`, () => {
      const { options, shown } = parseQueueUrl(c.url);
      assert.equal(options.host, c.host);
      assert.equal(options.port, c.port);
      assert.equal(options.db, c.db);
      assert.equal(options.username, c.username);
      assert.equal(options.password, c.password);
      assert.deepEqual(
        options.tls,
        c.tls ? (isIP(c.host) ? {} : { servername: c.host }) : undefined,
      );
      assert.equal(shown, c.shown);
      if (c.password)
        assert.ok(
          !shown.includes(c.password) && !shown.includes('s3cret'),
          `shown leaks the password: ${shown}`,
        );
    });
  }

  it('waits through outages: no per-command retry limit, reconnects at most every 2 s', () => {
    const { options } = parseQueueUrl('redis://h');
    assert.equal(options.maxRetriesPerRequest, null);
    assert.deepEqual(
      [1, 5, 10, 1000].map((n) => options.retryStrategy!(n)),
      [200, 1000, 2000, 2000],
    );
  });

  const bad: Array<{ url: string; says: RegExp }> = [
    { url: 'not a url', says: /"not a url" is not a URL; expected redis:\/\// },
    { url: 'localhost:6379', says: /is not a Redis URL; expected redis:\/\/ or rediss:\/\// },
    { url: 'http://h:6379', says: /"http:\/\/h:6379" is not a Redis URL/ },
    { url: 'redis://h/abc', says: /database "abc" is not a number/ },
    { url: 'redis://h/1/2', says: /database "1\/2" is not a number/ },
    { url: 'redis://', says: /"redis:\/\/" names no host/ },
    { url: 'redis:///0', says: /names no host/ },
    { url: 'redis://h:99999', says: /is not a URL/ },
  ];
  for (const b of bad) {
    it(`refuses ${b.url}`, () => {
      assert.match(refused(b.url), b.says);
    });
  }

  it('names the option the URL came from', () => {
    assert.match(refused('http://h', '--redis'), /^--redis "http:\/\/h" is not a Redis URL/);
    assert.match(refused('redis://h/x'), /^--queue: database "x"/);
  });

  it('never repeats the password in a refusal', () => {
    for (const url of [
      'http://ray:s3cret@h',
      'redis://ray:s3cret@h/x',
      'redis://ray:s3cret@h:99999',
      'redis://ray:s3cret@',
      'redis://:s3cret@/0',
    ]) {
      const message = refused(url);
      assert.ok(!message.includes('s3cret'), `the password is in: ${message}`);
    }
  });
});
