import { describe, expect, it } from 'vitest';
import { parseHeaderDsn } from './header-dsn.ts';

const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

describe('parseHeaderDsn', () => {
  it('reads the key and project id of a DSN as Errata prints it, with or without a path prefix and port', () => {
    expect(parseHeaderDsn(`http://${KEY}@localhost:8000/42`)).toEqual({ publicKey: KEY, projectId: 42 });
    expect(parseHeaderDsn(`https://${KEY}@errata.example/errata/7`)).toEqual({ publicKey: KEY, projectId: 7 });
  });

  it('reads an old DSN that still carries a secret key', () => {
    expect(parseHeaderDsn(`https://${KEY}:secret@errata.example/3`)).toEqual({ publicKey: KEY, projectId: 3 });
  });

  it.each([
    ['not a string', 42],
    ['not a URL', 'not a dsn'],
    ['another scheme', `ftp://${KEY}@errata.example/1`],
    ['no public key', 'http://errata.example/1'],
    ['a key Errata cannot have made', 'http://<key>@errata.example/1'],
    ['no project id', `http://${KEY}@errata.example/`],
    ['a trailing slash after the project id', `http://${KEY}@errata.example/1/`],
    ['a project id that is not a number', `http://${KEY}@errata.example/web`],
  ])('is no DSN: %s', (_what, value) => {
    expect(parseHeaderDsn(value)).toBeUndefined();
  });
});
