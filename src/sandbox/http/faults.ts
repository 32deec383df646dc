// Fault injection (`sandbox serve --faults`): a request answered as a failing service would (a
// reset connection, a 429, a 503), or carried out with its answer lost; latency; and a seeded
// sequence, so that the same requests in the same order get the same faults.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, TEST_MODE } from './http.js';

export interface FaultOptions {
  /** Probability (0..1) that a request gets one of `kinds`. */
  rate: number;
  /**
   * `reset`: the connection is closed before the request is read (it never arrives); `drop`: the
   * request is carried out (committed) and its answer dropped, the connection closed instead.
   */
  kinds: Array<'503' | '429' | 'reset' | 'drop'>;
  /** Added to every (non-control) request. */
  latencyMs?: number;
  /** Draw faults from this seeded sequence instead of Math.random: the same requests in the same order get the same faults (tests). */
  seed?: number;
}

/** A small seeded generator (mulberry32): numbers in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The request runs as usual, but its answer never leaves: the connection is closed instead (a lost answer). */
export function dropAnswer(req: IncomingMessage, res: ServerResponse, logDrop: () => void): void {
  const drop = () => {
    logDrop();
    req.socket.destroy();
    return res;
  };
  res.writeHead = () => res;
  res.write = () => true;
  res.end = drop;
}

/** Answer as a failing service would: a reset connection at once, or a 429 or 503 after `latency`. */
export function injectFault(
  kind: Exclude<FaultOptions['kinds'][number], 'drop'>,
  latency: number,
  req: IncomingMessage,
  res: ServerResponse,
  logReset: () => void,
): void {
  if (kind === 'reset') {
    logReset();
    req.socket.destroy();
    return;
  }
  const run = () => {
    if (kind === '429') {
      sendJson(
        res,
        429,
        { code: 429, error: true, ...TEST_MODE, message: 'Too many requests; retry after 1 second.' },
        { 'retry-after': '1' },
      );
    } else {
      sendJson(res, 503, { code: 503, error: true, ...TEST_MODE, message: 'Service temporarily unavailable.' });
    }
    req.resume();
  };
  if (latency > 0) setTimeout(run, latency);
  else run();
}
