// ERRATA_OIDC_*: single sign-on is on only with its four settings together, and a half or wrong
// configuration stops start-up naming what to fix, never echoing the client secret.
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

const FULL = {
  ERRATA_OIDC_ISSUER: 'https://id.example.com/realms/main',
  ERRATA_OIDC_CLIENT_ID: 'errata',
  ERRATA_OIDC_CLIENT_SECRET: 'hunter2-client-secret',
  ERRATA_OIDC_ROLES: 'errata-owners=owner,errata-devs=member',
};

const messageOf = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('loadConfig accepted the configuration');
};

describe('loadConfig: OpenID Connect', () => {
  it('is off without an issuer', () => {
    expect(loadConfig({}).oidc).toBeUndefined();
  });

  it('reads the four settings with the defaults for the rest', () => {
    const { oidc } = loadConfig(FULL);
    expect(oidc).toMatchObject({
      issuer: FULL.ERRATA_OIDC_ISSUER,
      clientId: 'errata',
      clientSecret: 'hunter2-client-secret',
      roleClaim: 'groups',
      scopes: 'openid email profile',
      createUsers: false,
      name: 'single sign-on',
      allowHttp: false,
    });
    expect([...oidc!.roles]).toEqual([
      ['errata-owners', 'owner'],
      ['errata-devs', 'member'],
    ]);
  });

  it('reads the optional settings', () => {
    const { oidc } = loadConfig({
      ...FULL,
      ERRATA_OIDC_ROLE_CLAIM: 'roles',
      ERRATA_OIDC_SCOPES: ' openid  email groups ',
      ERRATA_OIDC_CREATE_USERS: 'true',
      ERRATA_OIDC_NAME: 'Keycloak',
    });
    expect(oidc).toMatchObject({ roleClaim: 'roles', scopes: 'openid email groups', createUsers: true, name: 'Keycloak' });
  });

  it('refuses half a configuration, naming each missing variable and the ones that are set', () => {
    const message = messageOf({ ERRATA_OIDC_ISSUER: FULL.ERRATA_OIDC_ISSUER, ERRATA_OIDC_CLIENT_SECRET: 'hunter2' });
    expect(message).toContain(
      'ERRATA_OIDC_CLIENT_ID: missing: single sign-on needs ERRATA_OIDC_ISSUER, ERRATA_OIDC_CLIENT_ID, ERRATA_OIDC_CLIENT_SECRET, ERRATA_OIDC_ROLES together (ERRATA_OIDC_ISSUER, ERRATA_OIDC_CLIENT_SECRET set)',
    );
    expect(message).toContain('ERRATA_OIDC_ROLES: missing');
    expect(message).not.toContain('ERRATA_OIDC_ISSUER: missing');
    expect(message).not.toContain('hunter2');
  });

  it('refuses a bad role mapping, scopes without openid, and a plain-http issuer off this machine', () => {
    expect(messageOf({ ...FULL, ERRATA_OIDC_ROLES: 'errata-owners=root' })).toContain(
      'ERRATA_OIDC_ROLES="errata-owners=root": "errata-owners=root" names the role "root": use owner, admin or member',
    );
    expect(messageOf({ ...FULL, ERRATA_OIDC_SCOPES: 'email profile' })).toContain('includes openid');
    expect(messageOf({ ...FULL, ERRATA_OIDC_ISSUER: 'http://id.example.com' })).toContain(
      'ERRATA_OIDC_ISSUER="http://id.example.com": use the https:// address of the provider',
    );
    expect(loadConfig({ ...FULL, ERRATA_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.allowHttp).toBe(true);
  });

});
