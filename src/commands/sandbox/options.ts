// Options and arguments that several of `sandbox`'s declarations share.
import { option } from '../define.js';

export const DB_HELP = 'SQLite database of the sandbox (default: sandbox.db in the data directory, $BOOKDIST_DATA_DIR)';
export const DB_OPTION = option('--db <path>', DB_HELP);
export const URL_OPTION = option(
  '--url <url>',
  'drive a running sandbox over HTTP (/_sandbox/ routes) instead of opening its database; the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db',
);
export const WORKSPACE_LIMITS =
  "A workspace made from a snapshot shares the snapshot's catalogue (books, prices, publishers, imports) read-only with the other " +
  "workspaces of that snapshot (the snapshot's file, linked once into <db>.workspaces/.bases/): its own file holds the rest " +
  'and the catalogue rows it changes or adds, so it grows with what it writes, not with the catalogue. ' +
  'A workspace cannot delete catalogue rows, and the uniqueness of a new ISBN or SKU is checked against its own books only.';
