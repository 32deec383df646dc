// An ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) holding the OpenAPI document, so that
// tests can validate bodies against any schema of it by JSON pointer.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export interface OpenApiAjv {
  ajv: Ajv2020;
  /** A validator for the schema at `pointer` inside the document (`#/components/schemas/Book`). */
  schema(pointer: string): ValidateFunction;
  /** A validator for the success response of an operation. */
  response(path: string, method: string, status: number): ValidateFunction;
}

const ptr = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function openApiAjv(doc: object): OpenApiAjv {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const schema = (pointer: string) => ajv.compile({ $ref: `openapi.json${pointer}` });
  return {
    ajv,
    schema,
    response: (path, method, status) =>
      schema(`#/paths/${ptr(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`),
  };
}
