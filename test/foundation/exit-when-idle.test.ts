// The launcher ends the process itself once its event loop is idle (src/launch.ts exitWhenIdle):
// only when nothing else listens for 'beforeExit', which could give the loop more work.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { exitWhenIdle } from '../../src/launch.js';

/** A stand-in for the process: its 'beforeExit' listeners and the exits asked for. */
function fakeProcess() {
  const exits: unknown[][] = [];
  const proc = Object.assign(new EventEmitter(), { exit: (...args: unknown[]) => void exits.push(args) });
  return { proc, exits };
}

describe('the launcher ends an idle process', () => {
  it('with process.exit() (no argument: process.exitCode stands) when the loop is idle, once', () => {
    const { proc, exits } = fakeProcess();
    exitWhenIdle(proc as unknown as NodeJS.Process);
    expect(exits).toEqual([]);
    proc.emit('beforeExit', 0);
    proc.emit('beforeExit', 0);
    expect(exits).toEqual([[]]);
  });

  it("not while anything else listens for 'beforeExit', before or after it: the process ends as Node ends it", () => {
    for (const first of [true, false]) {
      const { proc, exits } = fakeProcess();
      const heard: string[] = [];
      if (first) proc.on('beforeExit', () => heard.push('other'));
      exitWhenIdle(proc as unknown as NodeJS.Process);
      if (!first) proc.on('beforeExit', () => heard.push('other'));
      proc.emit('beforeExit', 0);
      expect(exits).toEqual([]);
      expect(heard).toEqual(['other']);
    }
  });
});
