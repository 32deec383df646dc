// The SQL of readers (users), as typed rows. The rules (who may create whom, what a profile
// holds) live in ../domain/users.ts.
import type { Store } from '../db/store.js';

export interface UserRow {
  id: number;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  password_hash: string;
  owner_account_id: number | null;
  label_id: number | null;
  is_active: number;
  verified: number;
  over_18: number;
  last_login: number | null;
  date_joined: number;
  address_1: string;
  address_2: string;
  city: string;
  zip: string;
  country: string;
  state: string;
  nickname: string;
  html_posting: number;
  bdp_posting: number;
  can_post: number;
}

export interface NewUserRow {
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  password_hash: string;
  owner_account_id: number;
  label_id: number | null;
  date_joined: number;
  address_1: string;
  address_2: string;
  city: string;
  zip: string;
  country: string;
  state: string;
  nickname: string;
}

/** The user with this username (already lower case). */
export function userByUsername(store: Store, username: string): UserRow | undefined {
  return store.get<UserRow>('SELECT * FROM users WHERE username = ?', username);
}

/** The user with this e-mail address (the column compares without case). */
export function userByEmail(store: Store, email: string): UserRow | undefined {
  return store.get<UserRow>('SELECT * FROM users WHERE email = ?', email);
}

export function userById(store: Store, id: number): UserRow | undefined {
  return store.get<UserRow>('SELECT * FROM users WHERE id = ?', id);
}

export function usernameById(store: Store, id: number): string | undefined {
  return store.get<{ username: string }>('SELECT username FROM users WHERE id = ?', id)?.username;
}

export function usernameTaken(store: Store, username: string): boolean {
  return !!store.get('SELECT 1 FROM users WHERE username = ?', username);
}

export function insertUser(store: Store, u: NewUserRow): number {
  return store.run(
    `INSERT INTO users(username, email, first_name, last_name, password_hash, owner_account_id, label_id, date_joined,
         address_1, address_2, city, zip, country, state, nickname) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    u.username,
    u.email,
    u.first_name,
    u.last_name,
    u.password_hash,
    u.owner_account_id,
    u.label_id,
    u.date_joined,
    u.address_1,
    u.address_2,
    u.city,
    u.zip,
    u.country,
    u.state,
    u.nickname,
  ).lastInsertRowid;
}

export function userContact(store: Store, id: number): { username: string; email: string } | undefined {
  return store.get<{ username: string; email: string }>('SELECT username, email FROM users WHERE id = ?', id);
}

export type UserListRow = Pick<UserRow, 'username' | 'email' | 'first_name' | 'last_name'>;

/** The newest 50 users an account created. */
export function recentUsersOf(store: Store, accountId: number): UserListRow[] {
  return store.all<UserListRow>(
    'SELECT username, email, first_name, last_name FROM users WHERE owner_account_id = ? ORDER BY id DESC LIMIT 50',
    accountId,
  );
}

export function usernameByEmail(store: Store, email: string): string | undefined {
  return store.get<{ username: string }>('SELECT username FROM users WHERE email = ?', email)?.username;
}
