// Hints that lead somewhere, for the usage errors a new user meets first: a verb that does not
// exist but names what they want (`order get`: orders are read per user), and an option that
// belongs to a sibling verb (`offers checkout --isbn`: the ISBN goes to `offers get`, whose price
// ids checkout takes). Commander's own "Did you mean" (the nearest spelling) stays for the rest.
import type { Command, CommanderError } from 'commander';

const ORDERS =
  "Orders are read per user: `bookdist user orders USERNAME` lists a user's orders, `bookdist user purchase USERNAME PURCHASE_ID` shows one item of them.";
const USERS = 'Users are looked up one at a time: `bookdist user get USERNAME` or `bookdist user get --email ADDRESS`.';
const CODES =
  'The service does not list codes: `bookdist codes summary` counts them; `bookdist codes generate ... --out FILE` keeps the codes it makes.';

/** `group verb` a user tries → what does that, and how. */
const VERBS: Record<string, string> = {
  'order get': ORDERS,
  'order list': ORDERS,
  'order show': ORDERS,
  'user list': USERS,
  'user search': USERS,
  'book show':
    'One book: `bookdist book get HASH_ID` (or --isbn, --sku); many: `bookdist book search --title TEXT` or `bookdist book list`.',
  'book find':
    'Books by title, author or ISBN: `bookdist book search --title TEXT`; one book: `bookdist book get HASH_ID`.',
  'codes list': CODES,
  'codes get': CODES,
  'offers list': 'The offers of a book: `bookdist offers get --isbn ISBN`.',
};

/** `command --option` → why it is not taken there and what to do instead (beyond naming the sibling). */
const OPTIONS: Record<string, string> = {
  'offers checkout --isbn':
    'checkout takes price ids, not a book: list the offers of the book with `bookdist offers get --isbn ISBN` and pass their ids as --id (repeatable).',
};

function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The message of a commander usage error, with a hint where one is known (else as it was). */
export function withHint(err: CommanderError, cmd: Command | undefined): string {
  const message = err.message;
  if (!cmd) return message;
  if (err.code === 'commander.unknownCommand') {
    const word = /unknown command '([^']+)'/.exec(message)?.[1];
    const hint = word && VERBS[`${pathOf(cmd)} ${word}`];
    return hint ? `${message.split('\n')[0]}\n${hint}` : message;
  }
  if (err.code === 'commander.unknownOption') {
    const flag = /unknown option '([^'=]+)/.exec(message)?.[1];
    if (!flag || !cmd.parent) return message;
    const here = pathOf(cmd);
    const siblings = cmd.parent.commands
      .filter((c) => c !== cmd && c.options.some((o) => o.long === flag || o.short === flag))
      .map((c) => `\`bookdist ${pathOf(c)}\``);
    const why = OPTIONS[`${here} ${flag}`];
    if (!siblings.length && !why) return message;
    const takes = siblings.length
      ? `${flag} is an option of ${siblings.join(' and ')}, not of \`bookdist ${here}\`.`
      : '';
    return [message.split('\n')[0], [takes, why].filter(Boolean).join(' ')].join('\n');
  }
  return message;
}
