// What the request handlers of a running sandbox share: its database, its worker, and what it
// knows about the address it listens on.
import type { Store } from '../db/store.js';
import type { Journal, RequestNote } from '../journal/journal.js';
import type { WorkspaceHost } from '../workspaces/workspaces.js';

export interface SandboxCore {
  store: Store;
  /** Time the worker takes per queued book. */
  delayMs: number;
  /** Run the processing worker once (now). */
  tick: () => void;
  /** The TCP port the server listens on (set once it listens). */
  port: number;
  /**
   * `scheme://host:port` of the address the server is bound to, or the configured public URL
   * (set once it listens): what links in answers are built from, never the Host header.
   */
  baseUrl: string;
  /**
   * Host names (lower case, IPv6 in brackets, no port) that the control routes answer: the
   * address the server is bound to, and names given with `allowHosts`.
   */
  allowedHosts: ReadonlySet<string>;
  /** The request journal (journal/), unless the server runs without one. */
  journal?: Journal;
  /** The workspaces this sandbox serves (workspaces/), when it serves them (not a workspace's own server, not :memory:). */
  workspaces?: WorkspaceHost;
}

/** One request as the dispatcher saw it: its method, URL, normalised headers and origin. */
export interface RequestInfo {
  method: string;
  url: URL;
  /** Header names lower-cased, `_` read as `-`, first value wins. */
  headers: Record<string, string>;
  /** The Host header when it is well-formed, else `127.0.0.1:<port>`. */
  host: string;
  /** The sandbox's own base URL (SandboxCore.baseUrl), for links in answers. */
  origin: string;
  /** The request's journal note (absent without a journal, and for the journal's own routes). */
  note?: RequestNote;
}
