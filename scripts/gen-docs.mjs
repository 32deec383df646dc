// Regenerates what is derived from the command tree, from the built CLI (run `npm run gen`, which
// builds first): completions/bookdist.bash, completions/_bookdist (zsh), completions/bookdist.fish
// (from `bookdist completion <shell>`), the command reference docs/commands.md and the man page
// man/bookdist.1 (from the hidden `bookdist __reference [--man]`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function bookdist(...args) {
  const r = spawnSync(process.execPath, [`${root}/bin/bookdist`, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', BOOKDIST_CONFIG_DIR: `${root}/.bookdist-tmp/gen-docs` },
  });
  if (r.status !== 0 || !r.stdout) {
    process.stderr.write(`gen-docs: \`bookdist ${args.join(' ')}\` failed (exit ${r.status}):\n${r.stderr}`);
    process.exit(1);
  }
  return r.stdout;
}

function write(path, text) {
  const file = `${root}/${path}`;
  mkdirSync(file.replace(/\/[^/]*$/, ''), { recursive: true });
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (before === text) return console.log(`unchanged ${path}`);
  writeFileSync(file, text);
  console.log(`${before === undefined ? 'created' : 'updated'} ${path}`);
}

write('completions/bookdist.bash', bookdist('completion', 'bash'));
write('completions/_bookdist', bookdist('completion', 'zsh'));
write('completions/bookdist.fish', bookdist('completion', 'fish'));
write('docs/commands.md', bookdist('__reference'));
write('man/bookdist.1', bookdist('__reference', '--man'));
