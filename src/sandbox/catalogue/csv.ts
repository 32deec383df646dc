// A catalogue as CSV, read as a stream with csv-parse (RFC 4180: quoted commas and line breaks, a
// byte-order mark ignored). The first row is the header; column names are case-insensitive.
// The columns (README, "Bring your own catalogue"):
//
//   isbn13         the digital edition's ISBN-13 (required; an ISBN-10 is converted)
//   title          required for a new book
//   subtitle, author, publisher, language (ISO 639: en or eng), pages, publish_date (YYYY or
//   YYYY-MM-DD), description, sku, print_isbn13 (the print edition: isbn13/parent_isbn)
//   price, currency                 a lifetime price (currency defaults to USD)
//   rental_price, rental_days       a rental price of that many days, in the same currency
//   action         add (the default: add or update), update, or withdraw
//
// A cell left empty keeps what an existing book has; a column the sandbox does not know is
// counted as not represented.
import type { InfoRecord } from 'csv-parse';
import { CatalogueFileError } from './summary.js';
import { languageCode, newRecord, type CatalogueRecord } from './record.js';

const CSV_COLUMNS = [
  'isbn13',
  'title',
  'subtitle',
  'author',
  'publisher',
  'language',
  'pages',
  'publish_date',
  'description',
  'sku',
  'print_isbn13',
  'price',
  'currency',
  'rental_price',
  'rental_days',
  'action',
] as const;

const ALIASES: Record<string, string> = {
  isbn: 'isbn13',
  eisbn13: 'isbn13',
  print_isbn: 'print_isbn13',
  parent_isbn: 'print_isbn13',
  year: 'publish_date',
};

export async function* readCsv(source: AsyncIterable<Buffer | string>): AsyncGenerator<CatalogueRecord> {
  const { parse, CsvError } = await import('csv-parse');
  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    on_record: (record: string[], context: InfoRecord) => Object.assign(record, { line: context.lines }),
  });
  // Feed the parser from the source, stopping on its errors (the consumer sees them).
  void (async () => {
    try {
      for await (const chunk of source) if (!parser.write(chunk)) await new Promise((r) => parser.once('drain', r));
      parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();
  let header: string[] | undefined;
  let number = 0;
  try {
    for await (const row of parser as AsyncIterable<string[] & { line: number }>) {
      if (!header) {
        header = row.map((h) => {
          const n = h
            .trim()
            .toLowerCase()
            .replace(/[\s-]+/g, '_');
          return ALIASES[n] ?? n;
        });
        if (!header.includes('isbn13')) {
          throw new CatalogueFileError(
            `The CSV header has no isbn13 column (it has: ${header.join(', ').slice(0, 200)}; the columns: ${CSV_COLUMNS.join(', ')}).`,
          );
        }
        continue;
      }
      // The line where the record starts: where it ends, less the line breaks inside its quoted fields.
      const breaks = row.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0);
      const rec = newRecord(++number, row.line - breaks);
      const v: Record<string, string> = {};
      header.forEach((h, i) => {
        const cell = (row[i] ?? '').trim();
        if (!cell) return;
        if ((CSV_COLUMNS as readonly string[]).includes(h)) v[h] = cell;
        else rec.unrepresented.push(`column ${h.slice(0, 40)}`);
      });
      if (row.length > header.length)
        rec.problems.push(`the row has ${row.length} fields, the header ${header.length}`);
      rec.isbn = v.isbn13;
      rec.isbnKind = 'ISBN';
      rec.reference = v.sku ?? v.isbn13;
      const action = (v.action ?? 'add').toLowerCase();
      if (action === 'withdraw' || action === 'delete') rec.action = 'withdraw';
      else if (action !== 'add' && action !== 'update')
        rec.problems.push(`action "${action.slice(0, 20)}" is not add, update or withdraw`);
      rec.title = v.title;
      rec.subtitle = v.subtitle;
      rec.author = v.author;
      rec.publisher = v.publisher;
      if (v.language) rec.language = languageCode(v.language);
      rec.pages = v.pages;
      if (v.publish_date) {
        const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(v.publish_date);
        if (m) rec.publishYear = Number(m[1]);
        else rec.problems.push(`publish_date "${v.publish_date.slice(0, 20)}" is not YYYY or YYYY-MM-DD`);
      }
      rec.description = v.description;
      rec.sku = v.sku;
      rec.printIsbn = v.print_isbn13;
      const currency = v.currency ?? 'USD';
      if (v.price) rec.prices.push({ amount: v.price, currency });
      if (v.rental_price || v.rental_days) {
        const days = Number(v.rental_days);
        if (!v.rental_price || !v.rental_days) rec.problems.push('rental_price and rental_days go together');
        else if (!/^\d+$/.test(v.rental_days) || days < 1)
          rec.problems.push(`rental_days "${v.rental_days.slice(0, 20)}" is not a whole number of days`);
        else rec.prices.push({ amount: v.rental_price, currency, rentalDays: days });
      }
      yield rec;
    }
  } catch (err) {
    if (err instanceof CatalogueFileError) throw err;
    // Every error of the parser (not only the codes that start with CSV_: a quote inside an
    // unquoted field is INVALID_OPENING_QUOTE).
    if (err instanceof CsvError) {
      const { lines, field } = err as { lines?: number; field?: string };
      // The two a hand-edited file meets most, each with its fix (as src/bulk/rows.ts says them to the client).
      const what =
        err.code === 'INVALID_OPENING_QUOTE'
          ? `a quote inside an unquoted field (after ${JSON.stringify(String(field ?? '').slice(0, 40))}); to keep the quote, enclose the whole field in double quotes and double each quote inside it, e.g. "The ""Best"" Tides".`
          : err.code === 'CSV_QUOTE_NOT_CLOSED'
            ? 'a quoted field is never closed (the file ends inside it); close it, or double a quote that is part of the text.'
            : err.message.slice(0, 200);
      throw new CatalogueFileError(`The CSV file cannot be read${lines ? ` (line ${lines})` : ''}: ${what}`);
    }
    throw err;
  }
}
