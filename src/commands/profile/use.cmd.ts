// The declaration of what ./use.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, verb } from '../define.js';

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
});
