// PLACEHOLDER (written by the commands engineer so the tree builds): the bulk engineer owns
// `access revoke` and replaces this file with the real definition.
import type { Command } from 'commander';

export function register(group: Command): void {
  group.command('revoke').summary('(not implemented yet)');
}
