// Types only (nothing here exists at run time, so importing it costs a command nothing): the
// contract between the client, the cards and the sandbox, derived from the endpoint table
// (src/spec/endpoints.ts) and the resources' schemas (src/spec/schemas.ts), the same literal data
// that gives the OpenAPI document. A misspelt endpoint name, payload field or answer member does
// not compile.
import type { EndpointTable } from './endpoints.js';
import type { Flat, FromSchema, OpenRecord } from './json-schema.js';
import type { Schemas } from './schemas.js';
import type { CHECKED_BY_CALLER, NOT_SHOWN, Used } from './verified.js';

type Table = EndpointTable[number];

/** The name of an endpoint of the table: `book.get`, `order.external`... */
export type EndpointName = Table['name'];

/** The table's row of endpoint `N`, with its literal types. */
type EndpointOf<N extends EndpointName> = Extract<Table, { name: N }>;

/** A resource of interface.md section 2 by its schema's name, whole (as the sandbox makes it): `Resource<'Book'>`. */
export type Resource<N extends keyof Schemas> = FromSchema<Schemas[N], Schemas>;

/** The body of an error answer: JSON (interface.md 7), or the client's `{ code, text }` for XML and text. */
export type ErrorBody = Partial<Resource<'Error'>> & { text?: string } & OpenRecord;

type Body<B> = { -readonly [K in keyof B as K extends `${string}?` ? never : K]: FromSchema<B[K], Schemas> } & {
  -readonly [K in keyof B as K extends `${infer M}?` ? M : never]?: FromSchema<B[K], Schemas>;
};

/**
 * The members of endpoint `N`'s success answer as the table promises them, every resource whole,
 * without the envelope: what a handler of the sandbox returns (the sandbox adds the envelope; the
 * handlers are held to this type). A client may rely only on `Answer<N>`.
 */
export type Promised<N extends EndpointName> = N extends EndpointName
  ? EndpointOf<N>['response'] extends { body: infer B }
    ? Flat<Body<B>>
    : never
  : never;

// ---------------------------------------------------------------------------------------------
// What a verified answer holds (src/api/verify.ts checks it at run time, src/spec/verified.ts
// says what it checks): the types below promise a card exactly that, no more.

/**
 * A member the answer check does not look at, as far as a card may rely on it: absent, null or
 * anything. An object of the interface keeps its member names (a misspelt one does not compile),
 * each `unknown` or such an object again, so reading `a?.b?.c` is safe whatever came; a list must
 * be checked as one (`Array.isArray`, or `recsOf` for open records) before it is walked.
 */
type Unchecked<T> = unknown extends T
  ? unknown
  : [NonNullable<T>] extends [readonly unknown[]]
    ? unknown
    : [NonNullable<T>] extends [object]
      ? { -readonly [K in keyof NonNullable<T>]?: Unchecked<NonNullable<T>[K]> } | null
      : unknown;

type Props<R> = R extends keyof Schemas ? (Schemas[R] extends { properties: infer P } ? P : {}) : {};

/** A member of USED (`U`) with the resource's whole schema of it (`S`): a bare `array` keeps its entries unchecked. */
type UsedMember<U, S> = U extends { $ref: string }
  ? Checked<U>
  : U extends { type: 'array'; items?: never }
    ? S extends { items: infer I }
      ? Unchecked<FromSchema<I, Schemas>>[]
      : unknown[]
    : FromSchema<U, Schemas>;

/**
 * Resource `R` as a verified answer holds it: the members the check requires (USED), typed; the
 * others the interface gives may be absent or of another type (Unchecked). A scalar resource
 * (Decimal) is checked whole.
 */
export type Verified<R extends keyof Schemas> = Schemas[R] extends { type: 'string' }
  ? FromSchema<Schemas[R], Schemas>
  : Flat<
      (R extends keyof Used
        ? { -readonly [K in keyof Used[R]]: UsedMember<Used[R][K], Props<R>[K & keyof Props<R>]> }
        : {}) & {
        -readonly [K in Exclude<keyof Props<R>, R extends keyof Used ? keyof Used[R] : never>]?: Unchecked<
          FromSchema<Props<R>[K], Schemas>
        >;
      }
    >;

/** A member schema of the table as the check reads it (verify.ts, problemIn). */
type Checked<S> = S extends { $ref: infer R extends keyof Schemas }
  ? Verified<R>
  : S extends { type: 'array'; items: { $ref: (typeof CHECKED_BY_CALLER)[number] } }
    ? Unchecked<FromSchema<S['items'], Schemas>>[]
    : S extends { type: 'array'; items: infer I }
      ? Checked<I>[]
      : S extends { type: 'object'; properties: infer P }
        ? Flat<
            { -readonly [K in keyof P & RequiredOf<S>]: Checked<P[K]> } & {
              -readonly [K in Exclude<keyof P, RequiredOf<S>>]?: Checked<P[K]>;
            }
          >
        : FromSchema<S, Schemas>;

type RequiredOf<S> = S extends { required: readonly (infer K)[] } ? K : never;

/**
 * The members of a success body besides the envelope, as checked: a name ending in `?` may be
 * absent or null; `message`, the envelope's human text, is checked only when given.
 */
type CheckedBody<B> = {
  -readonly [K in keyof B as K extends `${string}?` | 'message' ? never : K]: Checked<B[K]>;
} & {
  -readonly [K in keyof B as K extends `${infer M}?` ? M : K extends 'message' ? K : never]?: Checked<B[K]> | null;
};

/** The envelope as checked: `success` is true when given; `code` and `test_mode` are not looked at. */
type CheckedEnvelope = { success?: true; code?: unknown; test_mode?: unknown };

/**
 * The success answer of endpoint `N` as a verified answer holds it (src/api/verify.ts): the
 * envelope, and the members the table gives, as far as the check looks at them. The answer of an
 * endpoint whose shape the interface leaves "not shown" (describe, pricing) is an open record.
 */
export type Answer<N extends EndpointName> = N extends EndpointName
  ? N extends (typeof NOT_SHOWN)[number]
    ? Flat<CheckedEnvelope & OpenRecord>
    : EndpointOf<N>['response'] extends { raw: true; body: infer B }
      ? Flat<{ -readonly [K in keyof B]: Checked<B[K]> }>
      : EndpointOf<N>['response'] extends { body: infer B }
        ? Flat<CheckedEnvelope & CheckedBody<B>>
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
