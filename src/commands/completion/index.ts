// `bookdist completion bash|zsh|fish|refresh`, and the hidden `__reference` used by
// scripts/gen-docs.mjs. The declarations (./*.cmd.ts) tied to what runs them; the generators load
// when the command runs.
import { group, runs } from '../define.js';
import { summaryOf } from '../manifest.js';
import { bash, fish, zsh } from './run.cmd.js';
import { refresh } from './refresh.cmd.js';
import { reference } from './reference-run.cmd.js';

const completion = group({
  name: 'completion',
  summary: summaryOf('completion'),
  description: 'Shell completion: the scripts for bash, zsh and fish, and the cache of ids they complete.',
  commands: [
    runs(bash, () => import('./run.js')),
    runs(zsh, () => import('./run.js')),
    runs(fish, () => import('./run.js')),
    runs(refresh, () => import('./refresh.js')),
  ],
});

export const commands = [completion, runs(reference, () => import('./reference-run.js'))];
