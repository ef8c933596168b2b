// Project slugs, DSNs and issue short ids: the names users type and paste.
import { UserInputError } from '../errors.ts';

const SLUG = /^[a-z0-9][a-z0-9_-]{0,49}$/;

export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, 50);
}

export function assertSlug(slug: string, what = 'slug'): string {
  if (!SLUG.test(slug) || /^\d+$/.test(slug)) {
    throw new UserInputError(
      `invalid ${what} "${slug.slice(0, 60)}": use 1-50 lowercase letters, digits, "-" or "_", starting with a letter or digit, not only digits`,
    );
  }
  return slug;
}

/** `http://<public key>@<host>[:port][/prefix]/<project id>`: the SDK init string. */
export function formatDsn(baseUrl: string, publicKey: string, projectId: number): string {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${publicKey}@${url.host}${prefix}/${projectId}`;
}
