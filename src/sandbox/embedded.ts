// The embedded sandbox behind the built-in `sandbox` profile: the database in the user's data
// directory (seeded when empty, race-safe across parallel CLI processes), a server the CLI
// reaches in its own process (no socket: http/in-process.ts), and the seeded partner's credentials.
import { chmodSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { makeDir } from './db/make-dir.js';
import { CliError, ExitCode } from '../errors.js';
import { join } from 'node:path';
import { startSandbox } from './http/server.js';

export interface EmbeddedSandbox {
  /** A URL no one else can reach (http/server.ts IN_PROCESS_URL): requests go through connect(). */
  baseUrl: string;
  /** A new connection to the sandbox, in this process. */
  connect: () => Duplex;
  username: string;
  keyPem: string;
  sharedKey: string;
  operatorToken: string;
  /** The control secret of its /_sandbox/ routes. */
  controlSecret: string;
  /** Path of the partner's private key file (0600), next to the database. */
  keyFile: string;
  dbPath: string;
  close(): Promise<void>;
}

export function embeddedDbPath(dataDir: string): string {
  return join(dataDir, 'sandbox.db');
}

/** The data directory cannot be made: say which variable moves it. */
function dataDirError(dataDir: string, e: unknown): CliError {
  const code = (e as { code?: string }).code ?? String(e);
  return new CliError(
    `Cannot create the sandbox's data directory ${dataDir} (${code}): the home directory may be read-only. ` +
      'Set BOOKDIST_DATA_DIR to a writable directory (it moves the sandbox database and keys there).',
    ExitCode.USAGE,
  );
}

export async function startEmbedded(opts: {
  dataDir: string;
  log?: (line: string) => void;
  processDelayMs?: number;
}): Promise<EmbeddedSandbox> {
  try {
    makeDir(opts.dataDir);
  } catch (e) {
    throw dataDirError(opts.dataDir, e);
  }
  try {
    chmodSync(opts.dataDir, 0o700);
  } catch {
    /* not ours to change */
  }
  const dbPath = embeddedDbPath(opts.dataDir);
  // One connection: the server opens the database (seeding it only when empty) and reads the
  // seeded credentials; nothing is checked or read a second time.
  const server = await startSandbox({
    host: '127.0.0.1',
    port: 0,
    dbPath,
    log: opts.log,
    processDelayMs: opts.processDelayMs,
    workspaces: false,
    inProcess: true,
  });
  const c = server.credentials;
  return {
    baseUrl: server.url,
    connect: server.connect!,
    username: c.partner.username,
    keyPem: c.partner.private_key,
    sharedKey: c.partner.shared_key,
    operatorToken: c.operator_token,
    controlSecret: c.control_secret,
    keyFile: c.partner.key_file,
    dbPath,
    close: () => server.close(),
  };
}
