import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpUrlProblem } from '../src/http-url.js';

describe('httpUrlProblem', () => {
  it('accepts http and https URLs with a host, IPv6 literals included', () => {
    for (const url of ['http://127.0.0.1:4318', 'https://collector.example/x', 'http://[::1]:4318'])
      assert.equal(httpUrlProblem(url), undefined, url);
  });
  it('names what is wrong with a URL no parser takes', () => {
    assert.equal(httpUrlProblem('http://[::1'), 'it cannot be parsed');
    assert.equal(httpUrlProblem('http://exa mple'), 'it cannot be parsed');
    assert.equal(httpUrlProblem('ftp://collector'), 'it is a ftp: URL');
    assert.equal(httpUrlProblem('collector:4318'), 'it is a collector: URL');
  });
});
