// Waiting that an interrupt ends: the real clock's sleep (src/cli/context.ts), and the API client's
// when it is given none (tests that make a client of their own).

/** Resolve after `ms`; reject with the signal's reason as soon as it is aborted (at once if it already is). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
