// How a user looks to people, and the conflict answer of invite/create.
import type { ApiClient } from '../../../api/client.js';
import { isAnswer } from '../../../api/answer.js';
import type { Answer, ErrorBody, Payload, Verified } from '../../../spec/contract.js';
import { CliError, ExitCode } from '../../../errors.js';
import type { Style } from '../../../output/index.js';
import { cellText as t } from '../../../output/format.js';
import { flags, kv, when } from '../../render.js';

export function userCard(u: Verified<'User'>, s: Style): string {
  // A verified user has its username; the rest may be absent or of another type (read with `?.`).
  const st = u.status;
  const p = u.profile;
  const perms = u.permissions;
  const owner = u.owner;
  const name = [u.first_name, u.last_name].filter(Boolean).join(' ');
  const address = [p?.address_1, p?.address_2, p?.city, p?.state, p?.zip, p?.country].filter(Boolean).join(', ');
  return kv(s, [
    ['Username', s.bold(u.username)],
    ['Name', name],
    ['Email', u.email],
    ['Nickname', p?.nickname],
    ['Address', address],
    [
      'Status',
      flags(s, st ?? undefined, [
        ['is_active', 'active'],
        ['verified', 'verified'],
        ['over_18', 'over 18'],
      ]),
    ],
    ['Joined', when(st?.date_joined)],
    ['Last login', when(st?.last_login)],
    ['Owner', owner?.username ? `${owner.full_name ? `${t(owner.full_name)} ` : ''}(${t(owner.username)})` : undefined],
    [
      'Permissions',
      (
        [
          ['can_post', 'can post'],
          ['html_posting', 'html posting'],
          ['bdp_posting', 'bdp posting'],
        ] as const
      )
        .filter(([k]) => perms?.[k] === true)
        .map(([, w]) => w)
        .join(', ') || 'none',
    ],
  ]);
}

/** A conflict answer (400 with conflict fields, or 200 with conflict: true) as exit 5 naming the user. */
function conflictError(body: Answer<'user.invite' | 'user.create'> | ErrorBody, email: string): CliError {
  const existing = typeof body.username === 'string' ? body.username : undefined;
  const msg = (typeof body.message === 'string' && body.message) || `User with email address ${email} already exists`;
  return new CliError(
    `${msg.replace(/\.$/, '')}${existing ? ` (username ${existing}; \`bookdist user get ${existing}\`)` : ''}.`,
    ExitCode.CONFLICT,
    {
      value: ('value' in body ? body.value : undefined) ?? email,
      field: ('field' in body ? body.field : undefined) ?? 'email',
      username: existing,
      conflict: true,
    },
    typeof body.code === 'number' ? body.code : undefined,
  );
}

/** POST a user-creating endpoint; a conflict becomes exit 5, other errors the usual ApiError. */
export async function createUser(
  api: ApiClient,
  name: 'user.invite',
  payload: Payload<'user.invite'>,
): Promise<Answer<'user.invite'>>;
export async function createUser(
  api: ApiClient,
  name: 'user.create',
  payload: Payload<'user.create'>,
): Promise<Answer<'user.create'>>;
export async function createUser(
  api: ApiClient,
  name: 'user.invite' | 'user.create',
  payload: Payload<'user.create'>,
): Promise<Answer<'user.invite' | 'user.create'>> {
  const { isConflict, toApiError } = await import('../../../api/errors.js');
  const res = await api.call(name, { payload });
  if (isConflict(res.status, res.body) || ('conflict' in res.body && res.body.conflict === true))
    throw conflictError(res.body, payload.email);
  if (!isAnswer(res)) throw toApiError(res);
  return res.body;
}
