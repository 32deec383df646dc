// The declarations of what ./snapshot.ts runs (snapshotSave, snapshotLoad, snapshotList, snapshotRm,
// snapshotDiff): data only, so that the command tree loads none of the run; ./index.ts ties each to
// its run.
import { argument, verb } from '../define.js';
import { DB_OPTION, URL_OPTION } from './options.js';

const SNAPSHOT_NAME = argument('<name>', 'the snapshot name (letters, digits, ., _ and -)');
export const snapshotSave = verb({
  name: 'save',
  summary: "save the sandbox database's current state as a named snapshot",
  description:
    "Copies the database with SQLite's online backup into <db>.snapshots/<name>.db (replacing a snapshot of that name): a consistent " +
    'state, also while a sandbox serves the file. A snapshot belongs to its database (it holds its keys and secrets).',
  args: [SNAPSHOT_NAME],
  options: [DB_OPTION, URL_OPTION],
  examples: [
    'bookdist sandbox snapshot save baseline',
    'bookdist sandbox snapshot save baseline --url http://127.0.0.1:8710',
  ],
});
export const snapshotLoad = verb({
  name: 'load',
  summary: 'put the sandbox database back in the state of a snapshot',
  description:
    'Copies the snapshot back into the database in one write transaction: the clients of a running sandbox see the old state or the ' +
    'new one, never a mix. With --db and nothing else on the file (no sandbox serving it), the file is replaced by a copy of the ' +
    'snapshot instead, which is faster. Everything goes back, the request journal and the clock included. Exit 3 when there is no such snapshot.',
  args: [SNAPSHOT_NAME],
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox snapshot save baseline', 'bookdist sandbox snapshot load baseline'],
});
export const snapshotList = verb({
  name: 'list',
  summary: 'list the snapshots of the sandbox database',
  description: 'Lists the snapshots saved for this database: name, time saved, size.',
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox snapshot save nightly', 'bookdist sandbox snapshot list --json'],
});
export const snapshotRm = verb({
  name: 'rm',
  summary: 'delete a snapshot',
  description: 'Deletes the snapshot file. Exit 3 when there is no such snapshot.',
  args: [SNAPSHOT_NAME],
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox snapshot save scratch', 'bookdist sandbox snapshot rm scratch'],
});
export const snapshotDiff = verb({
  name: 'diff',
  summary: 'what changed between two snapshots (or a snapshot and now), table by table',
  description:
    'For each table, the rows added, removed and changed between snapshot A and snapshot B (or the database now when B is left out), ' +
    'with up to 20 row ids of each. Text indexes are left out (they follow their tables).',
  args: [argument('<a>', 'the earlier snapshot'), argument('[b]', 'the later snapshot (default: the database now)')],
  options: [DB_OPTION, URL_OPTION],
  examples: [
    'bookdist sandbox snapshot save before',
    'bookdist sandbox clock advance 1d',
    'bookdist sandbox snapshot diff before',
  ],
});
