// Shared pieces of the sandbox tests: signed clients for the seeded accounts, raw requests,
// and a checker for the field types of interface.md section 2.
import { expect } from 'vitest';
import { request as undiciRequest } from 'undici';
import { ApiClient } from '../../src/api/client.js';
import type { CallOptions } from '../../src/api/options.js';
import type { ApiResponse } from '../../src/api/answer.js';
import type { EndpointName } from '../../src/spec/contract.js';
import { loadRsaPrivateKey } from '../../src/api/wire.js';
import type { TestSandbox } from '../helpers/sandbox.js';

/**
 * The client as the sandbox's tests hold it: they send what the contract forbids (wrong types,
 * missing fields) to see the sandbox refuse it, and read answers whatever they are. The endpoint
 * names stay checked.
 */
export interface Probe {
  call(
    name: EndpointName,
    args?: CallOptions & { params?: Record<string, string | number>; payload?: Record<string, unknown> },
  ): Promise<ApiResponse<any>>;
  ok(
    name: EndpointName,
    args?: CallOptions & { params?: Record<string, string | number>; payload?: Record<string, unknown> },
  ): Promise<any>;
  request: ApiClient['request'];
  close(): Promise<void>;
}

/** A client seen as a Probe (the same object: only its types are loosened). */
export function probe(client: ApiClient): Probe {
  return client as unknown as Probe;
}

export interface Clients {
  partner: Probe;
  shared: Probe;
  limited: Probe;
  /** Partner credentials plus the operator token for the access API. */
  operator: Probe;
  /** No credentials at all. */
  anon: Probe;
  closeAll(): Promise<void>;
}

export function clients(sb: TestSandbox, opts: { retries?: number } = {}): Clients {
  const base = { baseUrl: sb.url, timeout: 10_000, retries: opts.retries ?? 0 };
  const partner = new ApiClient({
    ...base,
    credentials: {
      kind: 'crypto',
      username: sb.creds.partner.username,
      key: loadRsaPrivateKey(sb.creds.partner.keyPem),
    },
  });
  const shared = new ApiClient({
    ...base,
    credentials: { kind: 'shared', username: sb.creds.partner.username, sharedKey: sb.creds.partner.sharedKey },
  });
  const limited = new ApiClient({
    ...base,
    credentials: {
      kind: 'crypto',
      username: sb.creds.limited.username,
      key: loadRsaPrivateKey(sb.creds.limited.keyPem),
    },
  });
  const operator = new ApiClient({
    ...base,
    credentials: {
      kind: 'crypto',
      username: sb.creds.partner.username,
      key: loadRsaPrivateKey(sb.creds.partner.keyPem),
    },
    accessToken: sb.creds.operatorToken,
  });
  const anon = new ApiClient({ ...base, credentials: { kind: 'none' } });
  return {
    partner: probe(partner),
    shared: probe(shared),
    limited: probe(limited),
    operator: probe(operator),
    anon: probe(anon),
    async closeAll() {
      await Promise.all([partner, shared, limited, operator, anon].map((c) => c.close()));
    },
  };
}

/** A raw HTTP request (for malformed input the client would never send). */
export async function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string>; text: string; json: any }> {
  const res = await undiciRequest(url, {
    method: (opts.method ?? 'GET') as any,
    headers: opts.headers,
    body: opts.body,
  });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = String(v);
  return { status: res.statusCode, headers, text, json };
}

// ---------------------------------------------------------------- shapes

export type Shape = string | { [k: string]: Shape } | [Shape];

/** Check `value` against a shape: 'string', 'integer', 'number', 'boolean', 'datetime', 'date', 'decimal', unions with '|', 'null'. */
export function checkShape(value: unknown, shape: Shape, path = '$'): string[] {
  const errors: string[] = [];
  if (typeof shape === 'string') {
    const ok = shape.split('|').some((t) => isType(value, t));
    if (!ok) errors.push(`${path}: expected ${shape}, got ${JSON.stringify(value)}`);
    return errors;
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path}: expected array, got ${JSON.stringify(value)}`];
    value.forEach((v, i) => errors.push(...checkShape(v, shape[0], `${path}[${i}]`)));
    return errors;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return [`${path}: expected object, got ${JSON.stringify(value)}`];
  for (const [k, s] of Object.entries(shape)) {
    const optional = k.endsWith('?');
    const key = optional ? k.slice(0, -1) : k;
    if (!(key in (value as object))) {
      if (!optional) errors.push(`${path}.${key}: missing`);
      continue;
    }
    errors.push(...checkShape((value as any)[key], s, `${path}.${key}`));
  }
  return errors;
}

function isType(v: unknown, t: string): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    case 'datetime':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v);
    case 'date':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);
    case 'decimal':
      return typeof v === 'string' && /^\d+\.\d{2}$/.test(v);
    case 'object':
      return !!v && typeof v === 'object' && !Array.isArray(v);
    case 'any':
      return true;
    default:
      throw new Error(`unknown type ${t}`);
  }
}

export function expectShape(value: unknown, shape: Shape): void {
  expect(checkShape(value, shape)).toEqual([]);
}

export const ENVELOPE = { code: 'integer', success: 'boolean', test_mode: 'boolean' } as const;
export const ERROR = { code: 'integer', error: 'boolean', test_mode: 'boolean', message: 'string' } as const;

export const PRICING: Shape = {
  id: 'integer',
  currency: 'string',
  price: 'decimal',
  description: 'string',
  description_limit: 'string',
  is_limited: 'boolean',
  limit_days: 'integer',
  other_pricing: 'string|null',
  deactivation_date: 'datetime|null',
};

export const BOOK: Shape = {
  id: 'integer',
  hash_id: 'string',
  title: 'string',
  subtitle: 'string',
  description: 'string',
  author: 'string',
  language: 'string',
  num_pages: 'integer',
  publish_year: 'integer|null',
  sample_url: 'string',
  identifiers: {
    eisbn10: 'string',
    eisbn13: 'string',
    hash_id: 'string',
    id: 'integer',
    isbn10: 'string',
    isbn13: 'string',
    parent_isbn: 'string',
    sku: 'string',
  },
  drm: {
    copy_percent: 'number|null',
    offline_percent: 'number|null',
    sample_percent: 'number|null',
    offline_range: 'string',
    print_allowance_range: 'string',
    print_allowance_percent: 'number',
    sample_page_end: 'integer',
  },
  files: { cover_image: { filename: 'string', url: 'string' }, thumbnail: 'object|null' },
  digital_pricing: [PRICING],
  publisher: { title: 'string', description: 'string', is_active: 'boolean' },
  status: {
    is_active: 'boolean',
    is_html: 'boolean',
    is_processed: 'boolean',
    is_public: 'boolean',
    is_published: 'boolean',
    is_queued: 'boolean',
    processed_date: 'datetime|null',
    queued_date: 'datetime|null',
  },
};

export const USER: Shape = {
  username: 'string',
  first_name: 'string',
  last_name: 'string',
  email: 'string',
  status: {
    is_active: 'boolean',
    verified: 'boolean',
    over_18: 'boolean',
    last_login: 'datetime',
    date_joined: 'datetime',
  },
  profile: {
    address_1: 'string',
    address_2: 'string',
    city: 'string',
    zip: 'string',
    country: 'string',
    state: 'string',
    nickname: 'string',
  },
  owner: { username: 'string', full_name: 'string' },
  permissions: { html_posting: 'boolean', bdp_posting: 'boolean', can_post: 'boolean' },
};

export const ITEM: Shape = {
  id: 'integer',
  order: { id: 'integer' },
  book: { hash_id: 'string', title: 'string', sample_url: 'string' },
  user: { full_name: 'string', username: 'string' },
  expiration_date: 'datetime|null',
  is_active: 'boolean',
  is_digital: 'boolean',
  is_print: 'boolean',
  is_refunded: 'boolean',
  purchase_date: 'datetime',
  purchase_price: 'decimal',
  quantity: 'integer',
};

export const BILLING = { full_name: 'Ada Reader', postal_code: '04101', country: 'US' };

let seq = 0;
export function uniqueEmail(tag = 'u'): string {
  return `${tag}.${process.pid}.${Date.now().toString(36)}.${++seq}@example.com`;
}

/** Create a user through the API and return its username. */
export async function newUser(c: Probe, tag = 'u'): Promise<string> {
  const r = await c.call('user.create', { payload: { email: uniqueEmail(tag), first_name: 'Test', last_name: tag } });
  expect(r.status).toBe(200);
  return r.body.username;
}

/** Buy pricing entries for a user; returns the order. */
export async function buy(
  c: Probe,
  username: string,
  pricing: number[],
  extra: Record<string, unknown> = {},
): Promise<any> {
  const r = await c.call('order.external', {
    payload: {
      username,
      digital_pricing: pricing,
      billing_address: BILLING,
      order_type: 'TestPlan',
      org: 'acme',
      send_email: false,
      ...extra,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.order;
}
