// `bookdist sandbox credentials`: the seeded accounts of a sandbox database.
import type { Context } from '../../context.js';
import { kv } from '../render.js';
import { emit, recOf } from '../../output/index.js';
import type { VerbInput } from '../define.js';
import type { credentials } from './credentials.cmd.js';
import { openStore } from './parts/common.js';
import { cellText as t } from '../../output/format.js';

export function parse({ opts }: VerbInput<typeof credentials>) {
  return { db: opts.db };
}

export async function run(o: { db?: string }, ctx: Context): Promise<void> {
  const store = await openStore(ctx, o.db);
  const { credentials } = await import('../../sandbox/control.js');
  const c = credentials(store);
  const nodePath = await import('node:path');
  // Absolute paths, whatever --db was (`--db ./ci.db`): a script may use them from any directory.
  const acct = (a: typeof c.partner) => ({
    username: a.username,
    key_file: nodePath.resolve(ctx.io.cwd, a.key_file),
    public_key: a.public_key,
    shared_key: a.shared_key,
  });
  // `sandbox serve --tls` keeps its CA beside the database: the file HTTPS clients trust.
  const { tlsCaPath } = await import('../../sandbox/http/tls.js');
  const { existsSync } = await import('node:fs');
  const ca = tlsCaPath(store.path);
  const tls_ca_file = ca && existsSync(nodePath.resolve(ctx.io.cwd, ca)) ? nodePath.resolve(ctx.io.cwd, ca) : null;
  const data = {
    partner: acct(c.partner),
    limited: acct(c.limited),
    operator_token: c.operator_token,
    control_secret: c.control_secret,
    tls_ca_file,
  };
  await emit(ctx, data, {
    card: (d, s) =>
      [
        s.bold('Partner (every scope, publishers Harbor Lane Press and Northwind Academic)'),
        // kv(): paths and long notes wrap within the terminal (80 columns included), never cut.
        kv(
          s,
          [
            ['username', recOf(d.partner).username],
            ['key_file', recOf(d.partner).key_file],
            ['shared_key', recOf(d.partner).shared_key],
          ],
          '  ',
        ),
        s.bold('Limited (book_metadata, invite_user; publisher Copperleaf Books)'),
        kv(
          s,
          [
            ['username', recOf(d.limited).username],
            ['key_file', recOf(d.limited).key_file],
            ['shared_key', recOf(d.limited).shared_key],
          ],
          '  ',
        ),
        kv(s, [
          ['Operator token', d.operator_token],
          [
            'Control secret',
            `${t(d.control_secret)}  (header X-Sandbox-Secret of the /_sandbox/ routes; $BOOKDIST_SANDBOX_SECRET for --url)`,
          ],
          [
            'TLS CA file',
            `${t(d.tls_ca_file ?? '(none yet: `bookdist sandbox serve --tls` makes it)')}  (trust it: --ca-file or BOOKDIST_CA_FILE)`,
          ],
        ]),
        s.dim('Public keys: --json. These are secrets of a local test service only.'),
      ].join('\n'),
  });
}
