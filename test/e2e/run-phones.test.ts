// Phone numbers as the reference core stores them (Utils.normalizeIfPhoneNumber: libphonenumber, E.164), through
// validate, run and the sandbox, with the reference's own examples and a number that cannot be parsed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/spawn.js';
import { allUsers, cli, client, LICENSE, summaryOf } from '../support/cli.js';

const BCRYPT = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const users = [
  { id: 'nz', phoneNumber: '+640223334444' },
  { id: 'us', phoneNumber: '+1 650-555-1234' },
  { id: 'uk', email: 'uk@example.test', password: { hash: BCRYPT }, otpFactors: { phoneNumber: '+44 (0)20 7946 0958' } },
];

let dir: string;
let sandbox: RunningSandbox;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'am-e2e-phone-'));
  writeFileSync(join(dir, 'users.ndjson'), users.map((u) => JSON.stringify(u)).join('\n') + '\n');
  writeFileSync(join(dir, 'bad.ndjson'), JSON.stringify({ id: 'bad', phoneNumber: '+999 123' }) + '\n');
  writeFileSync(
    join(dir, 'twins.ndjson'),
    [
      { id: 'a', phoneNumber: '+640223334444' },
      { id: 'b', phoneNumber: '+64223334444' },
    ]
      .map((u) => JSON.stringify(u))
      .join('\n') + '\n',
  );
  sandbox = await startSandbox({ store: join(dir, 'store.json'), licenseKey: LICENSE });
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('phone numbers', () => {
  it('validate warns, naming the record, where normalisation changes the digits', async () => {
    const r = await cli(['validate', 'users.ndjson'], dir);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/\(id nz\) phoneNumber: the core stores this number as \+64223334444/);
    expect(out).toMatch(/\(id uk\) otpFactors\.phoneNumber: the core stores this number as \+442079460958/);
    expect(out).not.toMatch(/\(id us\)/);
  });

  it('validate refuses a number it cannot parse, and finds two numbers that differ only by the trunk 0', async () => {
    const bad = await cli(['validate', 'bad.ndjson'], dir);
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/\(id bad\) phoneNumber: the phone number cannot be read as an international number/);
    const twins = await cli(['validate', 'twins.ndjson'], dir);
    expect(twins.exitCode).toBe(1);
    expect(twins.stdout + twins.stderr).toMatch(/\(id b\) phoneNumber: the sign-in phone number is also used by .*\(id a\)/);
  });

  it('run stores them as the reference core would, and verify compares in that form', async () => {
    const r = await cli(['run', 'users.ndjson', '--core', sandbox.url, '--yes', '--journal', 'j.ndjson', '--json'], dir);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ total: 3, imported: 3, failed: 0 });
    const phones = (await allUsers(client(sandbox.url))).flatMap((u) => u.phoneNumbers).sort();
    expect(phones).toEqual(['+16505551234', '+442079460958', '+64223334444']);
    const v = await cli(['verify', 'users.ndjson', '--core', sandbox.url, '--json'], dir);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(summaryOf(v.stdout)).toMatchObject({ total: 3, ok: 3 });
  });

  it('the sandbox normalises what it is sent as the reference does; what does not parse is only trimmed', async () => {
    const core = client(sandbox.url);
    const code = await core.createCode({ phoneNumber: ' +44 (0)20 7946 0999 ' });
    expect(code.status).toBe('OK');
    if (code.status !== 'OK') return;
    const r = await core.consumeCode({
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: code.userInputCode,
    });
    expect(r.status === 'OK' && r.user.phoneNumbers).toEqual(['+442079460999']);
    const odd = await core.createCode({ phoneNumber: ' +999 123 ' });
    expect(odd.status).toBe('OK');
    if (odd.status !== 'OK') return;
    const o = await core.consumeCode({ preAuthSessionId: odd.preAuthSessionId, deviceId: odd.deviceId, userInputCode: odd.userInputCode });
    expect(o.status === 'OK' && o.user.phoneNumbers).toEqual(['+999 123']);
    core.close();
  });
});
