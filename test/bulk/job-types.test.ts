// The job's shared state (src/bulk/job/types.ts): when the first phase counts as complete (every
// batch handed out finished and written, the input read to its end, nothing fatal, no write or
// input error), which decides whether the second phase (settle) runs. Whole jobs: engine.test.ts.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import { firstPhaseComplete, newJobState, type JobSpec, type JobState } from '../../src/bulk/job/types.js';

type Row = Record<string, unknown>;

const ctx = { signal: new AbortController().signal } as unknown as Context;

/** A job whose every batch ran and was written; `change` then makes one thing otherwise. */
function state(change: Partial<JobState<string, Row>> = {}): JobState<string, Row> {
  const s = newJobState({ verb: 'book process' } as unknown as JobSpec<string, Row>, ctx);
  return Object.assign(s, { sourceDone: true, yielded: 3, handled: 3 }, change);
}

describe('firstPhaseComplete', () => {
  it('is complete when every batch handed out was handled and the input is read to its end', () => {
    expect(firstPhaseComplete(state())).toBe(true);
    expect(firstPhaseComplete(state({ yielded: 0, handled: 0 }))).toBe(true);
  });

  it.each([
    ['the input is not read to its end', { sourceDone: false }],
    ['a batch handed out is not finished', { handled: 2 }],
    [
      'a failure stopped the job',
      { fatal: { kind: 'unavailable', message: 'down' } as JobState<string, Row>['fatal'] },
    ],
    ['a write failed', { writeError: new Error('ENOSPC') }],
    ['the input could not be read', { sourceError: new Error('bad row') }],
    ['a batch ended with nothing written', { notDone: 1 }],
  ])('is not complete when %s', (_, change) => {
    expect(firstPhaseComplete(state(change))).toBe(false);
  });
});
