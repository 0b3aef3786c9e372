import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  GATE_TUNING,
  OPEN_GATE,
  afterAnswer,
  afterRefusal,
  afterSend,
  perMinuteOf,
  sendAt,
} from '../../src/gate/gate-rules.js';

describe('gate rules', () => {
  it('lets requests go as they come until the account tells or refuses', () => {
    let s = OPEN_GATE;
    for (let i = 0; i < 5; i++) s = afterSend(s, 1000);
    assert.equal(sendAt(s, 1000), 1000);
    assert.equal(afterAnswer(s, undefined, true, 1000, GATE_TUNING), s, 'no rate to grow');
  });

  it('spaces requests at the rate the headers tell, using what the bucket holds first', () => {
    // 300 a minute, 4 left after this answer: the bucket holds 5.
    let s = afterAnswer(OPEN_GATE, { perSecond: 5, remaining: 4 }, false, 0, GATE_TUNING);
    assert.equal(s.capacity, 5);
    const times: number[] = [];
    let now = 0;
    for (let i = 0; i < 8; i++) {
      now = sendAt(s, now);
      times.push(now);
      s = afterSend(s, now);
    }
    assert.deepEqual(times.slice(0, 4), [0, 0, 0, 0], 'the 4 it has left go at once');
    assert.deepEqual(
      times.slice(4).map((t) => Math.round(t)),
      [250, 450, 650, 850],
      'then one each 200 ms (each 50 ms after the bucket refills)',
    );
  });

  it('keeps its own count of what the bucket holds, unless the headers say it holds less; learns a larger bucket from them', () => {
    let s = afterAnswer(OPEN_GATE, { perSecond: 0.5, remaining: 0 }, false, 0, GATE_TUNING);
    assert.equal(sendAt(s, 0), 2050, 'empty: the next in 2 s');
    s = afterAnswer(s, { perSecond: 0.5, remaining: 0 }, false, 1800, GATE_TUNING);
    assert.equal(s.tokens, 0.9, '0 whole requests left: the 0.9 refilled stays');
    s = afterAnswer(s, { perSecond: 0.5, remaining: 2 }, false, 10_000, GATE_TUNING);
    assert.equal(s.capacity, 3);
    assert.equal(s.tokens, 3, 'refilled to the bucket learned');
    s = afterSend(s, 10_000);
    assert.equal(s.tokens, 2);
    s = afterAnswer(s, { perSecond: 0.5, remaining: 0 }, false, 10_000, GATE_TUNING);
    assert.equal(s.tokens, 1, 'the API has less than the gate counted: another client took some');
  });

  it('holds every request for the wait a refusal asks; a told rate is not cut by it', () => {
    let s = afterAnswer(OPEN_GATE, { perSecond: 1, remaining: 0 }, false, 0, GATE_TUNING);
    s = afterRefusal(s, 3000, 500, GATE_TUNING);
    assert.equal(sendAt(s, 600), 3500);
    assert.equal(s.perSecond, 1);
  });

  it("learns an untold rate: a refusal's wait is one request's spacing, later ones cut it once a window, requests served while others wait grow it", () => {
    let s = afterRefusal(OPEN_GATE, 2000, 0, GATE_TUNING);
    assert.equal(s.perSecond, 0.5);
    assert.equal(sendAt(s, 0), 2000);
    const probed = afterAnswer(s, undefined, true, 3000, GATE_TUNING).perSecond!;
    assert.ok(Math.abs(probed - 0.55) < 1e-9, 'until a second refusal, 10% a request');
    s = afterRefusal(s, 2000, 1000, GATE_TUNING);
    assert.equal(s.perSecond, 0.5, 'the same overshoot: within two spacings (4 s)');
    s = afterRefusal(s, 2000, 5000, GATE_TUNING);
    assert.equal(s.perSecond, 0.4);
    assert.equal(s.probing, false, 'a cut ends the probe');
    const grown = afterAnswer(s, undefined, true, 9000, GATE_TUNING);
    assert.ok(Math.abs(grown.perSecond! - 0.408) < 1e-9);
    assert.equal(
      afterAnswer(s, undefined, false, 9000, GATE_TUNING).perSecond,
      0.4,
      'idle: no growth',
    );
  });

  it('says a rate in requests a minute', () => {
    assert.equal(perMinuteOf(0.5), 30);
    assert.equal(perMinuteOf(0.05), 3);
    assert.equal(perMinuteOf(0.0125), 0.8);
  });
});
