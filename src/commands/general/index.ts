// General endpoints: status (GET /), whoami (GET /profile/), describe, and raw `api` requests.
// Each verb's declaration (./<verb>.cmd.ts) is tied to the module that runs it, loaded only when it runs.
import { runs } from '../define.js';
import { status } from './status.cmd.js';
import { whoami } from './whoami.cmd.js';
import { describe } from './describe.cmd.js';
import { api } from './api.cmd.js';

export const commands = [
  runs(status, () => import('./status.js')),
  runs(whoami, () => import('./whoami.js')),
  runs(describe, () => import('./describe.js')),
  runs(api, () => import('./api.js')),
];
