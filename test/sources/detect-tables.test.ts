// Detection of the Supabase table exports (CSV header or JSON lines keys) and Keycloak realm and user files.
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/sources/index.js';
import { sniffFormat } from '../../src/sources/detect.js';
import { supabaseTableOf } from '../../src/sources/supabase.js';
import { fixture } from '../support/sources.js';

describe('Supabase and Keycloak detection', () => {
  it.each([
    ['supabase/users.csv', 'supabase'],
    ['supabase/identities.csv', 'supabase'],
    ['supabase/mfa_factors.csv', 'supabase'],
    ['supabase/users.ndjson', 'supabase'],
    ['supabase/identities.ndjson', 'supabase'],
    ['supabase/mfa_factors.ndjson', 'supabase'],
    ['broken/supabase-users.csv', 'supabase'],
    ['keycloak/realm-export.json', 'keycloak'],
    ['keycloak/acme-users-0.json', 'keycloak'],
    ['keycloak/acme-users-1.json', 'keycloak'],
    ['broken/keycloak-otp.json', 'keycloak'],
  ])('%s is %s', async (path, format) => {
    expect(await detectFormat(fixture(path))).toBe(format);
  });

  it('tells the three auth tables apart by their columns', () => {
    expect(supabaseTableOf(['id', 'email', 'encrypted_password'])).toBe('users');
    expect(supabaseTableOf(['instance_id', 'id', 'aud', 'role', 'email', 'email_confirmed_at'])).toBe('users');
    expect(supabaseTableOf(['provider_id', 'user_id', 'identity_data', 'provider'])).toBe('identities');
    expect(supabaseTableOf(['id', 'user_id', 'factor_type', 'secret'])).toBe('mfa_factors');
    expect(supabaseTableOf(['id', 'email', 'secret'])).toBeNull();
  });

  it('sniffs from content: a Supabase identities line is not an Auth0 export, a realm is not canonical', () => {
    expect(sniffFormat('{"provider_id":"1","user_id":"u","identity_data":{"sub":"1"},"provider":"google"}')).toBe('supabase');
    expect(sniffFormat('id,email,encrypted_password,raw_user_meta_data\n1,a@b,,\n', 'export.csv')).toBe('supabase');
    expect(sniffFormat('{\n  "id" : "acme",\n  "realm" : "acme",\n  "users" : [ ]\n}')).toBe('keycloak');
    expect(sniffFormat('[{"id":"u1","username":"a","createdTimestamp":1}]')).toBe('keycloak');
    // A canonical record with a metadata key named realm stays canonical.
    expect(sniffFormat('{"id":"c1","email":"a@example.com","metadata":{"realm":"x"}}')).toBe('canonical');
    // A TOTP list is still a TOTP list.
    expect(sniffFormat('email,secret\n')).toBe('totp');
  });
});
