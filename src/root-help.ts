// The root help (a bare `bookdist`, -h, --help), rendered from the command manifest's root table
// without commander or any command group: Node's start-up plus this file, the manifest and
// ./commands/help/parts/page.ts. Only the fast path imports it (src/cli/fast-paths.ts), so that the
// root help is one import of one chunk. Tests check the page byte for byte against the full tree's.
import { type HelpPage, helpWidth, renderPage } from './commands/help/parts/page.js';
import { ROOT_DESCRIPTION, ROOT_HELP_AFTER, ROOT_LISTING, ROOT_OPTIONS, type RootOption } from './commands/manifest.js';

/** An option's help line as commander writes it: the description, then its choices and default. */
function optionLine(o: RootOption): string {
  const extra: string[] = [];
  if (o.choices) extra.push(`choices: ${o.choices.map((c) => JSON.stringify(c)).join(', ')}`);
  if (o.default !== undefined && /[<[]/.test(o.flags)) extra.push(`default: ${JSON.stringify(o.default)}`);
  return extra.length ? `${o.description} (${extra.join(', ')})` : o.description;
}

/** The root help at `width` columns, as `bookdist --help` prints it (the after-text included). */
export function rootHelpText(width: number): string {
  const page: HelpPage = {
    usage: 'bookdist [options] [command]',
    description: ROOT_DESCRIPTION,
    args: [],
    options: [
      ['-V, --version', 'print the version'],
      ...ROOT_OPTIONS.map((o): [string, string] => [o.flags, optionLine(o)]),
      ['-h, --help', 'display help for command'],
    ],
    commands: ROOT_LISTING.commands.map(([term, description]) => [term.split(/[ |]/)[0], term, description]),
    bulk: ROOT_LISTING.bulk.map(([term, description]) => [term, description]),
    examples: [],
    globals: [],
  };
  return `${renderPage(page, width)}${ROOT_HELP_AFTER}\n`;
}

/** The root help as `bookdist --help` writes it to `stream`: at its terminal's width, else $COLUMNS, else 80. */
export function rootHelpFor(
  stream: { isTTY?: boolean; columns?: number },
  env: Record<string, string | undefined>,
): string {
  return rootHelpText(helpWidth(stream, env));
}
