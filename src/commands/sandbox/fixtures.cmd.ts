// The declaration of what ./fixtures.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, verb } from '../define.js';
import { DB_OPTION, URL_OPTION } from './options.js';

export const fixturesApply = verb({
  name: 'apply',
  summary: 'set the sandbox up from a fixture file of named steps (JSON or YAML)',
  description:
    'Runs the steps of a fixture file in order: `call:` any operation of the service (its name in `bookdist describe`, e.g. ' +
    'order.external, with `payload:` and `params:`, `as:` partner, limited or operator) or `control:` a sandbox control ' +
    '(clock.advance, usage, redeem, catalogue.load, book.hold, book.release, book.fail, worker.run, with `with:`). A step uses ' +
    'what an earlier one returned with ${step.path} (e.g. ${order.order.id}). A fixture with a `name:` remembers what each step ' +
    'returned: applying it again makes nothing twice and prints the remembered results, and after a failed step it goes on from ' +
    'there once the file is fixed. Errors name the step and the field. Samples: docs/samples/*fixture*. Exit 2 when the file is ' +
    'not a fixture, 1 when a step fails.',
  args: [argument('<file>', 'the fixture file (.json, .yaml or .yml)')],
  options: [DB_OPTION, URL_OPTION],
  examples: [
    'bookdist sandbox fixtures apply docs/samples/refund-window.fixture.yaml',
    'bookdist sandbox fixtures apply docs/samples/code-batch.fixture.json --json',
    'bookdist sandbox fixtures apply docs/samples/held-book.fixture.yaml --url http://127.0.0.1:8710',
  ],
});
