// Base URL parsing and prefixes, table-driven.
import { describe, expect, it } from 'vitest';
import { normaliseAppId, normaliseTenantId, parseBaseUrl, prefixFor, queryString } from '../../src/core-client/paths.js';

describe('parseBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:3567', { hostname: '127.0.0.1', port: 3567, basePath: '', display: 'http://127.0.0.1:3567' }],
    ['http://core.local:3567/', { hostname: 'core.local', port: 3567, basePath: '', display: 'http://core.local:3567' }],
    ['http://h:1/base//', { basePath: '/base', display: 'http://h:1/base' }],
    ['https://core.example.com/a/b', { protocol: 'https:', port: 443, basePath: '/a/b' }],
    ['http://[::1]:8080/x', { hostname: '::1', port: 8080, basePath: '/x', display: 'http://[::1]:8080/x' }],
    ['http://user:secret@h:1', { display: 'http://h:1' }],
  ])('%s', (url, expected) => {
    expect(parseBaseUrl(url)).toMatchObject(expected);
  });

  it.each(['core:3567', 'ftp://h', 'http://h:1/?a=b', 'not a url'])('refuses %s', (url) => {
    expect(() => parseBaseUrl(url)).toThrow(/core URL/);
  });
});

describe('prefixes', () => {
  it.each([
    ['tenant', 'public', 'public', ''],
    ['tenant', 'public', 't1', '/t1'],
    ['tenant', 'a1', 'public', '/appid-a1'],
    ['tenant', 'a1', 't1', '/appid-a1/t1'],
    ['app', 'a1', 't1', '/appid-a1'],
    ['app', 'public', 't1', ''],
    ['none', 'a1', 't1', ''],
  ] as const)('%s scope, app %s, tenant %s -> "%s"', (scope, app, tenant, prefix) => {
    expect(prefixFor(scope, app, tenant)).toBe(prefix);
  });

  it('normalises and checks ids like the core', () => {
    expect(normaliseTenantId(' T-1 ')).toBe('t-1');
    expect(normaliseTenantId(undefined)).toBe('public');
    expect(normaliseAppId('App2')).toBe('app2');
    for (const bad of ['recipe', 'users', 'hello', 'config', 'a_b', '', 'a/b']) expect(() => normaliseTenantId(bad)).toThrow();
    expect(() => normaliseAppId('a.b')).toThrow();
  });

  it('encodes query values and skips undefined ones', () => {
    expect(queryString({ userId: 'a b&c', n: 5, x: undefined })).toBe('?userId=a%20b%26c&n=5');
    expect(queryString({})).toBe('');
  });
});
