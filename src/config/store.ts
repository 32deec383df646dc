// Stored profiles (conf). Files 0600 in a 0700 directory.
import { chmodSync, mkdirSync } from 'node:fs';

export interface ProfileData {
  baseUrl?: string;
  storeUrl?: string;
  username?: string;
  /** Path of the RSA private key (PEM); `profile add` copies the key into the config dir. */
  keyFile?: string;
  sharedKey?: string;
  token?: string;
}

export interface StoreShape {
  current?: string;
  profiles: Record<string, ProfileData>;
}

export async function openStore(dir: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {}
  const { default: Conf } = await import('conf');
  const conf = new Conf<StoreShape>({
    cwd: dir,
    configName: 'config',
    projectName: 'bookdist',
    configFileMode: 0o600,
    defaults: { profiles: {} },
  });
  return conf;
}

export async function readStore(dir: string): Promise<StoreShape> {
  // Avoid loading conf at all when there is no config file yet (the common first run).
  const { existsSync } = await import('node:fs');
  if (!existsSync(`${dir}/config.json`)) return { profiles: {} };
  const conf = await openStore(dir);
  return { current: conf.get('current'), profiles: conf.get('profiles') ?? {} };
}
