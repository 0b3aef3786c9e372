import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  $,
  connection,
  duration,
  el,
  fill,
  jsonBody,
  messageOf,
  money,
  readConfig,
  wallTime,
} from '../../../src/web/client/page-helpers.js';

/** Just enough of a document for the helpers: elements are plain objects, found by id. */
class FakeElement {
  className = '';
  textContent: string | null = '';
  constructor(readonly tagName: string) {}
}
const byId = new Map<string, FakeElement>();
const fakeDocument = {
  createElement: (tag: string) => new FakeElement(tag.toUpperCase()),
  getElementById: (id: string) => byId.get(id) ?? null,
};

describe("the pages' helpers", () => {
  before(() => Object.assign(globalThis, { document: fakeDocument }));
  after(() => delete (globalThis as { document?: unknown }).document);

  it('el makes an element with its class and text only when given', () => {
    const bare = el('div') as unknown as FakeElement;
    assert.deepEqual([bare.tagName, bare.className, bare.textContent], ['DIV', '', '']);
    const full = el('span', 'status running', '<b>not html</b>') as unknown as FakeElement;
    assert.deepEqual([full.className, full.textContent], ['status running', '<b>not html</b>']);
    const empty = el('li', null, '') as unknown as FakeElement;
    assert.deepEqual([empty.className, empty.textContent], ['', '']);
  });

  it('money shows four figures below $1, cents from there, whole dollars from $1,000, and $0.00 for nothing', () => {
    assert.deepEqual(
      [
        money(0),
        money(undefined),
        money(null),
        money(0.256),
        money(99.994),
        money(100),
        money(0.00002),
        money(1234.5),
      ],
      ['$0.00', '$0.00', '$0.00', '$0.256', '$99.99', '$100.00', '$0.00002', '$1235'],
    );
  });

  it('duration shows hours, minutes and seconds as far as needed, never negative', () => {
    assert.deepEqual(
      [
        duration(0),
        duration(7.4),
        duration(59.6),
        duration(125),
        duration(3600),
        duration(3725),
        duration(-5),
      ],
      ['0s', '7s', '1m0s', '2m5s', '1h0m0s', '1h2m5s', '0s'],
    );
  });

  it("wallTime shows tenths of a second below 10 s, and the page's durations from there", () => {
    assert.deepEqual(
      [
        wallTime(0),
        wallTime(40),
        wallTime(3449),
        wallTime(9949),
        wallTime(10_000),
        wallTime(125_000),
        wallTime(-5),
      ],
      ['0.0s', '0.0s', '3.4s', '9.9s', '10s', '2m5s', '0.0s'],
    );
  });

  it('fill puts each known key in a URL template, encoded, and leaves unknown keys', () => {
    assert.equal(
      fill('/runs/{id}/asks/{ask_id}/files/{path}', { ask_id: 'a 1', path: 'x/y.txt' }),
      '/runs/{id}/asks/a%201/files/x%2Fy.txt',
    );
    assert.equal(fill('/ui/runs/{id}', { id: 'r?1' }), '/ui/runs/r%3F1');
  });

  it('connection shows the link state, green only when live', () => {
    byId.set('connection', new FakeElement('SPAN'));
    connection('live');
    assert.deepEqual(
      [$('connection').textContent, $('connection').className],
      ['live', 'connection live'],
    );
    connection('reconnecting…');
    assert.deepEqual(
      [$('connection').textContent, $('connection').className],
      ['reconnecting…', 'connection offline'],
    );
  });

  it("readConfig parses the page's config element", () => {
    byId.set(
      'live-config',
      Object.assign(new FakeElement('SCRIPT'), {
        textContent: '{"uploads":true,"urls":{"answer":"/a"}}',
      }),
    );
    assert.deepEqual(readConfig('live-config'), { uploads: true, urls: { answer: '/a' } });
  });

  it('jsonBody reads a JSON answer, and gives {} for an answer that is not JSON', async () => {
    assert.deepEqual(await jsonBody(new Response('{"error":"no such run"}', { status: 404 })), {
      error: 'no such run',
    });
    assert.deepEqual(await jsonBody(new Response('Bad Gateway', { status: 502 })), {});
  });

  it("messageOf gives an error's message, or the thing itself", () => {
    assert.equal(messageOf(new Error('HTTP 500')), 'HTTP 500');
    assert.equal(messageOf('offline'), 'offline');
  });
});
