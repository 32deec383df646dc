// Test helpers of the foundation suite: a recording HTTP server, fake IO streams, RSA keys.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import type { IO } from '../../src/context.js';

export interface Recorded {
  method: string;
  /** The request target exactly as received (path and query, not normalised). */
  url: string;
  /** Header names and values as received, in order (names lowercased by node). */
  rawHeaders: Array<[string, string]>;
  headers: Record<string, string | string[] | undefined>;
  /** The body bytes as received. */
  body: Buffer;
}

export type Responder = (req: Recorded, res: ServerResponse, n: number) => void | Promise<void>;

/** A node:http server on 127.0.0.1:0 that records every request and answers with `respond`. */
export async function startRecorder(
  respond: Responder = (_q, res) => json(res, 200, { code: 200, success: true, test_mode: false }),
) {
  const requests: Recorded[] = [];
  let responder = respond;
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw: Array<[string, string]> = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) raw.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
    const rec: Recorded = {
      method: req.method!,
      url: req.url!,
      rawHeaders: raw,
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    requests.push(rec);
    await responder(rec, res, requests.length);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(fn: Responder) {
      responder = fn;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function text(res: ServerResponse, status: number, body: string, type = 'text/plain'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export interface Keys {
  pkcs1: string;
  pkcs8: string;
  publicKey: string;
}

export function rsaKeys(): Keys {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    pkcs1: privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
    pkcs8: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

export function ecKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

export function tempDir(prefix = 'bookdist-test-'): {
  dir: string;
  file(name: string, content: string): string;
  cleanup(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file(name, content) {
      const p = join(dir, name);
      writeFileSync(p, content, { mode: 0o600 });
      return p;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A writable that collects what is written, optionally posing as a terminal. */
function capture(opts: { isTTY?: boolean; columns?: number } = {}) {
  let data = '';
  const w = new Writable({
    write(chunk, _enc, cb) {
      data += chunk.toString();
      cb();
    },
  }) as Writable & { isTTY?: boolean; columns?: number; text(): string };
  if (opts.isTTY) w.isTTY = true;
  if (opts.columns) w.columns = opts.columns;
  w.text = () => data;
  return w;
}

export function fakeIO(
  opts: { env?: Record<string, string | undefined>; tty?: boolean; columns?: number; input?: string } = {},
) {
  const stdout = capture({ isTTY: opts.tty, columns: opts.columns });
  const stderr = capture({ isTTY: opts.tty, columns: opts.columns });
  const stdin = (
    opts.input !== undefined ? Readable.from([Buffer.from(opts.input)]) : new PassThrough().end()
  ) as IO['stdin'];
  if (opts.tty) (stdin as any).isTTY = true;
  const io: IO = { stdin, stdout, stderr, env: { ...(opts.env ?? {}) }, cwd: process.cwd() };
  return { io, stdout, stderr };
}

/** The oldest Node package.json's engines.node allows (">=22.22" is 22.22.0), as scripts/prepare-tests.sh reads it. */
export function oldestNodeVersion(engines: string): string {
  const m = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(engines);
  if (!m) throw new Error(`engines.node ${engines} is not >=X.Y[.Z]`);
  return `${m[1]}.${m[2]}.${m[3] ?? 0}`;
}
