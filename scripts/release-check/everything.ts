/**
 * Every published entry point, imported together: the release check typechecks this under
 * `nodenext` and `bundler` in an app that installed every tarball at once.
 */
import * as bullmq from '@echo/bullmq';
import * as bus from '@echo/bus';
import * as cache from '@echo/cache';
import * as cli from '@echo/cli';
import * as conformance from '@echo/conformance';
import * as dashboard from '@echo/dashboard';
import * as otel from '@echo/otel';
import * as protocol from '@echo/protocol/extend';
import * as queue from '@echo/queue';
import * as queueInternal from '@echo/queue/internal';
import * as testkit from '@echo/testkit';

const entryPoints: readonly object[] = [bullmq, bus, cache, cli, conformance, dashboard, otel, protocol, queue, queueInternal, testkit];
console.log(entryPoints.length);
