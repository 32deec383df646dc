// The declarations of what ./workspace.ts runs (workspaceCreate, workspaceList, workspaceRm): data
// only, so that the command tree loads none of the run; ./index.ts ties each to its run.
import { argument, option, verb } from '../define.js';
import { WORKSPACE_LIMITS } from './options.js';

const WORKSPACE_NAME = argument('<name>', 'the workspace name (lower-case letters, digits and -, at most 40)');
const WORKSPACE_URL = option(
  '--url <url>',
  'the running sandbox that serves the workspaces (required); the control secret comes from $BOOKDIST_SANDBOX_SECRET or from --db',
);
const WORKSPACE_DB = option(
  '--db <path>',
  'the database that sandbox serves, to read its control secret from (default: sandbox.db in the data directory)',
);
export const workspaceCreate = verb({
  name: 'create',
  summary: 'create an isolated workspace in a running sandbox and print its credentials and base URL',
  description:
    'Makes <db>.workspaces/<name>.db from a snapshot of the sandbox database (--from, see `sandbox snapshot save`) or a fresh seed ' +
    'and serves it on a port of its own (same host): its own base URL, so pages, links and unauthenticated routes reach it too. ' +
    'The workspace has its own partner and limited keys, shared keys, operator token and control secret, printed here (they are ' +
    "what this command is for): requests signed with the main sandbox's or another workspace's credentials are refused in it (401), " +
    'and its orders are seen nowhere else. Workspaces on disk are served again (on new ports) when the sandbox starts again. ' +
    'A snapshot saved in a workspace (`sandbox snapshot save NAME` at its URL, with its control secret) is --from WORKSPACE/NAME. ' +
    'Exit 5 (conflict) when a workspace of that name exists, 3 when there is no such snapshot. ' +
    WORKSPACE_LIMITS,
  args: [WORKSPACE_NAME],
  options: [
    option(
      '--from <snapshot>',
      'start from this snapshot: NAME, one of the sandbox database, or WORKSPACE/NAME, one saved in that workspace (default: a fresh seed)',
    ),
    WORKSPACE_URL,
    WORKSPACE_DB,
  ],
  examples: [
    'bookdist sandbox workspace create job-1 --url http://127.0.0.1:8710',
    'bookdist sandbox snapshot save baseline',
    'bookdist sandbox workspace create job-2 --from baseline --url http://127.0.0.1:8710 --json',
  ],
});
export const workspaceList = verb({
  name: 'list',
  summary: 'list the workspaces a running sandbox serves',
  description:
    'Lists the workspaces of a running sandbox: name, base URL, time created, and the snapshot it was copied from (or the seed).',
  options: [WORKSPACE_URL, WORKSPACE_DB],
  examples: [
    'bookdist sandbox workspace create listed --url http://127.0.0.1:8710',
    'bookdist sandbox workspace list --url http://127.0.0.1:8710 --json',
  ],
});
export const workspaceRm = verb({
  name: 'rm',
  summary: "stop a workspace's server and delete its database",
  description:
    "Stops the workspace's server and deletes its database, key files and snapshots (a workspace made from one of them keeps working). Asks first on a terminal; in scripts it needs --yes. Exit 3 when there is no such workspace.",
  args: [WORKSPACE_NAME],
  options: [WORKSPACE_URL, WORKSPACE_DB],
  examples: [
    'bookdist sandbox workspace create scratch --url http://127.0.0.1:8710',
    'bookdist sandbox workspace rm scratch --yes --url http://127.0.0.1:8710',
  ],
});
