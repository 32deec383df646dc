// What the answer check (src/api/verify.ts) looks at, as plain data: the members of each resource
// the commands use, the resources whose entries the caller checks, and the endpoints whose answer
// the interface leaves "not shown". verify.ts checks answers against it at run time and
// src/spec/contract.ts types the answers from it, so a card may rely on exactly what is checked.
import type { Schema } from './json-schema.js';

/**
 * Members of each resource of interface.md section 2 that the commands use, with the types the
 * interface gives them (a subset of src/spec/schemas.ts; test/foundation/verify.test.ts checks
 * each against it). Other members may be absent: the interface lets data depend on permissions.
 */
const USED_MEMBERS = {
  Book: { hash_id: { type: 'string' }, title: { type: 'string' } },
  PricingEntry: { id: { type: 'integer' }, currency: { type: 'string' }, price: { $ref: 'Decimal' } },
  User: { username: { type: 'string' } },
  Order: { id: { type: 'integer' }, items: { type: 'array' } },
  ListedOrder: { id: { type: 'integer' }, items: { type: 'array' } },
  ImportedTitle: { title: { type: 'string' } },
  PriceOffer: { Id: { type: 'integer' }, Price: { $ref: 'Decimal' } },
  DescribedEndpoint: { name: { type: 'string' }, path: { type: 'string' } },
  ItemBook: { hash_id: { type: 'string' } },
  ItemUser: { username: { type: 'string' } },
} as const satisfies Record<string, Record<string, Schema>>;

export const USED: Readonly<Record<string, Readonly<Record<string, Schema>>>> = USED_MEMBERS;

/** USED's literal type: which members of which resource the check requires, and their schemas. */
export type Used = typeof USED_MEMBERS;

/**
 * Resources whose entries the caller checks one by one: a batch of codes keeps every good code and
 * rescues the rest (codes generate, src/commands/codes/), so one bad entry must not void the batch.
 */
export const CHECKED_BY_CALLER = ['Code'] as const;

/**
 * Endpoints whose answer's shape the interface leaves "not shown" (4.1 describe, 4.2 pricing):
 * the envelope is checked, the members are not (the table's shape is this project's sandbox).
 */
export const NOT_SHOWN = ['describe', 'book.pricing'] as const;
