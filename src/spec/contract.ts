// Types only (nothing here exists at run time, so importing it costs a command nothing): the
// contract between the client, the cards and the sandbox, derived from the endpoint table
// (src/spec/endpoints.ts) and the resources' schemas (src/spec/schemas.ts), the same literal data
// that gives the OpenAPI document. A misspelt endpoint name, payload field or answer member does
// not compile.
import type { EndpointTable } from './endpoints.js';
import type { Flat, FromSchema, OpenRecord } from './json-schema.js';
import type { Schemas } from './schemas.js';

type Table = EndpointTable[number];

/** The name of an endpoint of the table: `book.get`, `order.external`... */
export type EndpointName = Table['name'];

/** The table's row of endpoint `N`, with its literal types. */
type EndpointOf<N extends EndpointName> = Extract<Table, { name: N }>;

/** A resource of interface.md section 2 by its schema's name: `Resource<'Book'>`. */
type Resource<N extends keyof Schemas> = FromSchema<Schemas[N], Schemas>;

/** Members of every success answer (interface.md 2.1). */
type Envelope = Resource<'Envelope'>;

/** The body of an error answer: JSON (interface.md 7), or the client's `{ code, text }` for XML and text. */
export type ErrorBody = Partial<Resource<'Error'>> & { text?: string } & OpenRecord;

type Body<B> = { -readonly [K in keyof B as K extends `${string}?` ? never : K]: FromSchema<B[K], Schemas> } & {
  -readonly [K in keyof B as K extends `${infer M}?` ? M : never]?: FromSchema<B[K], Schemas>;
};

/** The success answer of endpoint `N`: the envelope and the members the table gives. */
export type Answer<N extends EndpointName> = N extends EndpointName
  ? EndpointOf<N>['response'] extends { raw: true; body: infer B }
    ? Flat<Body<B>>
    : EndpointOf<N>['response'] extends { body: infer B }
      ? Flat<Envelope & Body<B>>
      : never
  : never;

/** The `{param}` names of a path template. */
type ParamsOf<P extends string> = P extends `${string}{${infer K}}${infer Rest}` ? K | ParamsOf<Rest> : never;

/** The path parameters of endpoint `N` (`{ hash_id }` of `/v1/book/{hash_id}/`). */
type PathParams<N extends EndpointName> = { [K in ParamsOf<EndpointOf<N>['path']>]: string | number };

/**
 * The value a payload field of this definition takes. An enum's values are the ones the sandbox
 * supports; another deployment may support more, so any string goes (decisions.md: Orders).
 * Booleans may come as the reference form's 'True'/'False' (validate.ts reads both).
 */
type FieldValue<F> = F extends { enum: readonly (infer E)[] }
  ? E | (string & {})
  : F extends { type: infer T }
    ? T extends 'string' | 'date'
      ? string
      : T extends 'integer' | 'number'
        ? number
        : T extends 'boolean'
          ? boolean | 'True' | 'False'
          : T extends 'array<string>'
            ? string[]
            : T extends 'array<integer>'
              ? number[]
              : T extends 'address'
                ? Resource<'Address'>
                : OpenRecord
    : unknown;

type Fields<N extends EndpointName> = EndpointOf<N>['fields'][number];

/**
 * The `request` payload (or query) of endpoint `N`: its required fields, and its optional ones,
 * which may be undefined (the client leaves those out). Of a union of endpoints: one of theirs.
 */
export type Payload<N extends EndpointName> = N extends EndpointName
  ? Flat<
      { [F in Fields<N> as F extends { required: true } ? F['name'] : never]: FieldValue<F> } & {
        [F in Fields<N> as F extends { required: true } ? never : F['name']]?: FieldValue<F> | undefined;
      }
    >
  : never;

/** How a call of endpoint `N` is given its path parameters and payload (each only where it has some). */
export type CallArgs<N extends EndpointName> = N extends EndpointName
  ? ([ParamsOf<EndpointOf<N>['path']>] extends [never] ? { params?: undefined } : { params: PathParams<N> }) &
      ([Fields<N>] extends [never] ? { payload?: undefined } : { payload?: Payload<N> })
  : never;
