// `bookdist profile add|list|show|use|remove|check`: stored profiles (conf) in the config directory.
// Declarations only; each verb's code loads when it runs.
import { argument, group, option, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

export const add = verb({
  name: 'add',
  summary: 'store a profile (prompts on a terminal, flags in scripts)',
  description:
    'Stores a profile. On a terminal it asks for what the flags do not give; in scripts every ' +
    'value comes from flags, and secrets from stdin (never from the command line).\n\n' +
    'The base URL is given with the global option --base-url <url>.\n\n' +
    'A key given with --key-file is checked (an RSA private key, PKCS#1 or PKCS#8 PEM) and ' +
    'copied into the config directory (0600), so the profile keeps working if the file moves.\n\n' +
    "Before anything is stored, the username's form is checked (30 lowercase hex characters) and the " +
    'credentials are verified with one signed GET /profile/ (what `bookdist whoami` sends): a refusal is ' +
    'exit 4 and nothing is saved. --no-verify skips the request, e.g. for a service not reachable yet. ' +
    'A profile with only an access-control token cannot be verified and is stored as given.',
  options: [
    option('--name <name>', 'profile name (letters, digits, - and _)'),
    option('--store-url <url>', 'price comparison (store) host; defaults to the base URL'),
    option('--username <account>', "the partner account's username (30 hex characters)"),
    option('--key-file <pem>', 'RSA private key (PEM) for CryptoAuth'),
    option('--shared-key-stdin', 'read the shared key (SharedKeyAuth) from stdin'),
    option('--token-stdin', 'read the access-control token from stdin'),
    option(
      '--idempotency-keys',
      'the service honours Idempotency-Key: writes carrying one are retried after a lost answer (off unless the service promises it)',
    ),
    option('--use', 'make it the current profile'),
    option('--force', 'replace a profile of the same name'),
    option('--no-verify', 'store it without checking the credentials against the service'),
  ],
  examples: [
    'bookdist profile add --name prod --base-url https://api.example.com --username b73395ba21c439433901092a0b7ef0 --key-file ./partner.pem --use',
    'printf %s "$SHARED_KEY" | bookdist profile add --name ci --base-url https://api.example.com --username b73395ba21c439433901092a0b7ef0 --shared-key-stdin',
    'printf %s "$ACCESS_TOKEN" | bookdist profile add --name ops --base-url https://api.example.com --token-stdin',
  ],
  load: () => import('./add.js'),
});

const list = verb({
  name: 'list',
  alias: 'ls',
  summary: 'list stored profiles; * marks the current one',
  description:
    'Lists the stored profiles with their base URL, username and kind of credentials. The current ' +
    'profile is marked with *; with none stored, the built-in sandbox profile is in use.',
  examples: ['bookdist profile list', 'bookdist profile list --json'],
  load: () => import('./list.js'),
});

export const show = verb({
  name: 'show',
  summary: 'show each resolved setting and where it came from (secrets redacted)',
  description:
    'Resolves the settings a command would use (flag > environment > profile > default) and prints ' +
    'each with its source. Keys, shared keys and tokens are never printed, only whether they are set.',
  args: [argument('[name]', 'profile to show (default: the one in use)', { completes: 'profile' })],
  examples: [
    'bookdist profile show',
    'bookdist profile show sandbox --json',
    'BOOKDIST_BASE_URL=http://localhost:8080 bookdist profile show',
  ],
  load: () => import('./show.js'),
});

export const use = verb({
  name: 'use',
  summary: 'make a profile the current one ("sandbox" for the built-in sandbox)',
  description: 'Sets the profile that commands use when neither --profile nor BOOKDIST_PROFILE names one.',
  args: [argument('<name>', 'profile name', { completes: 'profile' })],
  examples: [
    'bookdist profile add --name staging --base-url https://api.example.com --token-stdin < token.txt',
    'bookdist profile use staging',
    'bookdist profile use sandbox',
  ],
  load: () => import('./use.js'),
});

export const remove = verb({
  name: 'remove',
  alias: 'rm',
  summary: 'delete a profile and its copied key',
  description:
    'Deletes the stored profile and the copy of its key in the config directory. The original key ' +
    'file you added it from is left alone. Asks first on a terminal; in scripts it needs --yes.',
  args: [argument('<name>', 'profile name', { completes: 'stored-profile' })],
  examples: [
    'bookdist profile add --name old --base-url https://api.example.com --token-stdin < token.txt',
    'bookdist profile remove old --yes',
  ],
  load: () => import('./remove.js'),
});

export const check = verb({
  name: 'check',
  summary: "verify a profile's credentials and show its account, scopes and test mode",
  description:
    'Sends one signed GET /profile/ with the credentials of the profile (like `gh auth status`) and ' +
    'reports the account, its scopes and whether the service is in test mode. With NAME it checks the ' +
    'stored profile as stored; without, the settings the next command would use (flag > environment > ' +
    'profile > default). Refused credentials exit 4; an unknown profile exits 3.',
  args: [argument('[name]', 'profile to check (default: the one in use)', { completes: 'profile' })],
  examples: ['bookdist profile check', 'bookdist profile check sandbox --json'],
  load: () => import('./check.js'),
});

export const commands = [
  group({
    name: 'profile',
    summary: summaryOf('profile'),
    description:
      'Profiles hold a base URL, a username and credentials (an RSA key, a shared key and/or an ' +
      'access-control token). They live in $BOOKDIST_CONFIG_DIR, else $XDG_CONFIG_HOME/bookdist, else ' +
      '~/.config/bookdist (config.json and keys/, files 0600 in a 0700 directory).\n\nSettings resolve as flag > environment > profile > default; ' +
      'without any profile, bookdist uses the built-in "sandbox" profile (a local sandbox service).',
    commands: [add, list, show, use, remove, check],
  }),
];
