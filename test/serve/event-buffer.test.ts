import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBuffer } from '../../src/serve/event-buffer.js';

describe('EventBuffer', () => {
  it('replays what follows an id, and counts what it no longer keeps', () => {
    const b = new EventBuffer(3);
    for (const d of ['a', 'b', 'c', 'd', 'e']) b.push(d);
    assert.equal(b.lastId, 5);
    assert.deepEqual(b.replay(3), {
      events: [
        { id: 4, data: 'd' },
        { id: 5, data: 'e' },
      ],
      missed: 0,
    });
    assert.deepEqual(b.replay(0), {
      events: [
        { id: 3, data: 'c' },
        { id: 4, data: 'd' },
        { id: 5, data: 'e' },
      ],
      missed: 2,
    });
    assert.deepEqual(b.replay(5), { events: [], missed: 0 });
  });

  it('tells listeners each new event, then the end', () => {
    const b = new EventBuffer();
    const got: Array<string | null> = [];
    b.listen((e) => got.push(e && e.data));
    b.push('x');
    b.end();
    b.push('late');
    assert.deepEqual(got, ['x', null]);
    assert.equal(b.ended, true);
  });
});
