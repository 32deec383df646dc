// The declaration of what ./help.ts runs: data only; ./index.ts ties it to its run.
import { argument, verb } from '../define.js';
import { summaryOf } from '../manifest.js';

export const help = verb({
  name: 'help',
  summary: summaryOf('help'),
  description:
    'Shows the same help as `bookdist <command...> --help`: what the command does on the service, its ' +
    'options with their defaults, and examples. `bookdist help options` describes the global options ' +
    'that every command takes, and `bookdist help exit-codes` lists the exit codes.',
  args: [argument('[command...]', 'the command, e.g. book get')],
  examples: ['bookdist help book get', 'bookdist help options', 'bookdist help exit-codes'],
});
