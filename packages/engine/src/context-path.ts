// Attribute lookup: a condition's `attribute` is a dotted path into the evaluation context
// ("plan", "user.address.country", "targetingKey"). Paths are split once at compile time.

export const MAX_ATTRIBUTE_LENGTH = 256;

export type AttributeAccessor = (context: Readonly<Record<string, unknown>>) => unknown;

const hasOwn = Object.prototype.hasOwnProperty;

/** Why `path` is not a usable attribute path, or null when it is. */
export function attributePathProblem(path: unknown): string | null {
  if (typeof path !== 'string' || path.length === 0) return 'must be a non-empty string';
  if (path.length > MAX_ATTRIBUTE_LENGTH) {
    return `must be at most ${MAX_ATTRIBUTE_LENGTH} characters`;
  }
  if (path.split('.').some((segment) => segment.length === 0)) {
    return 'must be a dotted path without empty segments (like "user.country")';
  }
  return null;
}

/**
 * Compiles a dotted path into an accessor. Only own properties are read, so "constructor" or
 * "__proto__" never resolve to something inherited from Object.prototype. When the context has a
 * top-level key spelled exactly like the whole dotted path ({"app.version": "1.2.0"}), that key wins
 * over walking nested objects: flat attribute names with dots are common in SDK contexts.
 */
export function compileAttributePath(path: string): AttributeAccessor {
  const segments = path.split('.');
  if (segments.length === 1) {
    return (context) => ownValue(context, path);
  }
  return (context) => {
    const flat = ownValue(context, path);
    if (flat !== undefined) return flat;
    let current: unknown = context;
    for (let i = 0; i < segments.length; i++) {
      if (typeof current !== 'object' || current === null) return undefined;
      current = ownValue(current as Record<string, unknown>, segments[i]);
    }
    return current;
  };
}

/** `target[key]` if it is the target's own property (a primitive read needs no check). */
export function ownValue(target: Readonly<Record<string, unknown>>, key: string): unknown {
  const value = target[key];
  // Object.prototype only holds functions and objects (__proto__), so a primitive cannot be an
  // inherited property of a plain context: the own-property check is only needed for the rest,
  // which keeps the common case (string, number, boolean attributes) to a single property read.
  if (typeof value !== 'object' && typeof value !== 'function') return value;
  return value === null || hasOwn.call(target, key) ? value : undefined;
}
