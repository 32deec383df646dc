// `bookdist sandbox catalogue load --url`: a catalogue file loaded by a running sandbox, sent to
// it in parts of at most 1 MiB, in order:
//
//   POST /_sandbox/catalogue/loads              {"format", "publisher"?, "strict"?} -> {"load": id}
//   POST /_sandbox/catalogue/loads/<id>/part    the next bytes of the file (application/octet-stream)
//                                                -> {"records": read so far}, once the loader has read them
//   POST /_sandbox/catalogue/loads/<id>/end     {} -> the load's summary (as `--db` gives it)
//   POST /_sandbox/catalogue/loads/<id>/cancel  {} -> {"rolled_back": true}, once it is (Ctrl-C)
//
// Parts rather than one long request: a load of a large feed takes longer than the server lets
// one request's body take (its request timeout), and every part is answered only once it is
// loaded, so the file is never held whole, by either side. The load runs on a connection of its
// own to the database, in one transaction, as `--db` does; the server keeps answering reads
// meanwhile (its writes wait briefly, then get a 503 to retry). One load at a time; a load that its
// client cancels, or whose next part does not come within a minute, is rolled back.
import { randomBytes } from 'node:crypto';
import { Store } from '../db/store.js';
import { HttpError } from '../errors.js';

/** What a load route answers (the control route wraps it in the envelope). */
type LoadAnswer = Record<string, unknown>;

interface RemoteLoad {
  id: string;
  /** Parts waiting for the loader, each with the callback that answers its request. */
  parts: Array<{ bytes: Buffer; taken: () => void }>;
  /** Wakes the loader when a part or the end arrives. */
  wake?: () => void;
  ended: boolean;
  /** The part the loader is reading now. */
  current?: { taken: () => void };
  /** The load's outcome: a summary, or the error that stopped it. */
  outcome: Promise<LoadAnswer>;
  failed?: unknown;
  records: number;
  timer: NodeJS.Timeout;
  /** Roll the load back (its loader stops before its next part) for this reason. */
  abandon(reason: string): void;
}

/** How long a load waits for its next part before it is rolled back. */
const IDLE_MS = 60_000;

/** The busy timeout of the serving connection while a load holds the write lock (ms). */
const SERVING_BUSY_MS = 250;

const loads = new Map<Store, RemoteLoad>();

/** The timer that rolls a load back when no part comes for IDLE_MS (armed again at every part). */
function idleTimer(abandon: (reason: string) => void): NodeJS.Timeout {
  return setTimeout(
    () => abandon(`No part of the catalogue arrived for ${IDLE_MS / 1000} seconds: the load was rolled back.`),
    IDLE_MS,
  ).unref();
}

/** Start a load into the database `serving` serves. */
export async function startRemoteLoad(serving: Store, body: Record<string, unknown>): Promise<LoadAnswer> {
  const format = body.format;
  if (format !== 'onix' && format !== 'csv') throw new HttpError(400, 'Field "format" must be "onix" or "csv".');
  const publisher = typeof body.publisher === 'string' ? body.publisher.trim() : undefined;
  if (body.publisher !== undefined && (!publisher || publisher.length > 200))
    throw new HttpError(400, 'Field "publisher" must name a publisher (1 to 200 characters).');
  if (serving.path === ':memory:') {
    throw new HttpError(
      409,
      'This sandbox serves an in-memory database (--db :memory:), which only its own connection can write: ' +
        'to load a catalogue over --url, serve a database file (bookdist sandbox serve --db FILE).',
    );
  }
  // Imported before the check: two loads started at once must not both pass it while it loads.
  const { loadCatalogueStream, CatalogueFileError, StrictRefusal } = await import('../catalogue/index.js');
  if (loads.has(serving)) {
    throw new HttpError(
      409,
      `A catalogue load is already running on this sandbox; wait for it to end (one whose client went away is rolled back ${IDLE_MS / 1000} seconds after its last part).`,
    );
  }
  const conn = new Store(serving.path);
  const load = newLoad();
  loads.set(serving, load);
  serving.exec(`PRAGMA busy_timeout = ${SERVING_BUSY_MS}`);
  const done = () => {
    clearTimeout(load.timer);
    void conn.close();
    if (loads.get(serving) === load) loads.delete(serving);
    if (serving.db.isOpen) serving.exec('PRAGMA busy_timeout = 10000');
  };
  const options = { publisher, strict: body.strict === true, onRecord: (n: number) => (load.records = n) };
  load.outcome = loadCatalogueStream(conn, format, partsOf(load), options).then(
    (summary) => (done(), { ...summary }),
    (err: unknown) => {
      done();
      // What the client turns back into the answers `--db` gives: the summary of a --strict
      // refusal, the reason a file cannot be read and how many records were read before it.
      if (err instanceof StrictRefusal) err = new HttpError(422, err.message, { summary: err.summary });
      else if (err instanceof CatalogueFileError)
        err = new HttpError(400, err.message, { catalogue_error: true, records: load.records });
      load.failed = err;
      load.current?.taken();
      for (const p of load.parts.splice(0)) p.taken();
      throw err;
    },
  );
  load.outcome.catch(() => {
    /* answered by the part or end route that meets it */
  });
  return { load: load.id };
}

function newLoad(): RemoteLoad {
  const load: RemoteLoad = {
    id: randomBytes(12).toString('hex'),
    parts: [],
    ended: false,
    outcome: Promise.resolve({}),
    records: 0,
    timer: idleTimer((reason) => load.abandon(reason)),
    abandon(reason) {
      load.failed ??= new HttpError(408, reason);
      load.wake?.();
    },
  };
  return load;
}

/** The bytes of a load's parts as they arrive, for the loader. */
async function* partsOf(load: RemoteLoad): AsyncGenerator<Buffer> {
  for (;;) {
    const part = load.parts.shift();
    if (part) {
      load.current = part;
      yield part.bytes;
      load.current = undefined;
      part.taken();
      continue;
    }
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the load's own error, thrown again as it was
    if (load.failed) throw load.failed;
    if (load.ended) return;
    await new Promise<void>((resolve) => (load.wake = resolve));
    load.wake = undefined;
  }
}

function loadOf(serving: Store, id: string): RemoteLoad {
  const load = loads.get(serving);
  if (!load || load.id !== id)
    throw new HttpError(
      404,
      `No catalogue load ${id.slice(0, 40)} is running on this sandbox (it ended, failed or was rolled back).`,
    );
  return load;
}

/** The next part of a load's file: answered once the loader has read it. */
export async function loadPart(serving: Store, id: string, bytes: Buffer): Promise<LoadAnswer> {
  const load = loadOf(serving, id);
  if (load.ended) throw new HttpError(409, 'This load has ended: no more parts.');
  clearTimeout(load.timer);
  await new Promise<void>((taken) => {
    load.parts.push({ bytes, taken });
    load.wake?.();
  });
  if (load.failed) await load.outcome;
  load.timer = idleTimer((reason) => load.abandon(reason));
  return { records: load.records };
}

/** A load its client stopped (Ctrl-C before the end): rolled back now, answered once it is. */
export async function cancelLoad(serving: Store, id: string): Promise<LoadAnswer> {
  const load = loadOf(serving, id);
  if (load.ended) throw new HttpError(409, 'This load has ended: it is committed whole or not at all.');
  clearTimeout(load.timer);
  load.abandon('The load was cancelled by its client: it was rolled back.');
  await load.outcome.catch(() => undefined);
  return { rolled_back: true };
}

/** The end of a load's file: its summary once it is committed (or the error that stopped it). */
export async function endLoad(serving: Store, id: string): Promise<LoadAnswer> {
  const load = loadOf(serving, id);
  load.ended = true;
  clearTimeout(load.timer);
  load.wake?.();
  return load.outcome;
}
