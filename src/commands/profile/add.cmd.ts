// The declaration of what ./add.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { option, verb } from '../define.js';

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
});
