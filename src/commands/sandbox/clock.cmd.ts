// The declarations of what ./clock.ts runs (clockAdvance, clockShow): data only, so that the command
// tree loads none of the run; ./index.ts ties each to its run.
import { argument, verb } from '../define.js';
import { DB_OPTION, URL_OPTION } from './options.js';

export const clockAdvance = verb({
  name: 'advance',
  summary: 'move the sandbox clock forward',
  description:
    'Adds the duration to the sandbox clock of that database; every sandbox process using it sees the new time.',
  args: [argument('<duration>', 'e.g. 15d, 36h, 90m, 30s')],
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox clock advance 15d', 'bookdist sandbox clock advance 36h --url http://127.0.0.1:8710'],
});
export const clockShow = verb({
  name: 'show',
  summary: "show the sandbox's notion of now and the offset from real time",
  description: "Prints the sandbox's current time and how far it has been moved ahead of real time.",
  options: [DB_OPTION, URL_OPTION],
  examples: ['bookdist sandbox clock show', 'bookdist sandbox clock show --json'],
});
