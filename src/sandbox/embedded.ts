// The embedded sandbox behind the built-in `sandbox` profile: the database in the user's data
// directory (seeded when empty, race-safe across parallel CLI processes), a server the CLI
// reaches in its own process (no socket: http/in-process.ts), and the seeded partner's credentials.
import { chmodSync, statSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { makeDir } from './db/make-dir.js';
import { CliError, ExitCode } from '../errors.js';
import { join } from 'node:path';
import { startSandbox } from './http/server.js';
import { rsaPrivateKey } from '../spec/rsa-keys.js';

export interface EmbeddedSandbox {
  /** A URL no one else can reach (http/server.ts IN_PROCESS_URL): requests go through connect(). */
  baseUrl: string;
  /** A new connection to the sandbox, in this process. */
  connect: () => Duplex;
  username: string;
  keyPem: string;
  /** keyPem decoded from its JWK (keys.ts); undefined when it is not a two-prime RSA key in PKCS#8 PEM. */
  partnerKey(): KeyObject | undefined;
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
  const release = holdWal(dbPath);
  return {
    baseUrl: server.url,
    connect: server.connect!,
    username: c.partner.username,
    keyPem: c.partner.private_key,
    partnerKey: () => rsaPrivateKey(c.partner.private_key),
    sharedKey: c.partner.shared_key,
    operatorToken: c.operator_token,
    controlSecret: c.control_secret,
    keyFile: c.partner.key_file,
    dbPath,
    close: async () => {
      // A WAL grown past its bound is let go first: the server's connection, the last, checkpoints it.
      if (walBytes(dbPath) > KEPT_WAL_BYTES) release();
      await server.close();
      release();
    },
  };
}

/**
 * The WAL a command's writes went to (the journal's row of each request, at least) is kept for
 * the next command, up to this size (issue 31). SQLite's last connection to close checkpoints the
 * WAL into the database and deletes it: two fsyncs and an unlink, then two more fsyncs (the new
 * WAL's header and its directory) at the next command's first write, 10-50 ms of waiting on
 * every embedded command on a slow disk, more than the rest of its start. A WAL kept is read
 * again by the next command's first connection (its index is rebuilt from it), which costs
 * about a millisecond at this size; past it, the command that ends checkpoints it as before.
 */
const KEPT_WAL_BYTES = 256 * 1024;

function walBytes(dbPath: string): number {
  try {
    return statSync(`${dbPath}-wal`).size;
  } catch {
    return 0;
  }
}

/**
 * Keep the WAL when the server's connection closes: a read-only connection of this process holds
 * its shared lock meanwhile (so the server's close cannot checkpoint), and closes last (a
 * read-only connection never checkpoints). Nothing changes what is written or when it is durable
 * (the database's synchronous=NORMAL: a commit is never synced; a checkpoint is). Returns what
 * lets it go (once); a connection that cannot be opened keeps nothing.
 */
function holdWal(dbPath: string): () => void {
  let db: import('node:sqlite').DatabaseSync | undefined;
  try {
    db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(dbPath, { readOnly: true, timeout: 1000 });
    // One read (the header's user_version), so that the connection takes its shared lock; it
    // needs no schema, which a statement naming a table would parse a second time (issue 31).
    db.prepare('PRAGMA user_version').get();
  } catch {
    try {
      db?.close();
    } catch {
      /* not open */
    }
    db = undefined;
  }
  return () => {
    try {
      db?.close();
    } catch {
      /* closed */
    }
    db = undefined;
  };
}
