// The SQL of the mail outbox: the sandbox sends no mail, it keeps what it would send.
import type { Store } from '../db/store.js';

export interface NewMailRow {
  recipients: string[];
  subject: string;
  body: string;
  kind: string;
  created_at: number;
}

export function insertMail(store: Store, m: NewMailRow): void {
  store.run(
    'INSERT INTO outbox(recipients, subject, body, kind, created_at) VALUES (?,?,?,?,?)',
    JSON.stringify(m.recipients),
    m.subject,
    m.body,
    m.kind,
    m.created_at,
  );
}

export interface MailRow {
  id: number;
  recipients: string;
  subject: string;
  body: string;
  kind: string;
  created_at: number;
}

/** Every mail kept, oldest first. */
export function allMail(store: Store): MailRow[] {
  return store.all<MailRow>('SELECT * FROM outbox ORDER BY id');
}
