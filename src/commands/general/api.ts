import { readFile } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { ExitCode, usageError } from '../../errors.js';
import { exitCodeForStatus, UnverifiedAnswer } from '../../api/errors.js';
import type { ApiResponse } from '../../api/answer.js';
import { endpointFor } from '../../spec/routes.js';
import { emit } from '../../output/index.js';
import { readAll } from '../../util/io.js';
import type { VerbInput } from '../define.js';
import type { api } from './api.cmd.js';

interface Options {
  method: 'GET' | 'POST';
  path: string;
  payload?: Record<string, unknown>;
  /** The --input text, sent verbatim as the `request` field when nothing was added to it. */
  requestText?: string;
  auth: 'partner' | 'access' | 'none';
  host: 'api' | 'store';
  include: boolean;
}

function parseField(spec: string, typed: boolean): [string, unknown] {
  const i = spec.indexOf('=');
  if (i <= 0) throw usageError(`Field "${spec}" must look like key=value (-f/-F).`);
  const key = spec.slice(0, i);
  const raw = spec.slice(i + 1);
  if (!typed) return [key, raw];
  if (raw === 'true' || raw === 'false' || raw === 'null' || /^-?\d+(\.\d+)?$/.test(raw) || /^[[{"]/.test(raw)) {
    try {
      return [key, JSON.parse(raw)];
    } catch {
      throw usageError(`Field "${key}" is not valid JSON: ${raw}`);
    }
  }
  return [key, raw];
}

export async function parse({ args, opts: o }: VerbInput<typeof api>, ctx: Context): Promise<Options> {
  const { method: methodArg, path: pathArg } = args;
  const method = methodArg.toUpperCase();
  if (method !== 'GET' && method !== 'POST') throw usageError(`Method must be GET or POST, not "${methodArg}".`);
  if (/^[a-z]+:\/\//i.test(pathArg)) {
    throw usageError('Give a path, not a URL: the base URL comes from the profile (or --base-url).');
  }
  const path = pathArg.startsWith('/') ? pathArg : '/' + pathArg;
  let payload: Record<string, unknown> | undefined;
  let inputText: string | undefined;
  if (o.input) {
    const text =
      o.input === '-'
        ? await readAll(ctx.io.stdin)
        : await readFile(o.input, 'utf8').catch(() => {
            throw usageError(`Cannot read --input file ${o.input}.`);
          });
    try {
      payload = JSON.parse(text);
    } catch {
      throw usageError('--input must be a JSON object.');
    }
    if (!payload || typeof payload !== 'object' || Array.isArray(payload))
      throw usageError('--input must be a JSON object.');
    if (payload.request && typeof payload.request === 'object') payload = payload.request as Record<string, unknown>;
    else inputText = text.trim();
  }
  const fields = [
    ...(o.field ?? []).map((f) => parseField(f, false)),
    ...(o.rawField ?? []).map((f) => parseField(f, true)),
  ];
  if (fields.length) payload = { ...(payload ?? {}), ...Object.fromEntries(fields) };
  const auth =
    o.auth ?? (path === '/' || path === '/index/' ? 'none' : path.startsWith('/v1/access/') ? 'access' : 'partner');
  const host = o.store || path.startsWith('/api/') || path.startsWith('/checkout') ? 'store' : 'api';
  // A raw request: the --input text is what gets sent and signed, byte for byte, unless
  // fields were added to it or it had to be unwrapped from {"request": {...}}.
  const requestText = method === 'POST' && inputText !== undefined && !fields.length ? inputText : undefined;
  return { method, path, payload, requestText, auth, host, include: Boolean(o.include) };
}

/** The status line and headers (-i), and the body as the service sent it (its JSON, when it is JSON). */
async function show(ctx: Context, o: Options, res: ApiResponse, body: boolean): Promise<void> {
  if (o.include) {
    ctx.io.stderr.write(`HTTP ${res.status}\n`);
    for (const [k, v] of Object.entries(res.headers)) ctx.io.stderr.write(`${k}: ${v}\n`);
  }
  if (body) await emit(ctx, res.body);
}

/** A GET's fields as query values: scalars as given, an object or array as its JSON (never "[object Object]"). */
function queryOf(payload: Record<string, unknown> = {}): Record<string, string | number | boolean | null | undefined> {
  return Object.fromEntries(
    Object.entries(payload).map(([k, v]) => [
      k,
      v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? v
        : JSON.stringify(v),
    ]),
  );
}

export async function run(o: Options, ctx: Context): Promise<number> {
  const api = await ctx.api();
  const [pathOnly, qs] = o.path.split('?', 2);
  const query =
    o.method === 'GET' ? { ...Object.fromEntries(new URLSearchParams(qs ?? '')), ...queryOf(o.payload) } : undefined;
  // The answer gets the checks of a typed call that apply when nothing reads its members (status,
  // a JSON object, the envelope's success flags; a redirect never followed, except checkout's): an
  // answer that is not that is an error, a write's outcome unknown (and so in the ledger; which
  // calls write, the endpoint the path goes to says, else any POST). What the service said is
  // printed as it is either way: its JSON on stdout, then the error.
  const endpoint = endpointFor(o.method, pathOnly, o.host);
  let res: ApiResponse;
  try {
    res = await api.request({
      method: o.method,
      path: o.method === 'GET' ? pathOnly : o.path,
      payload: o.method === 'POST' ? (o.payload ?? {}) : undefined,
      requestText: o.requestText,
      query,
      auth: o.auth,
      host: o.host,
      endpoint,
      raw: true,
    });
  } catch (e) {
    if (e instanceof UnverifiedAnswer && e.response) await show(ctx, o, e.response, e.response.format === 'json');
    throw e;
  }
  await show(ctx, o, res, true);
  if (res.status >= 400) {
    const code = exitCodeForStatus(res.status, res.body);
    if (!ctx.globals.quiet)
      ctx.io.stderr.write(`bookdist: HTTP ${res.status}${res.body?.message ? `: ${res.body.message}` : ''}\n`);
    return code;
  }
  return ExitCode.OK;
}
