// The home directory under which bookdist keeps its files when no variable names their place
// (~/.config, ~/.local/share, ~/.local/state, ~/.cache): HOME of the environment given, which is
// what Node's os.homedir() returns when it is set, else os.homedir() (the account's entry in the
// password database). node:os only then: a request loads no other part of it (issue 31).
export function homeDir(env: Record<string, string | undefined>): string {
  return env.HOME || process.getBuiltinModule('node:os').homedir();
}
