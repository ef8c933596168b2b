// The install guides as a user meets them: fetched with a token, and their code blocks run.
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { REPO_ROOT, runProcess } from '../standalone-server.ts';
import { testPython } from '../test-python.ts';
import type { AgentTarget } from './suite.ts';

export async function fetchGuide(target: AgentTarget, token: string, project: string, platform: string): Promise<string> {
  const response = await fetch(`${target.url}/api/v1/organizations/default/projects/${project}/install/${platform}.md`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (response.status !== 200) throw new Error(`install guide ${platform}: ${response.status} ${await response.text()}`);
  return response.text();
}

/** Runs the guide's own code blocks (initialize, then send the test event), as a user would paste them. */
export async function runGuide(platform: 'node' | 'python', guide: string): Promise<void> {
  const fence = platform === 'node' ? 'js' : 'python';
  const blocks = [...guide.matchAll(new RegExp('```' + fence + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
  expect(blocks).toHaveLength(2);
  const code = blocks.join('\n');
  if (platform === 'node') {
    // Beside the test clients, so `@sentry/node` resolves from the repository's node_modules.
    const file = join(REPO_ROOT, 'test', 'clients', 'node', `.guide-${randomUUID()}.mjs`);
    await writeFile(file, code);
    try {
      const result = await runProcess(process.execPath, [file]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    } finally {
      await rm(file, { force: true });
    }
    return;
  }
  const result = await runProcess(testPython(), ['-c', code]);
  expect(result.code, result.stderr).toBe(0);
}
