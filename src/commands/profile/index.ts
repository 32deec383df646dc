// `bookdist profile add|list|show|use|remove`: stored profiles (conf) in the config directory.
import type { Command } from 'commander';
import { action, examples } from '../define.js';

export function registerProfile(program: Command): void {
  const group = program
    .command('profile')
    .summary('manage stored profiles: service URL, username and credentials')
    .description(
      'Profiles hold a base URL, a username and credentials (an RSA key, a shared key and/or an ' +
        'access-control token). They live in $BOOKDIST_CONFIG_DIR, else $XDG_CONFIG_HOME/bookdist, else ' +
        '~/.config/bookdist (config.json and keys/, files 0600 in a 0700 directory).\n\nSettings resolve as flag > environment > profile > default; ' +
        'without any profile, bookdist uses the built-in "sandbox" profile (a local sandbox service).',
    );

  examples(
    action(
      group
        .command('add')
        .summary('store a profile (prompts on a terminal, flags in scripts)')
        .description(
          'Stores a profile. On a terminal it asks for what the flags do not give; in scripts every ' +
            'value comes from flags, and secrets from stdin (never from the command line).\n\n' +
            'The base URL is given with the global option --base-url <url>.\n\n' +
            'A key given with --key-file is checked (an RSA private key, PKCS#1 or PKCS#8 PEM) and ' +
            'copied into the config directory (0600), so the profile keeps working if the file moves.',
        )
        .option('--name <name>', 'profile name (letters, digits, - and _)')
        .option('--store-url <url>', 'price comparison (store) host; defaults to the base URL')
        .option('--username <username>', 'the partner account\'s username (30 hex characters)')
        .option('--key-file <pem>', 'RSA private key (PEM) for CryptoAuth')
        .option('--shared-key-stdin', 'read the shared key (SharedKeyAuth) from stdin')
        .option('--token-stdin', 'read the access-control token from stdin')
        .option('--use', 'make it the current profile')
        .option('--force', 'replace a profile of the same name'),
      () => import('./add.js'),
    ),
    [
      'bookdist profile add --name prod --base-url https://api.example.com --username 0d72df20f23558620646fb3ea030f5 --key-file ./partner.pem --use',
      'printf %s "$SHARED_KEY" | bookdist profile add --name ci --base-url https://api.example.com --username 0d72df20f23558620646fb3ea030f5 --shared-key-stdin',
      'printf %s "$ACCESS_TOKEN" | bookdist profile add --name ops --base-url https://api.example.com --token-stdin',
    ],
  );
  examples(
    action(group.command('list')
        .alias('ls')
        .summary('list stored profiles; * marks the current one')
        .description(
          'Lists the stored profiles with their base URL, username and kind of credentials. The current ' +
            'profile is marked with *; with none stored, the built-in sandbox profile is in use.',
        ), () => import('./list.js')),
    ['bookdist profile list', 'bookdist profile list --json'],
  );
  examples(
    action(
      group
        .command('show')
        .summary('show each resolved setting and where it came from (secrets redacted)')
        .description(
          'Resolves the settings a command would use (flag > environment > profile > default) and prints ' +
            'each with its source. Keys, shared keys and tokens are never printed, only whether they are set.',
        )
        .argument('[name]', 'profile to show (default: the one in use)'),
      () => import('./show.js'),
    ),
    ['bookdist profile show', 'bookdist profile show prod --json', 'BOOKDIST_BASE_URL=http://localhost:8080 bookdist profile show'],
  );
  examples(
    action(
      group
        .command('use')
        .summary('make a profile the current one ("sandbox" for the built-in sandbox)')
        .description('Sets the profile that commands use when neither --profile nor BOOKDIST_PROFILE names one.')
        .argument('<name>', 'profile name'),
      () => import('./use.js'),
    ),
    ['bookdist profile use prod', 'bookdist profile use sandbox'],
  );
  examples(
    action(
      group
        .command('remove')
        .alias('rm')
        .summary('delete a profile and its copied key')
        .description(
          'Deletes the stored profile and the copy of its key in the config directory. The original key ' +
            'file you added it from is left alone.',
        )
        .argument('<name>', 'profile name'),
      () => import('./remove.js'),
    ),
    ['bookdist profile remove old-prod', 'bookdist profile rm staging'],
  );
}
