// The man page (man/bookdist.1), rendered in roff from the same command tree as the help and
// docs/commands.md: synopsis, description, global options, every command with its options and
// examples, exit status, environment and files. Deterministic: the date is PAGE_DATE, the version
// is passed in.
import type { Command, Option } from 'commander';
import { EXIT_CODE_HELP } from '../errors.js';
import { paragraphs } from '../commands/help/parts/layout.js';
import { commandName, documentedCommands, examplesOf } from './reference.js';

/** Escape text for roff: backslashes, hyphens of flags, and a leading dot or quote. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');
}

/**
 * Text of the command tree (written for help and Markdown) as roff: `code spans` become bold
 * (a command or flag to type), so no Markdown syntax reaches the rendered page.
 */
function prose(text: string): string {
  return roff(text).replace(/`([^`\n]+)`/g, '\\fB$1\\fR');
}

/** `--profile <name>` as bold flag names and an italic value. */
function term(flags: string): string {
  return flags
    .split(/(<[^>]+>|\[[^\]]+\])/)
    .map((part) => (!part ? '' : /^[<[]/.test(part) ? `\\fI${roff(part)}\\fR` : `\\fB${roff(part)}\\fR`))
    .join('');
}

function optionText(cmd: Command, o: Option): string {
  const notes: string[] = [];
  if (o.argChoices?.length) notes.push(`one of ${o.argChoices.join(', ')}`);
  if (o.defaultValue !== undefined && !o.negate) {
    notes.push(
      `default: ${o.defaultValueDescription ?? (typeof o.defaultValue === 'string' ? o.defaultValue : JSON.stringify(o.defaultValue))}`,
    );
  }
  const description = (o.description || '').replace(/\s+/g, ' ').trim();
  if (o.mandatory && !/\brequired\b/.test(description)) notes.push('required');
  return prose(description + (notes.length ? ` (${notes.join('; ')})` : ''));
}

function options(cmd: Command, list: readonly Option[]): string[] {
  const out: string[] = [];
  for (const o of list) out.push('.TP', term(cmd.createHelp().optionTerm(o)), optionText(cmd, o));
  return out;
}

/**
 * Every environment variable bookdist reads, in the order the page lists them (several names may
 * share one entry). test/docs/man.test.ts checks this against the variables the source reads.
 */
export const ENVIRONMENT: ReadonlyArray<readonly [names: readonly string[], text: string]> = [
  [['BOOKDIST_PROFILE'], 'the stored profile to use (as --profile).'],
  [['BOOKDIST_BASE_URL'], 'the service base URL (as --base-url).'],
  [['BOOKDIST_STORE_URL'], 'the price comparison (store) host.'],
  [
    ['BOOKDIST_USERNAME', 'BOOKDIST_KEY_FILE', 'BOOKDIST_SHARED_KEY', 'BOOKDIST_TOKEN'],
    'credentials without a stored profile (a script or CI job).',
  ],
  [['BOOKDIST_CA_FILE'], "a CA bundle (PEM) trusted besides Node's, e.g. a company's private CA (as --ca-file)."],
  [['BOOKDIST_RESOLVE'], 'host names pinned to addresses, HOST:PORT:ADDR separated by commas (as --resolve).'],
  [
    ['NODE_EXTRA_CA_CERTS'],
    "as Node reads it: more CA certificates (PEM) trusted besides Node's own, kept with --ca-file; profile check reports it.",
  ],
  [
    ['BOOKDIST_IDEMPOTENCY_KEYS'],
    '1: the service honours Idempotency-Key, so writes carry one and are retried like reads (as the profile setting).',
  ],
  [
    ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'],
    'the proxy for https and http requests, as curl reads them (a URL; user and password in it for a proxy that asks).',
  ],
  [
    ['NO_PROXY', 'no_proxy'],
    'hosts reached directly: names, domain suffixes, *, host:port, IP addresses and CIDR ranges. Loopback is never proxied.',
  ],
  [
    ['BOOKDIST_DEBUG_BODIES'],
    'full: --debug shows redemption codes and passwords in full (keys, tokens and signatures stay redacted).',
  ],
  [['BOOKDIST_CONFIG_DIR'], 'where profiles are stored (default: $XDG_CONFIG_HOME/bookdist, else ~/.config/bookdist).'],
  [
    ['BOOKDIST_DATA_DIR'],
    'where the sandbox keeps its database and keys (default: $XDG_DATA_HOME/bookdist, else ~/.local/share/bookdist).',
  ],
  [
    ['BOOKDIST_SANDBOX_SECRET'],
    'the control secret of a sandbox that the sandbox controls reach with --url (`bookdist sandbox credentials` prints it).',
  ],
  [
    ['BOOKDIST_CACHE'],
    'off: commands add nothing to the cache of ids for shell completion (as --no-cache); covers that cache only, not the code cache.',
  ],
  [
    ['BOOKDIST_NO_PROGRESS'],
    'set (to anything): no progress line on a terminal during bulk jobs; the summary still prints.',
  ],
  [
    ['BOOKDIST_ASCII'],
    '1: ASCII only on the terminal (no ellipsis or block characters), as with a locale that is not UTF-8; 0: UTF-8 whatever the locale says.',
  ],
  [['LC_ALL', 'LC_CTYPE', 'LANG'], 'the first one set decides whether the terminal gets UTF-8 or ASCII only.'],
  [['NO_COLOR'], 'no colour (as --no-color), unless --color always.'],
  [['FORCE_COLOR'], 'colour even when the output is not a terminal (as --color always).'],
  [['TERM'], 'dumb: no colour.'],
  [['COLUMNS'], 'the width of help and tables when the output is not a terminal.'],
  [['BROWSER'], 'the program that opens a URL for the commands that offer to open one (else open, xdg-open or start).'],
  [
    ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'HOME'],
    'the base directories of the defaults above, and of the cache ($XDG_CACHE_HOME/bookdist, else ~/.cache/bookdist: the code cache and the ids of shell completion).',
  ],
  [
    ['BOOKDIST_STATE_DIR'],
    'where the ledger of writes (ledger.ndjson) and rescued results (rescue/) are kept (default: $XDG_STATE_HOME/bookdist, else ~/.local/state/bookdist).',
  ],
  [['BOOKDIST_LEDGER'], 'off: record no write in the ledger (as --no-ledger, or a profile added with --no-ledger).'],
  [
    ['XDG_STATE_HOME'],
    'the base of the state directory without BOOKDIST_STATE_DIR: the ledger, and the results a bulk job could not write (a full disk, /dev/full) in $XDG_STATE_HOME/bookdist/rescue, else ~/.local/state/bookdist/rescue.',
  ],
  [
    ['GITHUB_STEP_SUMMARY'],
    'a file a bulk job appends a Markdown summary to (counts per status, the output file, the command that continues an unfinished job), as GitHub Actions sets it.',
  ],
  [['GITHUB_ACTIONS'], 'true: a bulk job that fails also prints an ::error:: annotation.'],
  [
    ['BOOKDIST_COMPILE_CACHE'],
    "off: start without the code cache of bookdist's code (slower, the same output); on by default.",
  ],
  [
    ['NODE_COMPILE_CACHE', 'NODE_DISABLE_COMPILE_CACHE'],
    "as Node reads them: a compile cache directory of your choice (Node's own, for every module; bookdist's code cache is then off), or none.",
  ],
  [
    ['NODE_DEBUG'],
    "bookdist (among Node's own names, comma-separated): say on stderr what the code cache did for each of bookdist's files (taken, refused and why, written).",
  ],
  [
    ['NODE_OPTIONS'],
    "as Node reads it; its V8 flags are part of the code cache's key (a run under other flags keeps entries of its own).",
  ],
];

/** The date of the release this page documents (.TH needs one); set with the version. */
const PAGE_DATE = '2026-11-25';

export function renderMan(program: Command, version: string): string {
  const help = program.createHelp();
  const out: string[] = [
    '.\\" Generated from the command tree by `npm run gen` (scripts/gen-docs.mjs); do not edit.',
    `.TH BOOKDIST 1 ${PAGE_DATE} "bookdist ${roff(version)}" "User Commands"`,
    '.SH NAME',
    `bookdist \\- ${roff(program.description().split('. ')[0].replace(/\.$/, ''))}`,
    '.SH SYNOPSIS',
    '.B bookdist',
    '[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]',
    '.SH DESCRIPTION',
  ];
  for (const p of paragraphs(program.description())) out.push(prose(p), '.PP');
  out.push(
    prose(
      '`bookdist help <command...>` shows the help of any command; docs/commands.md holds the same reference as Markdown.',
    ),
    '.SH GLOBAL OPTIONS',
    'Accepted by every command.',
    ...options(
      program,
      program.options.filter((o) => !o.hidden),
    ),
    '.SH COMMANDS',
  );
  for (const c of documentedCommands(program)) {
    out.push(`.SS "${roff(commandName(c))}"`);
    out.push('.B ' + roff(help.commandUsage(c)).replace(/^bookdist /, 'bookdist '), '.PP');
    const ps = paragraphs(c.description() || c.summary());
    ps.forEach((p, i) => out.push(prose(p), ...(i < ps.length - 1 ? ['.PP'] : [])));
    const args = c.registeredArguments;
    for (const a of args)
      out.push('.TP', `\\fI${roff(help.argumentTerm(a))}\\fR`, prose(help.argumentDescription(a).replace(/\s+/g, ' ')));
    out.push(
      ...options(
        c,
        c.options.filter((o) => !o.hidden),
      ),
    );
    const ex = examplesOf(c);
    if (ex.length) {
      out.push('.PP', 'Examples:', '.PP', '.RS 4', '.nf');
      for (const e of ex) out.push(roff(`$ ${e}`));
      out.push('.fi', '.RE');
    }
  }
  out.push('.SH EXIT STATUS');
  for (const [code, text] of EXIT_CODE_HELP) out.push('.TP', `\\fB${code}\\fR`, prose(text));
  out.push('.SH ENVIRONMENT');
  for (const [names, text] of ENVIRONMENT)
    out.push('.TP', names.map((n) => `\\fB${roff(n)}\\fR`).join(', '), prose(text));
  out.push(
    '.SH FILES',
    '.TP',
    '\\fI$BOOKDIST_CONFIG_DIR/config.json\\fR',
    roff('stored profiles (0600, in a 0700 directory) and the copies of their keys.'),
    '.TP',
    '\\fI$BOOKDIST_DATA_DIR/sandbox.db\\fR',
    roff(
      'the database of the local sandbox service (with its -wal and -shm files), and beside it the private keys of its accounts (sandbox-<role>-key.pem).',
    ),
    '.TP',
    '\\fI$BOOKDIST_STATE_DIR/ledger.ndjson\\fR',
    roff(
      'the ledger: a row before and a row after every write sent, hash-chained, never a secret (0600, in a 0700 directory); bookdist help ledger explains it.',
    ),
    '.TP',
    '\\fI$XDG_STATE_HOME/bookdist/rescue/\\fR',
    roff(
      'results of bulk jobs that could not be written (codes, passwords), one file per job (0600, in a 0700 directory); the job prints its path.',
    ),
    '.TP',
    '\\fI$XDG_CACHE_HOME/bookdist/compile-cache/\\fR',
    roff(
      "V8's code cache of bookdist's code (the functions your commands ran), one directory per bookdist and Node version (~/.cache/bookdist without XDG_CACHE_HOME; 0600 files in 0700 directories, never through a link); a damaged or stale cache is skipped, never used; safe to delete.",
    ),
    '.TP',
    '\\fI$XDG_CACHE_HOME/bookdist/ids/\\fR',
    roff(
      'the ids shell completion offers, per service and account (<scope>/<kind>.tsv: an id, a tab, what it stands for, one a line, newest last; profiles/<name>: the scope a profile last used); at most 10,000 ids of each kind, never a code, key, token or password (0600, in 0700 directories); safe to delete.',
    ),
    '.SH SEE ALSO',
    roff('bookdist help exit-codes; docs/commands.md; the README of the bookdist package.'),
  );
  return out.join('\n') + '\n';
}
