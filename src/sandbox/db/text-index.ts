// The text indexes' upkeep: made (again) when the schema is, with this version's tokenizer, and
// kept merged while a sandbox serves. The indexes themselves are in schema.ts (FTS).
import type { Connection } from './connection.js';
import { FTS, FTS_TABLES, FTS_TOKENIZE } from './schema.js';
import type { Turn } from './turn.js';

/**
 * Create the text indexes (idempotent; inside a transaction). One made by an earlier version with
 * another tokenizer is made again, and one added to a database that already has rows is filled.
 */
export function createTextIndexes(conn: Connection): void {
  for (const t of FTS_TABLES) if (conn.hasTable(t) && !madeWithThisTokenizer(conn, t)) conn.db.exec(`DROP TABLE ${t}`);
  const missing = FTS_TABLES.filter((t) => !conn.hasTable(t));
  conn.db.exec(FTS);
  for (const t of missing) conn.db.exec(`INSERT INTO ${t}(${t}) VALUES ('rebuild')`);
}

/** True when every text index was made with this version's tokenizer. */
export function textIndexesCurrent(conn: Connection): boolean {
  return FTS_TABLES.every((t) => madeWithThisTokenizer(conn, t));
}

/** Was this text index made with this version's tokenizer? */
function madeWithThisTokenizer(conn: Connection, table: string): boolean {
  const sql = conn.get(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, table)?.sql;
  return typeof sql === 'string' && sql.includes(`'${FTS_TOKENIZE}'`);
}

/**
 * One step of merging each trigram text index that is in more than one segment towards one;
 * true while some index has more to merge. Rows inserted in bulk (a large seed, rows added by
 * another connection, as the bench's 50,000 books are) leave an index in several segments,
 * and a search then probes every segment for each trigram of each word, so each segment more
 * slows every word search. FTS5's own merging runs only as more rows are
 * written, and the sandbox never writes books or imports after seeding, so it would never
 * come. A step writes about `pages` pages ('merge' with a negative count: every level, down to
 * one segment), so the loop is never held for long, where one 'optimize' would hold it for
 * the whole merge.
 */
export function tidyTextIndexes(turn: Turn, pages = 128): boolean {
  let more = false;
  for (const t of FTS_TABLES) {
    const before = textIndexStructure(turn, t);
    if ((segmentCount(before) ?? 0) <= 1) continue;
    turn.tx(() => turn.run(`INSERT INTO ${t}(${t}, rank) VALUES ('merge', ?)`, -pages));
    const after = textIndexStructure(turn, t);
    // Unchanged: nothing left that FTS5 would merge (or it cannot be read); stop.
    if ((segmentCount(after) ?? 0) > 1 && !sameBytes(before, after)) more = true;
  }
  return more;
}

/**
 * Keep the text indexes merged while serving (`tidyTextIndexes`, a step at a time with the loop
 * free in between): a step now, and the returned function (called when another connection's
 * commits are seen; only those can add books or imports) steps again `delayMs` after they stop.
 */
export function keepTextIndexesMerged(turn: Turn, delayMs: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  const step = () => {
    timer = undefined;
    if (!turn.db.isOpen) return;
    let more = false;
    try {
      more = tidyTextIndexes(turn);
    } catch {
      /* busy: the next commit from elsewhere tries again */
    }
    if (more) (timer = setTimeout(step, 10)).unref();
  };
  step();
  return () => {
    if (timer) clearTimeout(timer);
    (timer = setTimeout(step, delayMs)).unref();
  };
}

/** An FTS5 index's structure record (row 10 of `<table>_data`), undefined when it has none. */
function textIndexStructure(conn: Connection, table: string): Uint8Array | undefined {
  const block = conn.get(`SELECT block FROM ${table}_data WHERE id = 10`)?.block;
  return block instanceof Uint8Array ? block : undefined;
}

/**
 * The number of segments a structure record holds (undefined when unknown): a 4-byte cookie,
 * an optional 4-byte version marker FF 00 00 01, then varints for the number of levels and of
 * segments.
 */
function segmentCount(block: Uint8Array | undefined): number | undefined {
  if (!block || block.length < 6) return undefined;
  let i = block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1 ? 8 : 4;
  const varint = (): number | undefined => {
    let v = 0;
    for (let k = 0; k < 5 && i < block.length; k++) {
      const c = block[i++];
      v = v * 128 + (c & 0x7f);
      if (!(c & 0x80)) return v;
    }
    return undefined;
  };
  return varint() === undefined ? undefined : varint();
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return !!a && !!b && a.length === b.length && a.every((x, i) => x === b[i]);
}
