/**
 * The one way this library makes a per-stack or per-app singleton: a child construct with a fixed
 * id, found again with tryFindChild (never a static cache, which would leak between apps and
 * tests). Not exported.
 */
import { IConstruct } from 'constructs';

export function singleton<T extends IConstruct>(scope: IConstruct, id: string, create: (scope: IConstruct, id: string) => T): T {
  return (scope.node.tryFindChild(id) as T | undefined) ?? create(scope, id);
}
