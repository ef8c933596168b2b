// Which exceptions of an exception group (Python ExceptionGroup, JavaScript AggregateError, .NET
// AggregateException) take part in grouping, as Sentry decides it (RFC 0079, "Sentry issue
// grouping"; newstyle.py filter_exceptions_for_exception_groups). Without this, an
// AggregateError of the same failure twice groups apart from the failure once, and the order in
// which an SDK lists the members changes the hash.
//
// The members form a tree through mechanism.exception_id / parent_id, the root having id 0. The
// "top-level" exceptions are the first non-group exceptions under the root (groups are looked
// through), ordered by type, descending. Identical top-level exceptions count once. One distinct
// top-level exception stands for the whole event, with its first cause, that cause's first
// cause, and so on, and it also names the issue (its type and value make the title, not the
// group's: Sentry's main_exception_id). Several are kept, one of each, followed by the root
// group. Whenever the tree is broken (an id missing, repeated or its own parent; no root; no
// member that is not a group; a walk through it that loops) the list stays as sent.
import type { ExceptionValue } from '../event/event.ts';
import { frameValues } from './frame-values.ts';
import { normalizeMessageForGrouping } from './normalize-message.ts';
import { nsErrorValues } from './ns-error.ts';

interface GroupingContextOfExceptions {
  platform: string;
  sdkVersion?: string;
}

interface ExceptionGroupSelection {
  /** The exceptions that take part in grouping, in the order they are hashed. */
  exceptions: ExceptionValue[];
  /** The exception that names the issue when it is not the last one sent. */
  main?: ExceptionValue;
}

interface TreeNode {
  exception?: ExceptionValue;
  children: ExceptionValue[];
}

/** A walk through the tree came back to where it had been. */
class LoopInTree extends Error {}

export function selectExceptionsOfGroups(
  exceptions: ExceptionValue[],
  context: GroupingContextOfExceptions,
): ExceptionGroupSelection {
  const asSent = { exceptions };
  if (exceptions.length <= 1) return asSent;
  // Sentry keeps how Python SDK 2 events hashed for version 3, which links every chain with
  // exception ids: for those events it does not filter (a stopgap on Sentry's side we follow).
  if (context.platform === 'python' && context.sdkVersion?.startsWith('3')) return asSent;

  // Newest first, as Sentry reads them: a group's members end up in the reverse of the sent order.
  const tree = new Map<number, TreeNode>();
  const nodeOf = (id: number) => tree.get(id) ?? tree.set(id, { children: [] }).get(id)!;
  for (const exception of [...exceptions].reverse()) {
    const id = exception.mechanism?.exception_id;
    const parentId = exception.mechanism?.parent_id;
    if (id === undefined || id === parentId || tree.get(id)?.exception) return asSent;
    nodeOf(id).exception = exception;
    if (parentId !== undefined) nodeOf(parentId).children.push(exception);
  }
  const root = tree.get(0)?.exception;
  if (!root) return asSent;
  const childrenOf = (exception: ExceptionValue) => tree.get(exception.mechanism!.exception_id!)?.children ?? [];

  let topLevel: ExceptionValue[];
  try {
    topLevel = topLevelExceptions(root, childrenOf, []);
  } catch (error) {
    if (error instanceof LoopInTree) return asSent;
    throw error;
  }
  // Nothing but groups under the root (or members that hang under each other beside it): Sentry
  // keeps the list as sent since getsentry/sentry#105667 (January 2026); before, the root alone.
  if (topLevel.length === 0) return asSent;
  // A stable sort, like Python's sorted(): members of one type keep their order.
  topLevel.sort((a, b) => compareDescending(String(a.type), String(b.type)));

  const distinct: ExceptionValue[] = [];
  let previousKey: string | undefined;
  for (const exception of topLevel) {
    const key = groupingIdentity(exception, context.platform);
    if (key !== previousKey) distinct.push(exception);
    previousKey = key;
  }
  if (distinct.length > 1) return { exceptions: [...distinct, root] };

  // A root that is no group (a plain chain with ids) is the one top-level exception; Sentry
  // takes id 0 as no main exception, so the last one sent names the issue as usual.
  const only = distinct[0]!;
  const main = only.mechanism!.exception_id === 0 ? undefined : only;
  const path: ExceptionValue[] = [];
  for (let node: ExceptionValue | undefined = only; node; node = childrenOf(node)[0]) {
    // Sentry has already noted the main exception when this walk loops: it keeps it.
    if (path.includes(node)) return { ...asSent, main };
    path.push(node);
  }
  return { exceptions: path, main };
}

/** The first non-group exceptions under `exception`, looking through groups; `ancestors` catch a loop. */
function topLevelExceptions(
  exception: ExceptionValue,
  childrenOf: (exception: ExceptionValue) => ExceptionValue[],
  ancestors: ExceptionValue[],
): ExceptionValue[] {
  if (!exception.mechanism?.is_exception_group) return [exception];
  if (ancestors.includes(exception)) throw new LoopInTree();
  const below = [...ancestors, exception];
  return childrenOf(exception).flatMap((child) => topLevelExceptions(child, childrenOf, below));
}

/** Python compares str by code point; so does this (localeCompare would not). */
function compareDescending(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

/**
 * What makes two top-level exceptions "the same" one: Sentry compares everything their grouping
 * components hold, contributing or not, so the type, the normalized value, an NSError's domain
 * and code, and every frame's values.
 */
function groupingIdentity(exception: ExceptionValue, platform: string): string {
  const frames = (exception.stacktrace?.frames ?? []).map((frame) => [frame.in_app === true, frameValues(frame, platform)]);
  return JSON.stringify([
    exception.type ?? null,
    exception.mechanism?.synthetic === true,
    exception.value === undefined ? null : normalizeMessageForGrouping(exception.value),
    nsErrorValues(exception),
    frames,
  ]);
}
