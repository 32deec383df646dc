// The layout of every help page (commander's Help, configured once on the root and inherited by
// every command): descriptions are paragraphs reflowed to the width (a terminal's, $COLUMNS, or
// 80), examples are wrapped with shell continuations, the root groups its commands, and every
// other command's help ends with the global options (as gh's INHERITED FLAGS). The text itself is
// laid out by ./page.ts from plain data; this file reads that data off commander's commands.
import { Command, type Help, type Option } from 'commander';
import { examplesFor } from '../../define.js';
import { type HelpPage, renderPage } from './page.js';

export { helpWidth, paragraphs } from './page.js';

/** Long options that make a command a bulk job (input from a file, streamed, resumable). */
const BULK_OPTION = /^--(from-[a-z]+|isbn-file|hash-id-file)$/;

/** Bulk entry points anywhere in the tree: `codes generate`, `book get --isbn-file`, ... */
export function bulkEntries(program: Command): Array<{ term: string; description: string }> {
  const out: Array<{ term: string; description: string }> = [];
  const visit = (cmd: Command, path: string[]) => {
    for (const sub of cmd.commands) {
      if (sub._hidden) continue;
      const p = [...path, sub.name()];
      const bulkOpts = sub.options.filter((o) => o.long && BULK_OPTION.test(o.long));
      const resumable = sub.options.some((o) => o.long === '--resume');
      if (bulkOpts.length) {
        for (const o of bulkOpts)
          out.push({ term: `${p.join(' ')} ${o.long}`, description: o.description.replace(/\s*\(.*$/, '') });
      } else if (resumable && !sub.commands.length) {
        out.push({ term: p.join(' '), description: sub.summary() || sub.description().split('\n')[0] });
      }
      visit(sub, p);
    }
  };
  visit(program, []);
  return out;
}

function visibleGlobalOptions(cmd: Command): Option[] {
  const out: Option[] = [];
  const own = new Set(cmd.options.map((o) => o.long ?? o.short));
  for (let a = cmd.parent; a; a = a.parent) {
    for (const o of a.options) {
      if (o.hidden || o.long === '--version' || own.has(o.long ?? o.short)) continue;
      out.push(o);
    }
  }
  return out;
}

/**
 * A root that lists its commands without their definitions (src/root.ts rootHelpProgram): the
 * term each stub is listed by, and the bulk entries of the tree it stands for.
 */
const stubTerms = new WeakMap<Command, string>();
const stubBulk = new WeakMap<Command, Array<{ term: string; description: string }>>();

/** Add to `root` one stub command per [term, description] (term as the full tree lists it). */
export function addCommandStubs(
  root: Command,
  commands: ReadonlyArray<readonly [string, string]>,
  bulk: ReadonlyArray<readonly [string, string]>,
): Command {
  for (const [term, description] of commands) {
    const stub = new Command(term.split(/[ |]/)[0]).description(description);
    stubTerms.set(stub, term);
    root.addCommand(stub);
  }
  stubBulk.set(
    root,
    bulk.map(([term, description]) => ({ term, description })),
  );
  return root;
}

function formatHelp(cmd: Command, helper: Help): string {
  const isRoot = !cmd.parent;
  const commandTerm = (c: Command) => stubTerms.get(c) ?? helper.subcommandTerm(c);
  const page: HelpPage = {
    usage: helper.commandUsage(cmd),
    description: helper.commandDescription(cmd),
    args: helper.visibleArguments(cmd).map((a) => [helper.argumentTerm(a), helper.argumentDescription(a)]),
    options: helper.visibleOptions(cmd).map((o) => [helper.optionTerm(o), helper.optionDescription(o)]),
    commands: helper.visibleCommands(cmd).map((c) => [c.name(), commandTerm(c), helper.subcommandDescription(c)]),
    bulk: isRoot ? (stubBulk.get(cmd) ?? bulkEntries(cmd)).map((b) => [b.term, b.description]) : undefined,
    examples: examplesFor(cmd),
    globals: isRoot ? [] : visibleGlobalOptions(cmd).map((o) => [helper.optionTerm(o), helper.optionDescription(o)]),
  };
  return renderPage(page, helper.helpWidth ?? 80);
}

/** Configure the help of a command and (by inheritance) of every command added to it later. */
export function configureHelpLayout(program: Command): Command {
  return program.configureHelp({ formatHelp });
}
