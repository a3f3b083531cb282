/**
 * A typedoc plugin: names each module after its package (`@echo/queue`) when typedoc reads every
 * package's `src/index.ts` (and a subpath's `src/<name>.ts`) in one TypeScript program (`entryPointStrategy: "resolve"`), which would
 * otherwise name it by its path (`queue/src`). One program instead of one per package (each of which
 * also compiled the package's tests and every sibling's source) is what makes `pnpm run api` several
 * times faster. Plain JavaScript: typedoc loads it without a TypeScript loader.
 */
import { Converter, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const mod of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      // `bus/src/wire` is the subpath entry point `@echo/bus/wire`.
      const match = /^([a-z0-9-]+)\/src(?:\/([a-z0-9-]+))?$/.exec(mod.name);
      if (match !== null) mod.name = `@echo/${match[1] ?? ''}${match[2] === undefined || match[2] === 'index' ? '' : `/${match[2]}`}`;
    }
  });
}
