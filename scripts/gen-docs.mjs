// Regenerates what is derived from the command tree, from the built CLI (run `npm run gen`, which
// builds first): completions/bookdist.bash, completions/_bookdist (zsh), completions/bookdist.fish
// (from `bookdist completion <shell>`), and the README's command reference between
// <!-- commands:start --> and <!-- commands:end --> (from the hidden `bookdist __reference`).
// Only the text between the markers is replaced; the markers are added at the end if missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const START = '<!-- commands:start -->';
const END = '<!-- commands:end -->';

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
  const before = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (before === text) return console.log(`unchanged ${path}`);
  writeFileSync(file, text);
  console.log(`${before === undefined ? 'created' : 'updated'} ${path}`);
}

mkdirSync(`${root}/completions`, { recursive: true });
write('completions/bookdist.bash', bookdist('completion', 'bash'));
write('completions/_bookdist', bookdist('completion', 'zsh'));
write('completions/bookdist.fish', bookdist('completion', 'fish'));

const reference = bookdist('__reference');
const readmePath = `${root}/README.md`;
if (!existsSync(readmePath)) {
  console.log('README.md did not exist: created one with only the command reference markers');
}
const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : '';
const block = `${START}\n${reference.replace(/\n*$/, '\n')}${END}`;
const start = readme.indexOf(START);
const end = readme.indexOf(END);
const next =
  start >= 0 && end > start
    ? readme.slice(0, start) + block + readme.slice(end + END.length)
    : readme.replace(/\n*$/, readme.trim() ? '\n\n' : '') + block + '\n';
write('README.md', next);
