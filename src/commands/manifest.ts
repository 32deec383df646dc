// The one command manifest: every command group in the order help lists it, the top-level words
// each one defines with their summaries, and the bulk entry points the root help lists. Plain
// data (no commander, no group is loaded), so that `bookdist --help` renders from it alone.
// Derived from it: the full tree (src/program.ts registers the groups in this order), the lazy
// tree (src/root.ts routes a top-level word to its group's loader), the root help's listing
// (src/root-help.ts), and through the full tree the completions, docs/commands.md and the man page.
// Each group's definitions take their top-level summaries from here (summaryOf), so no summary is
// written twice; test/foundation/lazy-tree.test.ts checks the terms against the built tree.

/** The command groups, one folder of src/commands/ each. */
export type GroupId = 'general' | 'profile' | 'sandbox' | 'book' | 'user' | 'order' | 'codes' | 'import' | 'access' | 'offers' | 'completion' | 'help';

/** A top-level command: its word, its term in the root help (with its arguments), its summary. */
type TopCommand = readonly [name: string, term: string, summary: string];

export interface ManifestGroup {
  id: GroupId;
  commands: readonly TopCommand[];
  /** Help and completion walk the whole tree: a run of theirs builds it all, never this group alone. */
  wholeTree?: true;
}

export const MANIFEST: readonly ManifestGroup[] = [
  {
    id: 'general',
    commands: [
      ['status', 'status', 'show the service index: API versions and host'],
      ['whoami', 'whoami', 'show the calling account: profile and scopes'],
      ['describe', 'describe [options]', 'list every endpoint of the service with its fields'],
      ['api', 'api [options] <method> <path>', 'send a raw signed request, like `gh api`'],
    ],
  },
  { id: 'profile', commands: [['profile', 'profile', 'manage stored profiles: service URL, username and credentials']] },
  { id: 'sandbox', commands: [['sandbox', 'sandbox', 'run the local sandbox service and its testing controls']] },
  { id: 'book', commands: [['book', 'book', 'look up, search and list books; reader URLs; processing']] },
  { id: 'user', commands: [['user', 'user', 'create, invite and look up users; their orders and purchases']] },
  { id: 'order', commands: [['order', 'order', 'report orders, refund them, create free orders']] },
  { id: 'codes', commands: [['codes', 'codes', 'generate redemption codes and read their statistics']] },
  { id: 'import', commands: [['import', 'import', 'search imported titles that are not for sale yet']] },
  { id: 'access', commands: [['access', 'access', "grant or revoke a user's access to a book"]] },
  { id: 'offers', commands: [['offers', 'offers', 'price offers for an ISBN and pre-filled cart links']] },
  { id: 'completion', commands: [['completion', 'completion <shell>', 'print a shell completion script (bash, zsh or fish)']], wholeTree: true },
  // Last: `help` closes the list of commands, as commander's own help command does.
  { id: 'help', commands: [['help', 'help [command...]', 'show the help of a command, e.g. `bookdist help book get`']], wholeTree: true },
];

/** The bulk entry points the root help lists: [command and flag, what it does]. */
export const BULK_LISTING: ReadonlyArray<readonly [term: string, description: string]> = [
  ['book get --isbn-file', 'look up every ISBN in a file'],
  ['book get --hash-id-file', 'look up every hash id in a file'],
  ['book process --from-file', 'read hash ids from FILE, one per line'],
  ['user create --from-csv', 'create one user per row of a CSV roster'],
  ['order create --from-csv', 'report one order per order number of a CSV file'],
  ['order create --from-ndjson', 'report one order per order number of an NDJSON file'],
  ['order free --from-csv', 'one free order per row of a CSV file'],
  ['codes generate', 'generate redemption codes for a book, any number, resumably'],
  ['access allow --from-csv', 'grant one per row of a CSV file'],
  ['access revoke --from-csv', 'revoke one per row of a CSV file'],
];

/** The summary of a top-level command, for its group's definition. */
export function summaryOf(name: string): string {
  for (const g of MANIFEST) for (const [n, , summary] of g.commands) if (n === name) return summary;
  throw new Error(`no top-level command "${name}" in src/commands/manifest.ts`);
}

/** Each top-level word that routes to one group (not the whole-tree ones), and that group. */
export function groupOfWord(): ReadonlyMap<string, GroupId> {
  return new Map(MANIFEST.filter((g) => !g.wholeTree).flatMap((g) => g.commands.map(([name]) => [name, g.id] as const)));
}
