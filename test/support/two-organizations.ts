// A standalone server holding two organizations, for the suites that check isolation:
// `default` with projects web and shop, `other-org` with a web of its own, and tokens to probe
// them with: default's organization-wide admin and triage tokens, its web-scoped admin token,
// and other-org's admin token.
import { addOrganization } from './embedded-admin.ts';
import { runCliJson, startServer, initializedDataDir, type StandaloneServer } from './standalone-server.ts';

export interface TwoOrganizations {
  server: StandaloneServer;
  tokens: { admin: string; adminWeb: string; triage: string; other: string };
}

export async function startTwoOrganizationServer(): Promise<TwoOrganizations> {
  const dataDir = await initializedDataDir();
  await runCliJson(['listprojects'], { ...process.env, ERRATA_DATA_DIR: dataDir });
  await addOrganization(dataDir, 'other-org');
  const server = await startServer({ dataDir });
  for (const [name, org] of [
    ['web', 'default'],
    ['shop', 'default'],
    ['web', 'other-org'],
  ] as const) {
    await runCliJson(['createproject', '--name', name, '--organization', org], server.env);
  }
  const mint = async (args: string[]) =>
    (await runCliJson<{ plaintext: string }>(['createtoken', ...args], server.env)).plaintext;
  return {
    server,
    tokens: {
      admin: await mint(['--role', 'admin', '--organization', 'default']),
      adminWeb: await mint(['--role', 'admin', '--project', 'web', '--organization', 'default']),
      triage: await mint(['--role', 'triage', '--organization', 'default']),
      other: await mint(['--role', 'admin', '--organization', 'other-org']),
    },
  };
}
