// The publishers of a catalogue load: a book goes under the record's publisher (or the load's
// `publisher`), created when new and given to the loading account; a publisher that another
// account controls is refused, and so is a change to a book of one. Each publisher is looked up
// once per load (a re-sent feed names the same few at every record).
import type { Store } from '../db/store.js';
import * as books from '../repo/books.js';
import type { CatalogueRecord } from './record.js';

export class LoadPublishers {
  private readonly byName = new Map<string, { id: number } | { problem: string }>();
  private readonly controlled = new Map<number, boolean>();

  constructor(
    private readonly store: Store,
    /** The account that loads (and controls what it creates). */
    private readonly account: number,
    /** Every book under this publisher (created when new), whatever its record names. */
    private readonly publisher: string | undefined,
    /** Told the names of the publishers this load creates (the load's summary). */
    private readonly created: string[],
  ) {}

  /** Why the partner account may not change this book, if it may not. */
  denied(book: books.BookKeyRow): string | undefined {
    if (this.controls(book.publisher_id)) return undefined;
    return `ISBN ${book.eisbn13} is a book of a publisher that the partner account does not control`;
  }

  /** Does the partner account control this publisher? Asked once per publisher in a load (a re-sent feed asks at every record). */
  private controls(publisherId: number): boolean {
    let yes = this.controlled.get(publisherId);
    // Stryker disable next-line ConditionalExpression: equivalent, → true asks the database again instead of the memo, with the same answer
    if (yes === undefined)
      this.controlled.set(publisherId, (yes = books.accountControls(this.store, this.account, publisherId)));
    return yes;
  }

  /** The publisher a record's book goes under (the load's, the record's, or the book's own); or why none may be used. */
  publisherFor(rec: CatalogueRecord, existing: books.BookKeyRow | undefined): { id: number } | { problem: string } {
    const name = (this.publisher ?? rec.publisher ?? '').trim();
    if (!name) {
      // Stryker disable next-line ObjectLiteral: equivalent, a book already there keeps its publisher either way (an update writes only the fields that are defined)
      if (existing) return { id: existing.publisher_id };
      return { problem: 'no publisher (the record names none: give --publisher)' };
    }
    let p = this.byName.get(name);
    // Stryker disable next-line ConditionalExpression: equivalent, → true looks the publisher up again, and finds the one made earlier in this load
    if (!p) {
      p = this.publisherNamed(name);
      this.byName.set(name, p);
    }
    return p;
  }

  /** The partner's publisher of this name, created when new; or why it cannot be used. */
  private publisherNamed(name: string): { id: number } | { problem: string } {
    const row = books.publisherByTitle(this.store, name);
    if (row) {
      if (!this.controls(row.id)) {
        return {
          problem: `publisher "${name}" belongs to another account; load under one of the partner's with --publisher`,
        };
      }
      return { id: row.id };
    }
    if (name.length > 200) return { problem: `publisher name "${name.slice(0, 40)}…" is longer than 200 characters` };
    const id = books.insertPublisher(this.store, name, 'Loaded from a catalogue file.');
    books.grantPublisher(this.store, this.account, id);
    this.created.push(name);
    return { id };
  }
}
