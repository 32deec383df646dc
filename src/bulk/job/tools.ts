// What a verb's spec uses to make requests: one call through the client (whose retry policy
// applies once), and a breaker. The breaker multiplies nothing: when the service stayed
// unavailable for concurrency+2 requests in a row (each after the client's own retries), what is
// left fails at once, unsent (--resume sends it), instead of every remaining batch spending its
// retries on a service that is gone.
import type { ApiClient } from '../../api/client.js';
import { callOnce, type Failure } from '../retry.js';
import { stopsAtOnce } from './summary.js';
import type { Rescue } from './rescue.js';
import type { JobState, JobTools } from './types.js';

function breakerLimit(concurrency: number): number {
  return concurrency + 2;
}

export interface Breaker {
  consecutive: number;
  open?: Failure;
  /** Said when it opens (above the progress bar, even under --quiet). */
  warn(line: string): void;
}

export function makeTools<I, R extends Record<string, unknown>>(
  s: JobState<I, R>,
  api: ApiClient,
  log: (line: string) => void,
  breaker?: Breaker,
  rescue?: Rescue,
): JobTools {
  const { spec, ctx } = s;
  return {
    api,
    ctx,
    log,
    ahead: (calls) => {
      if (s.fatal || breaker?.open || ctx.signal.aborted) return;
      api.announceAhead(
        calls.map((c) => ({ name: c.name, args: { ...(c.args as Record<string, unknown>), headers: c.headers } })),
      );
    },
    keep: async (rows) => {
      await rescue?.keep(rows);
    },
    call: async (name, args, headers) => {
      // After a certificate or proxy failure nothing more is sent: the item is left, unwritten,
      // to the run that continues the job once the failure is mended.
      if (s.fatal && stopsAtOnce(s.fatal)) return { ok: false, failure: s.fatal, interrupted: true };
      if (breaker?.open) return { ok: false, failure: breaker.open };
      s.sent = true;
      const r = await callOnce(api, name, args, { headers, signal: ctx.signal, timeout: spec.requestTimeout });
      if (!r.ok && stopsAtOnce(r.failure)) {
        s.fatal ??= r.failure;
        s.stop.abort();
        return { ...r, interrupted: true };
      }
      if (!breaker) return r;
      if (r.ok) breaker.consecutive = 0;
      else if (
        !r.interrupted &&
        r.failure.kind === 'unavailable' &&
        ++breaker.consecutive >= breakerLimit(spec.concurrency) &&
        !breaker.open
      ) {
        breaker.open = r.failure;
        breaker.warn(
          `${spec.verb}: the service stayed unavailable for ${breakerLimit(spec.concurrency)} requests in a row (last: ${r.failure.message}); no new requests are started.`,
        );
        // Ordered jobs (lookups) promise one record per input line: the rest fail at once, unsent.
        if (!spec.ordered) s.stop.abort();
      }
      return r;
    },
  };
}
