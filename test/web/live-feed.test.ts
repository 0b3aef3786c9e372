import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLiveFeed, type NumberedEvent } from '../../src/web/live-feed.js';

const print = (n: number) => ({ type: 'print' as const, agentId: 'main', text: `line ${n}` });

describe('the live feed', () => {
  it('numbers events from 1 and gives a reconnecting page what it missed', () => {
    const feed = createLiveFeed(100);
    for (let i = 1; i <= 5; i++) feed.push(print(i));
    assert.deepEqual(
      feed.since(3)!.map((e) => e.seq),
      [4, 5],
    );
    assert.deepEqual(
      feed.since(0)!.map((e) => e.seq),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(feed.since(5), []);
    assert.equal(
      feed.since(9),
      undefined,
      "an id past the last is another run's: the page must reload",
    );
    assert.equal(feed.snapshot().seq, 5);
  });

  it('says when events a page missed are no longer kept, so it reloads the snapshot', () => {
    const feed = createLiveFeed(10);
    for (let i = 1; i <= 40; i++) feed.push(print(i));
    assert.equal(feed.since(0), undefined);
    const kept = feed.since(35)!;
    assert.deepEqual(
      kept.map((e) => e.seq),
      [36, 37, 38, 39, 40],
    );
    assert.equal(kept[0]!.event.type === 'print' && kept[0]!.event.text, 'line 36');
  });

  it('sends each new event to every subscriber until it unsubscribes', () => {
    const feed = createLiveFeed();
    const got: NumberedEvent[] = [];
    const stop = feed.subscribe((e) => got.push(e));
    feed.push(print(1));
    stop();
    feed.push(print(2));
    assert.deepEqual(
      got.map((e) => e.seq),
      [1],
    );
  });
});
