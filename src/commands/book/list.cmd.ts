// The declaration of what ./list.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { PAGING, verb } from '../define.js';

export const list = verb({
  name: 'list',
  summary: 'list the books your account controls',
  description:
    'Calls POST /v1/book/index/ (the form that takes limit and offset) and lists the books of the publishers your account controls, by id. ' +
    'Shows one page (--limit, --offset) and says on stderr when there are more; --all fetches every page.',
  options: PAGING,
  examples: [
    'bookdist book list',
    'bookdist book list --limit 10 --offset 20',
    'bookdist book list --all -o csv > books.csv',
  ],
});
