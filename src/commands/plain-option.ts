// commander's Option made for the forms of flags bookdist declares without the regular
// expressions commander runs on every option (issue 31): plainOption() for the options the tree
// declares and the ones commander makes itself (-V, -h), name() and attributeName() as string
// operations. Loaded with the command tree (src/commands/define.ts, src/root.ts).
import { Command, Option } from 'commander';

/**
 * `new Option(flags, description)` for the forms of flags bookdist declares (`--long`, `--long
 * <value>`, `--long [value]`, `-s, --long ...`, `--no-long`), with the same members in the same
 * order, made without the regular expressions commander's constructor runs on every option: each is
 * compiled by a process's first option (issue 31: a command makes 20 to 30 options to parse one
 * line). Any other form (no long flag, two long flags, `|` or more commas, a variadic value) is
 * commander's own; test/foundation/plain-option.test.ts holds every option of the tree to it.
 */
export function plainOption(flags: string, description?: string): Option {
  const words = flags.split(' ');
  const first = words[0];
  const s = first.length === 3 && first[0] === '-' && first[1] !== '-' && first[2] === ',' ? 1 : 0;
  const long = words[s];
  const value = words[s + 1];
  if (
    long === undefined ||
    long.length < 3 ||
    !long.startsWith('--') ||
    long[2] === '-' ||
    words.length > s + 2 ||
    (value !== undefined && !value.startsWith('<') && !value.startsWith('[')) ||
    flags.includes('|') ||
    flags.includes('...') ||
    flags.indexOf(',', s ? 3 : 0) >= 0 ||
    words.includes('')
  )
    return new Option(flags, description);
  return Object.assign(Object.create(Option.prototype) as Option, {
    flags,
    description: description || '',
    required: flags.includes('<'),
    optional: flags.includes('['),
    variadic: false,
    mandatory: false,
    short: s ? first.slice(0, 2) : undefined,
    long,
    negate: long.startsWith('--no-'),
    defaultValue: undefined,
    defaultValueDescription: undefined,
    presetArg: undefined,
    envVar: undefined,
    parseArg: undefined,
    hidden: false,
    argChoices: undefined,
    conflictsWith: [],
    implied: undefined,
    helpGroupHeading: undefined,
  });
}

// The options commander makes itself (-V, --version; -h, --help) are made the same way.
Command.prototype.createOption = function (flags: string, description?: string): Option {
  return plainOption(flags, description);
};

// commander's name() and attributeName() with string operations instead of their three regular
// expressions (`/^--/`, `/^-/`, `/^no-/`), compiled at a process's first option and run on every
// option many times a run: the same names.
Option.prototype.name = function (this: Option): string {
  if (this.long) return this.long.startsWith('--') ? this.long.slice(2) : this.long;
  const short = this.short as string;
  return short.startsWith('-') ? short.slice(1) : short;
};

Option.prototype.attributeName = function (this: Option): string {
  const name = this.name();
  return camelcase(this.negate && name.startsWith('no-') ? name.slice(3) : name);
};

/** commander's camelcase(): `isbn-file` is isbnFile. */
function camelcase(name: string): string {
  return name.split('-').reduce((str, word) => str + word[0].toUpperCase() + word.slice(1));
}
