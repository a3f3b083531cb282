import { type BrandedId, type Connection, mintId } from '@echo/protocol/cache';
import { describe, expectTypeOf, it } from 'vitest';
import { Cache, type Fetched, type Table, versioned } from '../src/index.js';

interface User {
  readonly name: string;
}

declare const connection: Connection;
const cache = await Cache.open({ connection });

describe('Table types', () => {
  it('infers the value type from the loader and the kind from the literal', async () => {
    const users = await cache.declare({ name: 'users', kind: 'USR', loader: (): Promise<User> => Promise.resolve({ name: 'a' }) });
    expectTypeOf(users).toEqualTypeOf<Table<User, 'USR'>>();
    expectTypeOf(users.fetch(mintId('USR'))).resolves.toEqualTypeOf<Fetched<User>>();
    expectTypeOf<Parameters<typeof users.fetch>[0]>().toEqualTypeOf<BrandedId<'USR'>>();
  });

  it('infers through a versioned loader answer', async () => {
    const users = await cache.declare({ name: 'users', kind: 'USR', loader: (id) => versioned<User>({ name: id }, mintId('VER')) });
    expectTypeOf(users).toEqualTypeOf<Table<User, 'USR'>>();
  });

  it('refuses an id of another kind and a value of another type at compile time', async () => {
    const users = await cache.declare({ name: 'users', kind: 'USR', loader: (): User => ({ name: 'a' }) });
    // @ts-expect-error a JOB id is not a USR id
    void users.fetch(mintId('JOB'));
    // @ts-expect-error a plain string is not a branded id
    void users.fetch('USR0KHTOWnGLuC');
    // @ts-expect-error a number is not a User
    void users.put(mintId('USR'), 42);
    expectTypeOf<Awaited<ReturnType<typeof users.put>>>().toEqualTypeOf<BrandedId>();
  });

  it('the loader receives the table kind id', () => {
    void cache.declare({
      name: 'orders',
      kind: 'ORD',
      loader: (id) => {
        expectTypeOf(id).toEqualTypeOf<BrandedId<'ORD'>>();
        return 1;
      },
    });
  });
});
