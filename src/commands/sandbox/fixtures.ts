// `bookdist sandbox fixtures apply FILE`: set a sandbox up for a test from a file of named steps
// (src/sandbox/fixtures/apply.ts), on its database (--db) or a running sandbox (--url).
import type { Context } from '../../context.js';
import { CliError, ExitCode, unreadableFile, usageError } from '../../errors.js';
import { emit } from '../../output/index.js';
import type { VerbInput } from '../define.js';
import type { fixturesApply } from './fixtures.cmd.js';
import { controlCall, openStore, strip } from './parts/common.js';
import { cellText as t } from '../../output/format.js';

interface Options {
  file: string;
  db?: string;
  url?: string;
}

export function parse({ args, opts }: VerbInput<typeof fixturesApply>): Options {
  return { file: args.file, db: opts.db, url: opts.url };
}

/** The fixture file as data: JSON, or YAML (by its name, or when it is not JSON). */
async function readFixture(file: string): Promise<unknown> {
  const { readFile } = await import('node:fs/promises');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw unreadableFile('<file>', file, e);
  }
  if (text.length > 16 * 1024 * 1024) throw usageError(`${file}: a fixture file is at most 16 MB.`);
  const yamlName = /\.ya?ml$/i.test(file);
  if (!yamlName) {
    try {
      return JSON.parse(text);
    } catch (e) {
      if (/\.json$/i.test(file)) throw usageError(`${file} is not valid JSON: ${(e as Error).message}.`);
    }
  }
  const yaml = await import('yaml');
  // The bundle may hand the CommonJS build over as a default export.
  const parseYaml = yaml.parse ?? (yaml as unknown as { default: typeof yaml }).default.parse;
  try {
    return parseYaml(text, { maxAliasCount: 100 });
  } catch (e) {
    if (!(e instanceof Error) || !/YAML|Parse|Nested|Implicit|Map keys|alias/i.test(e.name + e.message)) throw e;
    throw usageError(`${file} is not valid ${yamlName ? 'YAML' : 'JSON or YAML'}: ${e.message.split('\n')[0]}`);
  }
}

export async function run(o: Options, ctx: Context): Promise<void> {
  const doc = await readFixture(o.file);
  const nodePath = await import('node:path');
  const baseDir = nodePath.dirname(nodePath.resolve(o.file));
  let out: Record<string, unknown>;
  if (o.url) {
    out = strip(
      await controlCall(ctx, { url: o.url, db: o.db }, 'POST', '/_sandbox/fixtures', {
        fixture: doc,
        base_dir: baseDir,
      }),
    );
  } else {
    const store = await openStore(ctx, o.db);
    const { applyFixture, FixtureError } = await import('../../sandbox/fixtures/apply.js');
    try {
      out = { ...(await applyFixture(store, doc, { baseDir, workerDelayMs: 0 })) };
    } catch (e) {
      if (e instanceof FixtureError)
        throw new CliError(
          `${o.file}: ${e.message}`,
          e.status >= 400 && e.status < 500 && !/answered/.test(e.message) ? ExitCode.USAGE : ExitCode.ERROR,
          undefined,
          e.status,
        );
      throw e;
    }
  }
  const steps = out.steps as Array<Record<string, unknown>>;
  await emit(ctx, out, {
    columns: [{ key: 'name', id: true }, { key: 'kind' }, { key: 'state' }],
    empty: 'The fixture has no steps.',
  });
  const applied = Number(out.applied);
  const remembered = Number(out.remembered);
  ctx.info(
    `${out.fixture ? `Fixture "${t(out.fixture)}": ` : ''}${applied} step${applied === 1 ? '' : 's'} applied` +
      (remembered ? `, ${remembered} remembered from an earlier apply (nothing made twice)` : '') +
      `; --json shows what each returned (${steps.length} in all).`,
  );
}
