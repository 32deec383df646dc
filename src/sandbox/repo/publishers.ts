// The SQL of publishers as the book views read them (a handful of rows, memoised by the views).
import type { Store } from '../db/store.js';

export interface PublisherFullRow {
  id: number;
  title: string;
  description: string;
  is_active: number;
}

export function allPublishers(store: Store): PublisherFullRow[] {
  return store.all<PublisherFullRow>('SELECT * FROM publishers');
}
