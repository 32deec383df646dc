// The declaration of what ./catalogue.ts runs: data only, so that the command tree loads none
// of the run; ./index.ts ties it to its run.
import { argument, option, verb } from '../define.js';
import { DB_OPTION, URL_OPTION } from './options.js';

export const catalogueLoad = verb({
  name: 'load',
  summary: 'load an ONIX 3.0 or CSV catalogue file into the sandbox (adds, updates, withdraws)',
  description:
    'Reads the file as a stream and loads it in one transaction: every valid record is in (or, with --strict, none ' +
    'if any is refused). ONIX for Books 3.0 (reference or short tags): digital editions become books with their ' +
    'digital prices (rentals where a PriceCondition gives a duration) and their print ISBN (RelatedProduct) as ' +
    'isbn13/parent_isbn; print and audio editions are skipped and counted; NotificationType 03/04 update a ' +
    "title already loaded, 05 withdraws it. Books go under the record's publisher (created and given to the " +
    'partner account when new), or --publisher. A book loaded again is updated in place: same hash id, its ' +
    'orders and access kept. Refused records are listed with their record number, line and reason; --json ' +
    'prints the whole summary. Exit 6 when records were refused, 2 when the file cannot be read or --strict ' +
    'refused it.\n\n' +
    'CSV: a header row naming the columns (any order, any case), then one book per row: isbn13 (required; ' +
    'an ISBN-10 is converted), title (required for a new book), subtitle, author, publisher, language (en or ' +
    'eng), pages, publish_date (YYYY or YYYY-MM-DD), description, sku, print_isbn13, price and currency (a ' +
    'lifetime price; currency defaults to USD), rental_price with rental_days (a rental, in the same ' +
    'currency), and action: add (the default: adds the book, or updates it), update, or withdraw (off sale, ' +
    'its prices deactivated). An empty cell keeps what the book has. Example:\n' +
    '  isbn13,title,author,publish_date,price,currency,action\n' +
    '  9780000000019,Brief Lives,Anna Weber,2021-03-01,12.99,EUR,add',
  args: [argument('<file>', 'the catalogue file (.xml/.onix: ONIX; .csv: CSV; otherwise by its content)')],
  options: [
    option('--format <format>', 'onix or csv (default: from the file name or content)'),
    option('--publisher <name>', "load every title under this publisher (created when new) instead of the file's"),
    option('--strict', 'load nothing if any record is refused'),
    DB_OPTION,
    URL_OPTION,
  ],
  examples: [
    'bookdist sandbox catalogue load docs/samples/catalogue.onix.xml',
    'bookdist sandbox catalogue load titles.csv --publisher "Harbor Lane Press" --strict',
    'bookdist sandbox catalogue load feed.xml --url http://127.0.0.1:8710 --json',
  ],
});
