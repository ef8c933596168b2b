// The organization's settings: /settings leads to the first settings page the viewer may use;
// the Agent tokens page (/organizations/{org}/settings/agent-tokens), minting (POST there) and
// revoking (POST .../revoke), for owners only. They call the same
// provisioning code as `errata createtoken`, `listtokens` and `revoketoken`, and show the same
// client configuration, so the page and the CLI agree. The plaintext is in one answer only: the
// POST that minted it, sent with no-store like every page and never redirected to, so neither a
// later page nor the browser's history holds it.
import { h } from 'preact';
import { ConflictError, ForbiddenError, NotFoundError, UserInputError } from '../../core/errors.ts';
import { createAgentToken, listAgentTokens, revokeAgentToken } from '../../core/provisioning/agent-tokens.ts';
import { mcpClientConfiguration } from '../../core/provisioning/mcp-client-configuration.ts';
import { firstSettingsPage } from '../components/settings-nav.tsx';
import { rolesWith, type OrganizationPage, type OrganizationRoute } from '../organization-page.ts';
import { AgentTokensPage, type MintedToken, type TypedToken } from '../pages/agent-tokens.tsx';
import type { FormNotice } from '../pages/project-parts.tsx';

interface Shown {
  minted?: MintedToken;
  notice?: FormNotice;
  typed?: TypedToken;
}

async function tokensPage(page: OrganizationPage, status: number, shown: Shown = {}): Promise<void> {
  const organization = page.organization.slug;
  const now = page.now();
  const [tokens, projects, callsToday] = await Promise.all([
    listAgentTokens(page.deps.metadata, { organization }),
    page.deps.metadata.listProjects(page.organization.id),
    page.deps.metadata.countAgentCallsSince(page.organization.id, new Date(now.getTime() - DAY_MS)),
  ]);
  page.send(
    status,
    h(AgentTokensPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization,
      tokens,
      callsToday,
      callsThisMinute: new Map(tokens.map((token) => [token.id, page.deps.agentCalls.look(token.id, now.getTime())])),
      callsPerMinute: page.deps.agentCalls.limit,
      projects,
      href: page.href,
      now,
      notice: shown.notice,
      // Only on the page the revocation redirected to: a fixed text, nothing taken from the address.
      revoked: page.ctx.method === 'GET' && page.ctx.query.revoked === '1',
      minted: shown.minted,
      typed: shown.typed,
    }),
  );
}

const field = (form: URLSearchParams, name: string) => form.get(name) ?? '';
const DAY_MS = 86_400_000;

export const settingsRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: /^settings$/,
    async handle(page) {
      const first = firstSettingsPage(page.viewer.role);
      if (!first) {
        throw new ForbiddenError(`settings need the ${rolesWith('agent_activity')} role; you are ${page.viewer.role}`);
      }
      page.seeOther(page.href('settings', first));
    },
  },
  {
    method: 'GET',
    path: /^settings\/agent-tokens$/,
    async handle(page) {
      page.require('agent_tokens');
      await tokensPage(page, 200);
    },
  },
  {
    method: 'POST',
    path: /^settings\/agent-tokens$/,
    async handle(page) {
      page.require('agent_tokens');
      const form = await page.form();
      if (!form) return;
      const typed = { name: field(form, 'name'), role: field(form, 'role'), project: field(form, 'project') };
      try {
        const created = await createAgentToken(page.deps.metadata, {
          organization: page.organization.slug,
          role: typed.role,
          createdBy: page.viewer.id,
          ...(typed.name.trim() ? { name: typed.name } : {}),
          ...(typed.project ? { project: typed.project } : {}),
        });
        const configuration = mcpClientConfiguration(page.deps.baseUrl, created.plaintext);
        await tokensPage(page, 201, { minted: { name: created.token.name, ...configuration } });
      } catch (error) {
        if (!(error instanceof UserInputError || error instanceof ConflictError || error instanceof NotFoundError)) throw error;
        // createAgentToken's rules and messages (shared with the CLI); its flag names become the form's.
        const text =
          error instanceof ConflictError
            ? `A live token named "${typed.name.trim()}" exists: choose another name, or revoke that one first.`
            : capitalize(error.message.replace(/--name; "name" in the API/, 'the Name field'));
        const status = error instanceof ConflictError ? 409 : 400;
        await tokensPage(page, status, { notice: { kind: 'error', text }, typed });
      }
    },
  },
  {
    method: 'POST',
    path: /^settings\/agent-tokens\/revoke$/,
    async handle(page) {
      page.require('agent_tokens');
      const form = await page.form();
      if (!form) return;
      const name = field(form, 'name');
      if (!name) throw new UserInputError('no token was named: use the Revoke button beside the token');
      try {
        await revokeAgentToken(page.deps.metadata, { name, organization: page.organization.slug });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        // The CLI's message names `errata listtokens`; here the list is the page.
        throw new NotFoundError(
          `no live token named "${name.slice(0, 100)}": it may be revoked already; the Agent tokens page lists them`,
        );
      }
      page.seeOther(`${page.href('settings', 'agent-tokens')}?revoked=1`);
    },
  },
];

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
