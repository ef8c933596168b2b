// The page a person returns to after signing in (a link followed while signed out), kept through
// the password form and the single sign-on round trip alike.
/** Where to go after signing in: a path of ours under /organizations (never another site's address). */
export function nextPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2000) return undefined;
  return /^\/organizations(\/|$|\?)/.test(value) ? value : undefined;
}
