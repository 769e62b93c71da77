// routes/<group>.ts: the paths and operations of one route group (the tag the API documents them
// under), a group too long for one file split by its paths' static segments (decision 0059).
import type { OpenAPI3 } from 'openapi-typescript';
import type ts from 'typescript';
import {
  interfaceOf,
  lineCount,
  MAX_LINES,
  membersOf,
  moduleText,
  nameOf,
  segmentsOf,
  tagOf,
  typeAlias,
} from './syntax.js';

/**
 * Paths grouped by `keyOf`, a group over MAX_LINES split by its paths' first static segments, then
 * one segment deeper while a part is still over: apps, apps-envs, apps-invitations.
 */
function routeGroups(
  paths: string[],
  keyOf: (path: string) => string,
  size: (paths: string[]) => number,
  depth = 0,
): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const path of paths) {
    const key = keyOf(path);
    groups.set(key, [...(groups.get(key) ?? []), path]);
  }
  const out = new Map<string, string[]>();
  for (const [key, members] of groups) {
    const deeper = members.some((path) => segmentsOf(path).length > depth);
    if (size(members) <= MAX_LINES || !deeper) {
      out.set(key, members);
      continue;
    }
    // The group's name, then the segments that set this part apart (the group's own name not repeated).
    const partOf = (path: string) =>
      [key, ...segmentsOf(path).slice(0, depth + 1)].filter((s, i, all) => all.indexOf(s) === i).join('-');
    for (const [subKey, sub] of routeGroups(members, partOf, size, depth + 1)) out.set(subKey, sub);
  }
  return out;
}

/** The route files of the rendering `nodes` of `document`, by file key (routes/<key>.ts). */
export function routeFiles(document: OpenAPI3, nodes: readonly ts.Node[]): Map<string, string> {
  const pathMembers = new Map(membersOf(nodes, 'paths').map((m) => [nameOf(m), m]));
  const operationMembers = new Map(membersOf(nodes, 'operations').map((m) => [nameOf(m), m]));
  const operationsOf = (path: string) =>
    Object.values((document.paths?.[path] ?? {}) as Record<string, { operationId?: string }>)
      .map((operation) => operation?.operationId)
      .filter((id): id is string => typeof id === 'string' && operationMembers.has(id));
  const routeFile = (paths: string[]) =>
    moduleText(
      [
        typeAlias(
          'paths',
          paths.map((p) => pathMembers.get(p)!),
        ),
        interfaceOf(
          'operations',
          paths.flatMap(operationsOf).map((id) => operationMembers.get(id)!),
        ),
      ],
      '../components.js',
    );
  const groups = routeGroups(
    [...pathMembers.keys()],
    (path) => tagOf(document, path),
    (paths) => lineCount(routeFile(paths)),
  );
  return new Map([...groups].map(([key, paths]) => [key, routeFile(paths)]));
}
