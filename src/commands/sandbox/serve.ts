// `bookdist sandbox serve`: the service in the foreground until Ctrl-C / SIGTERM.
import type { Context } from '../../context.js';
import { usageError, errorCode, unreadableFile } from '../../errors.js';
import { checkDuration } from '../../util/duration.js';
import type { VerbInput } from '../define.js';
import type { serve } from './serve.cmd.js';
import { isLoopback } from '../../sandbox/http/hosts.js';
import { dbPathOf } from './parts/common.js';

interface Options {
  host: string;
  port: number;
  db?: string;
  processDelayMs: number;
  faults?: { rate: number; kinds: Array<'503' | '429' | 'reset' | 'drop'>; latencyMs?: number };
  expose: boolean;
  allowHosts: string[];
  publicUrl?: string;
  /** HTTPS: a generated certificate (true), or the given files. */
  tls?: { certFile?: string; keyFile?: string };
  /** The request journal: its size and code redaction, or false (--no-journal). */
  journal: { size: number; redactCodes: boolean } | false;
}

export function parse({ opts }: VerbInput<typeof serve>): Options {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError(`--port must be a TCP port (0..65535), not "${opts.port}".`);
  const delayed = checkDuration('--process-delay', opts.processDelay, {
    minMs: 0,
    maxMs: 86_400_000,
    max: '24h',
    like: '2s or 500ms',
  });
  if ('problem' in delayed) throw usageError(delayed.problem);
  const delay = delayed.ms;
  const rate = Number(opts.faultRate);
  if (!Number.isFinite(rate) || rate < 0 || rate > 1)
    throw usageError(`--fault-rate must be a fraction from 0 to 1, not "${opts.faultRate}".`);
  const kinds: Array<'503' | '429' | 'reset' | 'drop'> = [];
  for (const k of opts.fault ?? []) {
    if (k !== '503' && k !== '429' && k !== 'reset' && k !== 'drop')
      throw usageError(`--fault must be 503, 429, reset or drop, not "${k}".`);
    kinds.push(k);
  }
  let latencyMs: number | undefined;
  if (opts.latency !== undefined) {
    const latency = checkDuration('--latency', opts.latency, { minMs: 0, maxMs: 600_000, max: '10m', like: '50ms' });
    if ('problem' in latency) throw usageError(latency.problem);
    latencyMs = latency.ms;
  }
  if (rate > 0 && kinds.length === 0) kinds.push('503');
  const faults = rate > 0 || latencyMs ? { rate, kinds, latencyMs } : undefined;
  const host = opts.host.trim();
  if (!host) throw usageError('--host must name an interface address, such as 127.0.0.1.');
  const expose = opts.expose === true;
  if (!isLoopback(host) && !expose) {
    throw usageError(
      `--host ${host} would expose the sandbox to other machines (its service API with the seeded test accounts, ` +
        'its reader and cart pages, and its control routes); add --expose to do that on purpose, or leave --host at 127.0.0.1.',
    );
  }
  const allowHosts = (opts.allowHost ?? []).map((h) => h.trim());
  for (const h of allowHosts) {
    if (!/^[\w.\-:[\]]{1,255}$/.test(h))
      throw usageError(`--allow-host must be a host name or address, such as sandbox.test, not "${h}".`);
  }
  if ((opts.cert === undefined) !== (opts.key === undefined))
    throw usageError('--cert and --key go together: the certificate (PEM) and its private key (PEM).');
  const tls = opts.tls === true || opts.cert !== undefined ? { certFile: opts.cert, keyFile: opts.key } : undefined;
  let publicUrl: string | undefined;
  if (opts.publicUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(opts.publicUrl.trim());
    } catch {
      u = undefined;
    }
    if (
      !u ||
      !/^https?:$/.test(u.protocol) ||
      u.username ||
      u.password ||
      u.search ||
      u.hash ||
      (u.pathname !== '/' && u.pathname !== '')
    ) {
      throw usageError(
        `--public-url must be an http:// or https:// URL with a host and nothing after it, such as https://sandbox.example:8710, not "${opts.publicUrl.slice(0, 100)}".`,
      );
    }
    publicUrl = u.origin;
  }
  const size = Number(opts.journalSize);
  if (!/^\d{1,9}$/.test(String(opts.journalSize)) || size < 1)
    throw usageError(`--journal-size must be a whole number of requests (1 or more), not "${opts.journalSize}".`);
  const journal = opts.journal === false ? (false as const) : { size, redactCodes: opts.redactCodes === true };
  return { host, port, db: opts.db, processDelayMs: delay, faults, expose, allowHosts, tls, publicUrl, journal };
}

export async function run(o: Options, ctx: Context): Promise<number> {
  const dbPath = await dbPathOf(ctx, o.db);
  const { startSandbox } = await import('../../sandbox/http/server.js');
  ctx.trapInterrupt();
  let server: Awaited<ReturnType<typeof startSandbox>>;
  let tls: { cert: string; key: string; caFile?: string } | undefined;
  if (o.tls?.certFile && o.tls.keyFile) {
    const { readFileSync } = await import('node:fs');
    const read = (file: string, flag: string) => {
      try {
        return readFileSync(file, 'utf8');
      } catch (e) {
        throw unreadableFile(flag, file, e);
      }
    };
    tls = { cert: read(o.tls.certFile, '--cert'), key: read(o.tls.keyFile, '--key'), caFile: o.tls.certFile };
  } else if (o.tls) {
    const { ensureTlsFiles } = await import('../../sandbox/http/tls.js');
    const made = ensureTlsFiles(dbPath, ['localhost', '127.0.0.1', '::1', o.host, ...o.allowHosts]);
    ctx.defer(() => made.cleanup());
    tls = made;
  }
  try {
    server = await startSandbox({
      host: o.host,
      port: o.port,
      dbPath,
      processDelayMs: o.processDelayMs,
      faults: o.faults,
      log: (line) => ctx.io.stderr.write(line + '\n'),
      expose: o.expose,
      allowHosts: o.allowHosts,
      publicUrl: o.publicUrl,
      tls,
      journal: o.journal,
    });
  } catch (e) {
    const where = `${o.host}:${o.port}`;
    if (errorCode(e) === 'EADDRINUSE')
      throw usageError(
        `Port ${o.port} is in use on ${o.host}: another program (or sandbox) listens there. Choose another with --port, or --port 0 for a free one.`,
      );
    if (errorCode(e) === 'EACCES')
      throw usageError(
        `Not allowed to listen on ${where} (ports below 1024 need privileges). Choose another with --port, or --port 0 for a free one.`,
      );
    if (errorCode(e) === 'EADDRNOTAVAIL' || errorCode(e) === 'ENOTFOUND')
      throw usageError(`--host ${o.host}: no such interface on this machine (e.g. 127.0.0.1 or 0.0.0.0).`);
    if (tls && e instanceof Error && /PEM|key|certificate|ASN1|DECODER/i.test(e.message))
      throw usageError(`--cert/--key: not a usable certificate and private key (${e.message}).`);
    throw e;
  }
  if (!isLoopback(o.host)) {
    ctx.warn(
      `--expose: the sandbox listens on ${o.host}:${server.port}, so every machine that can reach this one can use ` +
        "its service API (anyone holding the seeded accounts' keys or shared keys can act as them), open its reader and cart " +
        'pages, and, with the control secret, drive its control routes (clock, redeem, usage, outbox, worker, credentials ' +
        'without private keys). ' +
        (tls ? 'Use test data only.' : 'Everything travels as plain HTTP. Use test data only.'),
    );
  }
  ctx.io.stdout.write(server.url + '\n');
  ctx.info(`bookdist sandbox: serving ${server.url} (database ${dbPath}); Ctrl-C stops it.`);
  if (server.caFile) {
    ctx.info(
      `TLS: clients trust ${server.caFile} (bookdist --ca-file or BOOKDIST_CA_FILE; curl --cacert; other Node programs NODE_EXTRA_CA_CERTS).`,
    );
  }
  ctx.info(
    'Credentials and the control secret of the /_sandbox/ routes: `bookdist sandbox credentials' +
      (o.db ? ` --db ${o.db}` : '') +
      '`.',
  );
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
  ctx.info('bookdist sandbox: stopped.');
  return 0;
}
