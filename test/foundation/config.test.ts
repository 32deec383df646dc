import { statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { configDir, dataDir, stateDir } from '../../src/config/paths.js';
import { readStore, updateStore, writeKeyCopy, removeKeyCopy } from '../../src/config/store.js';
import { tempDir } from './helpers.js';

const stored = {
  current: 'prod',
  profiles: {
    prod: { baseUrl: 'https://prod.example', username: 'produser', keyFile: '/keys/prod.pem', token: 'prod-token' },
    stage: {
      baseUrl: 'https://stage.example',
      storeUrl: 'https://store.stage.example',
      username: 'stageuser',
      sharedKey: 'stage-shared',
    },
  },
};
const load =
  (s: any = stored) =>
  async () =>
    s;

describe('resolution: flag > environment > profile > default', () => {
  it('takes the current profile when nothing else is given; store URL defaults to the base URL', async () => {
    const c = await resolveConfig({ env: {}, flags: {}, loadStore: load() });
    expect(c.profile).toEqual({ value: 'prod', source: 'profile', from: 'current profile' });
    expect(c.baseUrl).toEqual({ value: 'https://prod.example', source: 'profile', from: 'prod' });
    expect(c.storeUrl).toEqual({ value: 'https://prod.example', source: 'default', from: 'base URL' });
    expect(c.keyFile?.value).toBe('/keys/prod.pem');
    expect(c.token?.value).toBe('prod-token');
    expect(c.embedded).toBe(false);
  });
  it('the environment beats the profile, and flags beat the environment', async () => {
    const env = {
      BOOKDIST_PROFILE: 'stage',
      BOOKDIST_BASE_URL: 'http://env.example',
      BOOKDIST_USERNAME: 'envuser',
      BOOKDIST_SHARED_KEY: 'env-shared',
    };
    const e = await resolveConfig({ env, flags: {}, loadStore: load() });
    expect(e.profile).toEqual({ value: 'stage', source: 'env', from: 'BOOKDIST_PROFILE' });
    expect(e.baseUrl).toEqual({ value: 'http://env.example', source: 'env', from: 'BOOKDIST_BASE_URL' });
    expect(e.storeUrl).toEqual({ value: 'https://store.stage.example', source: 'profile', from: 'stage' });
    expect(e.username).toEqual({ value: 'envuser', source: 'env', from: 'BOOKDIST_USERNAME' });
    expect(e.sharedKey).toEqual({ value: 'env-shared', source: 'env', from: 'BOOKDIST_SHARED_KEY' });
    const f = await resolveConfig({
      env,
      flags: { profile: 'prod', baseUrl: 'http://flag.example' },
      loadStore: load(),
    });
    expect(f.profile).toEqual({ value: 'prod', source: 'flag' });
    expect(f.baseUrl).toEqual({ value: 'http://flag.example', source: 'flag' });
    expect(f.storeUrl).toEqual({ value: 'http://flag.example', source: 'default', from: 'base URL' });
    expect(f.sharedKey?.source).toBe('env');
    expect(f.keyFile).toEqual({ value: '/keys/prod.pem', source: 'profile', from: 'prod' });
  });
  it('BOOKDIST_STORE_URL sets the store host apart', async () => {
    const c = await resolveConfig({
      env: { BOOKDIST_STORE_URL: 'http://store.example' },
      flags: {},
      loadStore: load(),
    });
    expect(c.storeUrl).toEqual({ value: 'http://store.example', source: 'env', from: 'BOOKDIST_STORE_URL' });
  });
  it('defaults to the built-in sandbox profile with no store and no base URL', async () => {
    const c = await resolveConfig({ env: {}, flags: {}, loadStore: load({ profiles: {} }) });
    expect(c.profile).toEqual({ value: 'sandbox', source: 'default' });
    expect(c.embedded).toBe(true);
    const u = await resolveConfig({
      env: { BOOKDIST_BASE_URL: 'http://x.example' },
      flags: {},
      loadStore: load({ profiles: {} }),
    });
    expect(u.embedded).toBe(false);
  });
  it('an unknown profile is a usage error naming the known ones', async () => {
    await expect(resolveConfig({ env: {}, flags: { profile: 'nope' }, loadStore: load() })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/No profile named "nope".*prod, stage/),
    });
  });
  it('the config directory: BOOKDIST_CONFIG_DIR, then XDG_CONFIG_HOME', () => {
    expect(configDir({ BOOKDIST_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/b' })).toBe('/a');
    expect(configDir({ XDG_CONFIG_HOME: '/b' })).toBe(join('/b', 'bookdist'));
  });
  it("the data and state directories, without variables of their own: under the environment's HOME", () => {
    expect(configDir({ HOME: '/h' })).toBe(join('/h', '.config', 'bookdist'));
    expect(dataDir({ HOME: '/h' })).toBe(join('/h', '.local', 'share', 'bookdist'));
    expect(stateDir({ HOME: '/h' })).toBe(join('/h', '.local', 'state', 'bookdist'));
    // No HOME: the account's home, as os.homedir() finds it.
    expect(configDir({})).toBe(join(homedir(), '.config', 'bookdist'));
  });
});

describe('store files', () => {
  const t = tempDir();
  it('writes config.json 0600 in a 0700 directory, and key copies 0600', async () => {
    const dir = join(t.dir, 'cfg');
    expect(await readStore(dir)).toEqual({ profiles: {} });
    await updateStore(dir, (s) => {
      s.profiles.a = { baseUrl: 'http://a.example' };
      s.current = 'a';
    });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(await readStore(dir)).toEqual({ current: 'a', profiles: { a: { baseUrl: 'http://a.example' } } });
    const key = writeKeyCopy(dir, 'a', 'PEM');
    expect(key).toBe(join(dir, 'keys', 'a.pem'));
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'keys')).mode & 0o777).toBe(0o700);
    expect(removeKeyCopy(dir, '/etc/passwd')).toBe(false);
    expect(removeKeyCopy(dir, key)).toBe(true);
    await updateStore(dir, (s) => {
      s.current = undefined;
    });
    expect((await readStore(dir)).current).toBeUndefined();
  });

  it('reads what conf wrote without conf, and a broken file is a clear error naming it', async () => {
    const dir = join(t.dir, 'read');
    await updateStore(dir, (s) => {
      s.profiles.b = { baseUrl: 'http://b.example', username: 'bu', sharedKey: 'sk' };
      s.current = 'b';
    });
    // what the plain read returns is what conf itself holds
    const { default: Conf } = await import('conf');
    const conf = new Conf<any>({ cwd: dir, configName: 'config', projectName: 'bookdist' });
    expect(await readStore(dir)).toEqual({ current: conf.get('current'), profiles: conf.get('profiles') });
    writeFileSync(join(dir, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const err = await readStore(dir).catch((e) => e);
    expect(err).toMatchObject({ name: 'CliError', exitCode: 1 });
    expect(err.message).toBe(
      `The config file ${join(dir, 'config.json')} is not valid JSON. Fix it, or remove it and add the profiles again (\`bookdist profile add\`).`,
    );
    t.cleanup();
  });
});
