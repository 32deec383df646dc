// The service's own description: the index, the caller's profile, the endpoint list and the OpenAPI document.
import { endpoints } from '../../spec/endpoints.js';
import { openApiDocument } from '../../spec/openapi.js';
import type { HandlerCtx, HandlerResult } from './context.js';
import type { Promised } from '../../spec/contract.js';

export function index(c: HandlerCtx): Promised<'index'> {
  return {
    api: {
      admin: 'operator@bookdist.example',
      available_versions: [
        {
          version: 'v1',
          version_date: '2015-01-21',
          version_help: '/v1/describe/',
          version_major: 1,
          version_string: '1.0.3',
          version_url: '/v1/',
        },
      ],
      current_version: 'v1',
      // The name the sandbox is reached by: its bound address or `sandbox serve --public-url`, never
      // the request's Host header (which anyone can set).
      host: new URL(c.origin).hostname,
    },
  };
}

export function profile(c: HandlerCtx): Promised<'profile'> {
  const a = c.caller!.account;
  return {
    profile: {
      address_1: a.address_1,
      address_2: a.address_2,
      city: a.city,
      country: a.country,
      nickname: a.nickname,
      state: a.state,
      zip: a.zip,
    },
    scopes: [...c.caller!.scopes].sort(),
  };
}

export function describe(): Promised<'describe'> {
  return {
    endpoints: endpoints().map((e) => ({
      name: e.name,
      methods: [...e.methods],
      path: e.path,
      aliases: [...(e.aliases ?? [])],
      scope: e.scope,
      auth: e.auth,
      summary: e.summary,
      fields: e.fields.map((f) => ({ name: f.name, type: f.type, required: !!f.required, description: f.description })),
    })),
  };
}

let lastDocument: { origin: string; body: Promised<'openapi'> } | undefined;
export function openapi(c: HandlerCtx): HandlerResult<Promised<'openapi'>> {
  // Stryker disable next-line ConditionalExpression: a memo; the document made again for the same origin is the same
  if (lastDocument?.origin !== c.origin) lastDocument = { origin: c.origin, body: openApiDocument(c.origin) };
  return { status: 200, raw: true, body: lastDocument.body };
}
