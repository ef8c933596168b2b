// People for dashboard tests: created with the real `errata createuser` (through the running
// server's admin socket) and signed in through /login's form, so a test starts at the page it is
// about. Pass `client.jar` as openCheckedPage's `cookies` to open pages as that person.
import type { HumanRole } from '../../services/core/auth/capabilities.ts';
import { FormClient } from './dashboard-forms.ts';
import { runCli } from './standalone-server.ts';

export const PERSON_PASSWORD = 'correct horse battery staple';

interface Person {
  email: string;
  role: HumanRole;
  /** Signed in: its jar holds the session cookie. */
  client: FormClient;
}

let made = 0;

export async function signedInPerson(
  server: { url: string; env: NodeJS.ProcessEnv },
  role: HumanRole,
  email = `${role}-${process.pid}-${++made}@example.com`,
): Promise<Person> {
  const created = await runCli(['createuser', '--email', email, '--role', role, '--password-stdin'], server.env, PERSON_PASSWORD);
  if (created.code !== 0) throw new Error(`errata createuser failed: ${created.stderr}`);
  const client = new FormClient(server.url);
  const answer = await client.signIn(email, PERSON_PASSWORD);
  if (answer.status !== 303) throw new Error(`signing in as ${email} answered ${answer.status}`);
  return { email, role, client };
}
