import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  commandLabel,
  configCommands,
  hookRequest,
  notifyCommandsProblem,
  notifyUrlProblem,
  notifyUrlsProblem,
  redactUrl,
  urlLabel,
} from '../../src/notify/hook-spec.js';

describe('hooks as the config file and warnings write them', () => {
  it('notify: a string is one command line, an array of strings one argv, an array holding arrays several commands', () => {
    assert.deepEqual(configCommands('notify-send "Raymond run"'), [['notify-send', 'Raymond run']]);
    assert.deepEqual(configCommands(['notify-send', 'Raymond run', '$HOME']), [
      ['notify-send', 'Raymond run', '$HOME'],
    ]);
    assert.deepEqual(configCommands([['a', 'b c'], 'd "e f"']), [
      ['a', 'b c'],
      ['d', 'e f'],
    ]);
    assert.deepEqual(configCommands([]), []);
  });

  it('notify: a bad command line or an argv without a program is a problem, named', () => {
    assert.match(
      notifyCommandsProblem('echo "x') ?? '',
      /the command has an unterminated double quote/,
    );
    assert.match(notifyCommandsProblem([[], 'x']) ?? '', /must name a program/);
    assert.match(notifyCommandsProblem(['', 'x']) ?? '', /must name a program/);
    assert.equal(notifyCommandsProblem(['x']), undefined);
  });

  it('notify_url: http and https only', () => {
    assert.equal(notifyUrlProblem('https://example.com/hook'), undefined);
    assert.equal(notifyUrlProblem('http://127.0.0.1:8080/x'), undefined);
    assert.match(notifyUrlProblem('file:///etc/passwd') ?? '', /file: URL/);
    assert.match(notifyUrlProblem('example.com/hook') ?? '', /it cannot be parsed/);
    assert.match(notifyUrlProblem('http://[::1') ?? '', /it cannot be parsed/);
    assert.match(
      notifyUrlsProblem(['https://a.example', 'ftp://b.example']) ?? '',
      /"ftp:\/\/b\.example" is not an http:\/\/ or https:\/\/ URL: it is a ftp: URL/,
    );
  });

  it('a warning shows a URL without its user part or query, and a command so that it reads back as the same words', () => {
    assert.equal(
      urlLabel('https://user:secret@hooks.example.com/x/y?token=abc'),
      'https://hooks.example.com/x/y?...',
    );
    assert.equal(urlLabel('http://127.0.0.1:8080/hook'), 'http://127.0.0.1:8080/hook');
    assert.equal(commandLabel(['notify-send', 'a run', "it's"]), `notify-send 'a run' 'it'\\''s'`);
  });

  it("moves a URL's user and password to a Basic Authorization header, decoded", () => {
    assert.deepEqual(hookRequest('https://hooks.example.com/x?token=abc'), {
      url: 'https://hooks.example.com/x?token=abc',
      headers: {},
    });
    assert.deepEqual(hookRequest('https://us%20er:p%3Ass@hooks.example.com/x?token=abc'), {
      url: 'https://hooks.example.com/x?token=abc',
      headers: { authorization: `Basic ${Buffer.from('us er:p:ss').toString('base64')}` },
    });
    assert.deepEqual(hookRequest('http://token@127.0.0.1:9/'), {
      url: 'http://127.0.0.1:9/',
      headers: { authorization: `Basic ${Buffer.from('token:').toString('base64')}` },
    });
  });

  it("hides the URL, however it is spelled, in a failure's text", () => {
    const url = 'https://user:secret@Hooks.Example.com/x?token=abc';
    assert.equal(
      redactUrl(
        `Request cannot be constructed from a URL that includes credentials: https://user:secret@hooks.example.com/x?token=abc`,
        url,
      ),
      'Request cannot be constructed from a URL that includes credentials: https://hooks.example.com/x?...',
    );
    assert.equal(
      redactUrl('fetch https://hooks.example.com/x?token=abc failed', url),
      'fetch https://hooks.example.com/x?... failed',
    );
  });
});
