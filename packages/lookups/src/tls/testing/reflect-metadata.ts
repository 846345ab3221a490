/*
 * @peculiar/x509 (a devDependency, tests only) loads tsyringe, which refuses to start without the Reflect
 * metadata API (the `reflect-metadata` package, not installed here). x509 only stores and reads constructor
 * parameter types through it, so this small map-backed stand-in is enough. Import it before @peculiar/x509.
 */
type Key = string | symbol;
const store = new WeakMap<object, Map<Key | undefined, Map<unknown, unknown>>>();

function table(target: object, property: Key | undefined): Map<unknown, unknown> {
  const byProperty = store.get(target) ?? new Map<Key | undefined, Map<unknown, unknown>>();
  store.set(target, byProperty);
  const entries = byProperty.get(property) ?? new Map<unknown, unknown>();
  byProperty.set(property, entries);
  return entries;
}

const api = {
  defineMetadata(key: unknown, value: unknown, target: object, property?: Key): void {
    table(target, property).set(key, value);
  },
  getOwnMetadata(key: unknown, target: object, property?: Key): unknown {
    return store.get(target)?.get(property)?.get(key);
  },
  getMetadata(key: unknown, target: object, property?: Key): unknown {
    for (let o: object | null = target; o; o = Object.getPrototypeOf(o)) {
      const found = store.get(o)?.get(property);
      if (found?.has(key)) return found.get(key);
    }
    return undefined;
  },
  metadata(key: unknown, value: unknown) {
    return (target: object, property?: Key) => api.defineMetadata(key, value, target, property);
  },
};

const reflect = Reflect as unknown as Record<string, unknown>;
for (const [name, fn] of Object.entries(api)) reflect[name] ??= fn;
