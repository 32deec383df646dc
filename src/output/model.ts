// The output model: what each command prints, declared beside its definition in the command tree
// (cheap: no imports) and read by the output layer when the command runs. One rule for all:
//
//   record   one resource of the response (a book, a user, an order...), found at `at`
//   rows     a list of records (books of a page, refunds, codes...), the array at `at`
//   message  only an outcome message (profile use, sandbox reset...): no records
//   text     free text that is not data (a completion script, a URL for `sandbox serve`)
//
// `--fields` paths are relative to the record, in every format. `--json` prints the whole
// response without --fields, and the records (one object, or an array of rows) with it.
// `--query` runs a JMESPath expression over exactly what --json would print.
import type { Command } from 'commander';

type OutputKind = 'record' | 'rows' | 'message' | 'text';

export interface OutputSpec {
  kind: OutputKind;
  /** What one record is, for messages and docs: `book`, `user`, `order`, `code`... */
  record?: string;
  /**
   * Where the record (or the rows array) is in the response: a dotted path, or candidate paths
   * tried in order. Omitted: the response itself, less the envelope (code, success, error,
   * test_mode, message) when it is an object. `.`: the whole response, envelope included.
   */
  at?: string | string[];
  /**
   * The one value the command is for (a key of the record, e.g. `viewer_url`): printed alone on
   * one line when stdout is not a terminal and no -o, --json, --fields or --query is given, so
   * that `URL=$(bookdist book viewer ...)` holds the URL. Explicit formats print the record.
   */
  value?: string;
  /** The format when neither -o nor --json is given (default: a table on a terminal, TSV piped). */
  defaultFormat?: 'json';
  /**
   * A bulk job (or a --from-csv/--*-file mode): what one of its result rows is. The rows are
   * printed as they settle, through createRowWriter.
   */
  bulk?: string;
  /**
   * A `text` command that follows a stream with no end (`sandbox requests tail`): lines for
   * people, or with --json, -o json or -o ndjson one JSON object per `record` on a line of its
   * own, written as each comes (NDJSON: a stream stopped by Ctrl-C has no end to close an array
   * at). Other formats and --query do not apply.
   */
  ndjson?: boolean;
}

/**
 * What every command prints, by its path in the tree. One table, so that the rule can be read
 * (and checked by test/output/model.test.ts, which walks the tree) in one place.
 */
export const OUTPUT: Record<string, OutputSpec> = {
  // general
  status: { kind: 'record', record: 'service index', at: 'api' },
  whoami: { kind: 'record', record: 'account' },
  describe: { kind: 'rows', record: 'endpoint', at: 'endpoints' },
  api: { kind: 'record', record: 'response', at: '.', defaultFormat: 'json' },
  // profiles (local)
  'profile add': { kind: 'record', record: 'profile' },
  'profile list': { kind: 'rows', record: 'profile' },
  'profile show': { kind: 'record', record: 'profile' },
  // The whole result: its test_mode is the service's answer, not an envelope to strip.
  'profile check': { kind: 'record', record: 'profile check', at: '.' },
  'profile use': { kind: 'message' },
  'profile remove': { kind: 'message' },
  // sandbox
  'sandbox serve': { kind: 'text' },
  'sandbox credentials': { kind: 'record', record: 'credentials' },
  'sandbox reset': { kind: 'message' },
  'sandbox catalogue load': { kind: 'message', record: 'catalogue load summary' },
  'sandbox clock advance': { kind: 'record', record: 'clock' },
  'sandbox clock show': { kind: 'record', record: 'clock' },
  'sandbox usage': { kind: 'record', record: 'usage' },
  'sandbox redeem': { kind: 'record', record: 'redemption' },
  'sandbox outbox': { kind: 'rows', record: 'email', at: 'emails' },
  'sandbox openapi': { kind: 'record', record: 'OpenAPI document', at: '.', defaultFormat: 'json' },
  'sandbox requests list': { kind: 'rows', record: 'request', at: 'requests' },
  'sandbox requests show': { kind: 'record', record: 'request', at: 'request' },
  'sandbox requests tail': { kind: 'text', record: 'request', ndjson: true },
  'sandbox requests verify': { kind: 'text' },
  'sandbox requests clear': { kind: 'message' },
  'sandbox fixtures apply': { kind: 'rows', record: 'step', at: 'steps' },
  'sandbox snapshot save': { kind: 'message', record: 'snapshot' },
  'sandbox snapshot load': { kind: 'message', record: 'snapshot' },
  'sandbox snapshot rm': { kind: 'message' },
  'sandbox snapshot list': { kind: 'rows', record: 'snapshot', at: 'snapshots' },
  'sandbox snapshot diff': { kind: 'rows', record: 'table difference', at: 'tables' },
  'sandbox workspace create': { kind: 'record', record: 'workspace', at: 'workspace' },
  'sandbox workspace list': { kind: 'rows', record: 'workspace', at: 'workspaces' },
  'sandbox workspace rm': { kind: 'message' },
  // books
  'book get': { kind: 'record', record: 'book', at: 'book', bulk: 'lookup result' },
  'book pricing': {
    kind: 'rows',
    record: 'pricing entry',
    at: ['digital_pricing', 'pricing', 'book.digital_pricing', 'results'],
  },
  'book search': { kind: 'rows', record: 'book', at: 'results' },
  'book list': { kind: 'rows', record: 'book', at: 'results' },
  'book viewer': { kind: 'record', record: 'viewer', value: 'viewer_url' },
  'book process': { kind: 'rows', record: 'processing result', at: 'books', bulk: 'processing result' },
  // users
  'user invite': { kind: 'record', record: 'user' },
  'user create': { kind: 'record', record: 'user', bulk: 'result row' },
  'user get': { kind: 'record', record: 'user', at: 'user' },
  'user orders': { kind: 'rows', record: 'order', at: 'results' },
  'user purchase': { kind: 'record', record: 'purchase' },
  // orders
  'order create': { kind: 'record', record: 'order', at: 'order', bulk: 'result row' },
  'order refund': { kind: 'rows', record: 'refund', at: 'refunds' },
  'order free': { kind: 'record', record: 'order', at: 'order', bulk: 'result row' },
  // codes
  'codes generate': { kind: 'rows', record: 'code', bulk: 'code' },
  'codes summary': { kind: 'record', record: 'code summary' },
  // imported titles
  'import search': { kind: 'rows', record: 'imported title', at: 'results' },
  // access control
  'access allow': { kind: 'message', bulk: 'access result' },
  'access revoke': { kind: 'message', bulk: 'access result' },
  // --dry-run prints the plan's changes; a run prints one result per change.
  'access sync': { kind: 'rows', record: 'planned change', bulk: 'sync result' },
  // price comparison
  'offers get': { kind: 'rows', record: 'offer', at: 'Offers' },
  'offers checkout': { kind: 'record', record: 'checkout', value: 'url' },
  // the ledger (local)
  'ledger list': { kind: 'rows', record: 'write' },
  'ledger show': { kind: 'record', record: 'write' },
  'ledger verify': { kind: 'record', record: 'ledger check' },
  'ledger export': { kind: 'text' },
  'ledger prune': { kind: 'message' },
  'ledger reconcile': { kind: 'rows', record: 'settlement' },
  // shell and docs
  'completion bash': { kind: 'text' },
  'completion zsh': { kind: 'text' },
  'completion fish': { kind: 'text' },
  'completion refresh': { kind: 'message' },
  __reference: { kind: 'text' },
  help: { kind: 'text' },
};

/** The command's path without the program name: `book get`, `sandbox clock show`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function outputSpecOf(cmd: Command): OutputSpec | undefined {
  return OUTPUT[commandPath(cmd)];
}

/** Keys of the service's envelope (interface.md 2.1): never part of a record. */
export const ENVELOPE_KEYS = ['code', 'success', 'error', 'test_mode', 'message'] as const;
