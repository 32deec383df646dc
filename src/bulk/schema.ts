// zod for the rows of bulk inputs (loaded only by the bulk jobs that validate rows with it): the
// project's own validators as zod refinements, so that a row's message names its column and says
// the same as the flag of the single form would, and blank cells read as "not given".
import { z } from 'zod';
import { messageOf } from '../errors.js';
import { issuesText } from './rows.js';

export { z };

/** A blank cell (or a missing NDJSON key) is "not given". */
const blank = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v;

/** A field checked by one of the project's validators (which throw a usage error naming the flag). */
export function via<T>(check: (value: string, flag: string) => T, column: string) {
  return z.preprocess(
    blank,
    z.any().transform((v, ctx) => {
      if (v === undefined) {
        ctx.addIssue({ code: 'custom', message: 'required' });
        return z.NEVER;
      }
      try {
        return check(String(v), column);
      } catch (e) {
        ctx.addIssue({
          code: 'custom',
          message: messageOf(e)
            .replace(new RegExp(`^${column} `), '')
            .replace(/\.$/, ''),
        });
        return z.NEVER;
      }
    }),
  ) as unknown as z.ZodType<T>;
}

export function optional<T>(schema: z.ZodType<T>) {
  return z.preprocess(blank, schema.optional());
}

/** A yes/no cell: true/false, yes/no, y/n, 1/0. */
export const yesNo = z.preprocess(
  blank,
  z
    .union([z.boolean(), z.string()])
    .transform((v, ctx) => {
      if (typeof v === 'boolean') return v;
      const s = v.trim().toLowerCase();
      if (['true', 'yes', 'y', '1'].includes(s)) return true;
      if (['false', 'no', 'n', '0'].includes(s)) return false;
      ctx.addIssue({ code: 'custom', message: `${v}: give true or false` });
      return z.NEVER;
    })
    .optional(),
);

/** Parse a row: its data, or one message naming every bad column. */
export function checkRow<T>(
  schema: z.ZodType<T>,
  values: unknown,
): { ok: true; data: T } | { ok: false; message: string } {
  const r = schema.safeParse(values);
  return r.success ? { ok: true, data: r.data } : { ok: false, message: issuesText(r.error.issues) };
}
