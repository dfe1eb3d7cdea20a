/** A per-stack or per-app singleton: a child with a fixed id (a static cache would leak between apps). */
import { IConstruct } from 'constructs';

export function singleton<T extends IConstruct>(scope: IConstruct, id: string, create: (scope: IConstruct, id: string) => T): T {
  return (scope.node.tryFindChild(id) as T | undefined) ?? create(scope, id);
}
