// PLACEHOLDER (written by the commands engineer so the tree builds): the bulk engineer owns
// runLookup (`book get --isbn-file/--hash-id-file`) and replaces this file.
import type { Context } from '../context.js';
import { CliError } from '../errors.js';

export async function runLookup(_o: { kind: 'isbn' | 'hash_id'; file: string; check: boolean }, _ctx: Context): Promise<number | void> {
  throw new CliError('Bulk lookups are not implemented yet.');
}
