// OpenID Connect sign-in's rules, pure: the operator's claim-to-role mapping
// (ERRATA_OIDC_ROLES, parsed once at start by runtime/config.ts), the role a provider's claim
// grants, and what a sign-in does to the account it names. The dashboard's oidc routes carry it
// out; the provider's answer has already been verified by then (openid-client).
import { isHumanRole, type HumanRole } from '../auth/capabilities.ts';
import type { User } from '../ports/user-store.ts';

/** A claim value (a group name) and the role it grants. */
export type RoleMapping = ReadonlyMap<string, HumanRole>;

/** Strongest first: a person in two mapped groups gets the stronger role. */
const RANK: readonly HumanRole[] = ['owner', 'admin', 'member'];

/**
 * "errata-owners=owner,errata-devs=member" as a map; throws an Error saying which entry is wrong
 * and how to write it (config.ts names the variable).
 */
export function parseRoleMapping(text: string): RoleMapping {
  const mapping = new Map<string, HumanRole>();
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const at = entry.lastIndexOf('=');
    const value = entry.slice(0, at).trim();
    const role = entry.slice(at + 1).trim();
    if (at < 1 || !value) throw new Error(`"${entry}" is not value=role: write e.g. errata-admins=admin`);
    if (!isHumanRole(role)) throw new Error(`"${entry}" names the role "${role}": use owner, admin or member`);
    if (mapping.has(value) && mapping.get(value) !== role) throw new Error(`"${value}" is mapped twice, to two roles: keep one`);
    mapping.set(value, role);
  }
  if (mapping.size === 0) throw new Error('no value=role pairs: write e.g. errata-owners=owner,errata-devs=member');
  return mapping;
}

/**
 * The role a claim grants: its values (a string, or a list of them, as providers send groups)
 * looked up in the mapping, the strongest match winning; undefined when none is mapped.
 */
export function roleFromClaim(claim: unknown, mapping: RoleMapping): HumanRole | undefined {
  const values = Array.isArray(claim) ? claim : [claim];
  const granted = new Set(values.filter((v): v is string => typeof v === 'string').map((v) => mapping.get(v)));
  return RANK.find((role) => granted.has(role));
}

export type OidcOutcome =
  | { kind: 'sign-in'; user: User; role: HumanRole }
  | { kind: 'create'; role: HumanRole }
  | {
      kind: 'refused';
      reason:
        | 'no-role'
        | 'unknown-user'
        | 'email-unverified'
        | 'email-unconfirmed'
        | 'no-email'
        | 'linked-elsewhere'
        | 'email-self-chosen';
    };

interface OidcFacts {
  /** The verified email the provider gave, if any. */
  email: string | undefined;
  /**
   * The provider's email_verified. False refuses; absent is enough to create an account, but not
   * to pick an existing one unless `trustUnverifiedEmail`: a provider that sends none may let its
   * users type their own address (Entra ID), and so take a colleague's account and role.
   */
  emailVerified: boolean | undefined;
  /** ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL: this provider's addresses are set by its administrators only. */
  trustUnverifiedEmail: boolean;
  /** The role the claim grants (roleFromClaim). */
  role: HumanRole | undefined;
  /** The account this identity (issuer and subject) is linked to, if any. */
  linked: User | undefined;
  /** The account with that email, if any, and whether its email is one its owner typed unvouched. */
  existing: (User & { emailSelfChosen: boolean }) | undefined;
  /** Whether that account is linked to another subject of the same issuer. */
  existingLinkedElsewhere: boolean;
  /** How many owners there are now. */
  owners: number;
  createUsers: boolean;
}

/**
 * What a verified sign-in does. An identity already linked signs in its own account, whatever
 * email it gives now; otherwise the verified email finds the account, unless that account is
 * linked to another subject of this provider (a provider may give a departed person's address to
 * someone new), or its email is one nobody vouched for (typed by whoever joined by an invitation
 * that named none: they could have typed a colleague's, and taken the colleague's role). The claim decides the role at every sign-in, so removing someone from a group
 * takes effect at their next sign-in; but it never demotes the last owner, so a provider's
 * misconfigured group cannot leave nobody able to manage people.
 */
export function decideOidcSignIn(facts: OidcFacts): OidcOutcome {
  if (facts.linked) return facts.role ? signIn(facts.linked, facts.role, facts.owners) : { kind: 'refused', reason: 'no-role' };
  if (!facts.email) return { kind: 'refused', reason: 'no-email' };
  if (facts.emailVerified === false) return { kind: 'refused', reason: 'email-unverified' };
  if (!facts.role) return { kind: 'refused', reason: 'no-role' };
  if (!facts.existing)
    return facts.createUsers ? { kind: 'create', role: facts.role } : { kind: 'refused', reason: 'unknown-user' };
  if (facts.existingLinkedElsewhere) return { kind: 'refused', reason: 'linked-elsewhere' };
  if (facts.existing.emailSelfChosen) return { kind: 'refused', reason: 'email-self-chosen' };
  if (facts.emailVerified !== true && !facts.trustUnverifiedEmail) return { kind: 'refused', reason: 'email-unconfirmed' };
  return signIn(facts.existing, facts.role, facts.owners);
}

function signIn(user: User, role: HumanRole, owners: number): OidcOutcome {
  const lastOwner = user.role === 'owner' && owners <= 1;
  return { kind: 'sign-in', user, role: lastOwner ? 'owner' : role };
}
