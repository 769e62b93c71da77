// Values that are usually in memory and only sometimes need a read (the evaluation set of an
// environment, its sync count): continue synchronously when they are there, so the hot path makes
// no promise per request, and through the promise otherwise.
export function andThen<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
