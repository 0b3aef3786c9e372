import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resetFromText } from '../../../src/agents/claude/reset-text.js';
import { StreamReader } from '../../../src/agents/claude/stream-reader.js';

const at = (iso: string) => Date.parse(iso);

describe('resetFromText', () => {
  it('reads a time and an IANA zone, today or, once past, tomorrow', () => {
    const text = "You've hit your session limit · resets 3pm (America/Chicago)";
    assert.equal(resetFromText(text, at('2026-11-23T15:00:00Z')), at('2026-11-23T21:00:00Z'));
    assert.equal(resetFromText(text, at('2026-11-23T22:00:00Z')), at('2026-11-24T21:00:00Z'));
    assert.equal(
      resetFromText(text, at('2026-07-01T15:00:00Z')),
      at('2026-07-01T20:00:00Z'),
      'summer time',
    );
  });

  it('reads minutes, "at", abbreviations, midnight and noon', () => {
    assert.equal(
      resetFromText('limit reached, resets at 10:30pm (PST)', at('2026-11-23T15:00:00Z')),
      at('2026-11-24T06:30:00Z'),
    );
    assert.equal(
      resetFromText('resets 12am (UTC)', at('2026-11-23T15:00:00Z')),
      at('2026-11-24T00:00:00Z'),
    );
    assert.equal(
      resetFromText('resets 12pm (UTC)', at('2026-11-23T09:00:00Z')),
      at('2026-11-23T12:00:00Z'),
    );
    assert.equal(
      resetFromText('resets 2:40am (Asia/Tokyo)', at('2026-11-23T15:00:00Z')),
      at('2026-11-23T17:40:00Z'),
    );
  });

  it('says nothing of what it cannot know', () => {
    assert.equal(resetFromText('usage limit reached'), undefined);
    assert.equal(resetFromText('resets Friday'), undefined);
    assert.equal(resetFromText('resets 3pm (Mars/Olympus)'), undefined);
    assert.equal(resetFromText('resets 13pm (UTC)'), undefined);
  });

  it('gives the stream reader the reset of a notice in words', () => {
    const r = new StreamReader();
    r.write(
      `${JSON.stringify({ type: 'result', is_error: true, result: "You've hit your session limit · resets 3pm (America/Chicago)", session_id: 's' })}\n`,
    );
    const limit = r.end().usageLimit;
    assert.ok(limit, 'a usage limit');
    const reset = new Date(limit.resetsAt!);
    assert.ok(
      reset.getTime() > Date.now() && reset.getTime() <= Date.now() + 24 * 3_600_000,
      reset.toISOString(),
    );
    assert.equal(reset.getUTCMinutes(), 0);
    assert.ok([20, 21].includes(reset.getUTCHours()), reset.toISOString());
  });
});
