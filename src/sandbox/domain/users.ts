// Readers: created by a partner (with a password, or invited by mail) and looked up.
import { bad, HttpError, notFound } from '../errors.js';
import { insertUser, userByEmail, usernameTaken, type UserRow } from '../repo/users.js';
import { hashPassword, isEmail, randomHex, randomPassword } from '../util.js';
import { userView } from '../views.js';
import { ok, type HandlerCtx, type HandlerResult } from './context.js';
import { labelOf, sendMail, userByUsername } from './lookups.js';
import type { Promised } from '../../spec/contract.js';

const PROFILE_FIELDS = ['address_1', 'address_2', 'city', 'zip', 'country', 'state', 'nickname'];

function existingUserConflict(u: UserRow): Promised<'user.create'> {
  return {
    message: 'User with email address already exists',
    value: u.email,
    conflict: true,
    field: 'email',
    username: u.username,
  };
}

export function createUser(c: HandlerCtx, invite: true): HandlerResult<Promised<'user.invite'>>;
export function createUser(c: HandlerCtx, invite: false): HandlerResult<Promised<'user.create'>>;
export function createUser(c: HandlerCtx, invite: boolean): HandlerResult<Promised<'user.invite' | 'user.create'>> {
  const { store, payload: p, now } = c;
  const caller = c.caller!;
  const email = String(p.email).trim();
  if (!isEmail(email)) throw bad('Field "email" must be a valid e-mail address.');
  const profile = (p.profile ?? {}) as Record<string, string>;
  for (const k of Object.keys(profile)) if (!PROFILE_FIELDS.includes(k)) throw bad(`Unknown field "profile.${k}".`);
  let passwd: string;
  if (!invite && (p.passwd !== undefined || p.passwd_confirm !== undefined)) {
    if (p.passwd !== p.passwd_confirm) throw bad('Fields "passwd" and "passwd_confirm" do not match.');
    if (String(p.passwd).length < 6) throw bad('Field "passwd" must have at least 6 characters.');
    passwd = p.passwd;
  } else passwd = randomPassword();
  const label = labelOf(store, caller, p.label);
  return store.tx(() => {
    const existing = userByEmail(store, email);
    if (existing) {
      if (!invite && caller.kind === 'token') return ok(existingUserConflict(existing));
      throw new HttpError(400, 'User with email address already exists', {
        value: existing.email,
        conflict: true,
        field: 'email',
        username: existing.username,
      });
    }
    let username = randomHex(30);
    // Stryker disable next-line ConditionalExpression: accepted: two draws of 30 random hex digits are the same once in 16^30
    while (usernameTaken(store, username)) username = randomHex(30);
    insertUser(store, {
      username,
      email,
      first_name: p.first_name ?? '',
      last_name: p.last_name ?? '',
      password_hash: hashPassword(passwd),
      owner_account_id: caller.account.id,
      label_id: label?.id ?? null,
      date_joined: now,
      address_1: profile.address_1 ?? '',
      address_2: profile.address_2 ?? '',
      city: profile.city ?? '',
      zip: profile.zip ?? '',
      country: profile.country ?? '',
      state: profile.state ?? '',
      nickname: profile.nickname ?? '',
    });
    if (invite) {
      sendMail(
        store,
        now,
        [email],
        `You are invited to read with ${caller.account.full_name}`,
        `Hello ${p.first_name ?? ''}, an account was created for you (${email}). Your password: ${passwd}`,
        'user.invite',
      );
      return ok({ email, message: 'Invitation sent.', username });
    }
    return ok({ email, passwd, message: 'User created.', username });
  });
}

export function userGet(c: HandlerCtx): Promised<'user.get'> {
  return { user: userView(c.store, userByUsername(c.store, c.params.username)) };
}

export function userByEmailHandler(c: HandlerCtx): Promised<'user.email'> {
  // Stryker disable next-line StringLiteral: the route always gives its parameters
  const u = userByEmail(c.store, (c.params.email ?? '').trim());
  if (!u) throw notFound('User not found');
  return { user: userView(c.store, u) };
}
