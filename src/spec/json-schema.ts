// Types only (nothing here exists at run time): a JSON Schema of the dialect the endpoint table
// and src/spec/schemas.ts write, and `FromSchema`, the TypeScript type of the values it describes.
// The same literal schemas give the OpenAPI document (src/spec/openapi.ts) and, through
// src/spec/contract.ts, the types of each endpoint's payload and answer.

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1). `{ $ref: 'Book' }` names a schema of src/spec/schemas.ts. */
export type Schema = { [k: string]: unknown };

/** A map of named schemas that `{ $ref: name }` points into. */
type Defs = { readonly [name: string]: unknown };

/**
 * The values schema `S` describes, as far as this dialect goes: `type` (one or a list, `null`
 * included), `const`, `enum`, `items`, `properties` with `required`, `$ref` into `D`, `allOf`.
 * An object without `properties` (a shape the interface leaves "not shown") is an open record.
 * Objects with `properties` list the members the interface gives; members a deployment adds are
 * accepted (TypeScript's types are open) and reach JSON output, but a card cannot misspell one.
 */
export type FromSchema<S, D extends Defs> = S extends { readonly $ref: infer N extends keyof D & string }
  ? FromSchema<D[N], D>
  : S extends { readonly allOf: readonly [infer A, ...infer Rest] }
    ? Flat<AllOf<FromSchema<A, D>, Rest, D>>
    : S extends { readonly const: infer C }
      ? C
      : S extends { readonly enum: readonly (infer E)[] }
        ? E
        : S extends { readonly type: infer T }
          ? ByType<T extends readonly (infer U)[] ? U : T, S, D>
          : unknown;

/** `T` and each schema of `L`; a schema of `required` alone makes those members of `T` required. */
type AllOf<T, L, D extends Defs> = L extends readonly [infer A, ...infer Rest]
  ? AllOf<
      A extends { readonly required: readonly (infer K)[]; readonly type?: never; readonly $ref?: never }
        ? T & { [M in K & keyof T]-?: Exclude<T[M], undefined> }
        : T & FromSchema<A, D>,
      Rest,
      D
    >
  : T;

type ByType<T, S, D extends Defs> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { readonly items: infer I }
            ? FromSchema<I, D>[]
            : unknown[]
          : T extends 'object'
            ? S extends { readonly properties: infer P }
              ? ObjectOf<P, S extends { readonly required: readonly (infer R)[] } ? R : never, D>
              : OpenRecord
            : unknown;

/** A record whose members the interface does not give (decisions.md: shapes "not shown"). */
export type OpenRecord = { [member: string]: unknown };

type ObjectOf<P, R, D extends Defs> = Flat<
  { -readonly [K in keyof P & R]: FromSchema<P[K], D> } & { -readonly [K in Exclude<keyof P, R>]?: FromSchema<P[K], D> }
>;

/** One object type instead of an intersection (what an editor shows on hover). */
export type Flat<T> = T extends object ? { [K in keyof T]: T[K] } : T;
