/**
 * `@nestjs/bullmq` (the real npm package, with @nestjs/core) running a Nest module whose `bullmq`
 * is `@echo/bullmq`: a registered queue is injected, a `@Processor` worker runs its jobs, and the
 * application closes them. Decorators are applied as plain calls, so the test needs no decorator
 * transform.
 */
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestApplicationContextOptions } from '@nestjs/common/interfaces/nest-application-context-options.interface.js';
import { NestFactory } from '@nestjs/core';
import { BullModule, getQueueToken, Processor, WorkerHost } from '@nestjs/bullmq';
import { uniqueName, useRedis } from '@echo/testkit';
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { loadBullmq, nextEvent } from './load.js';

describe('@nestjs/bullmq over @echo/bullmq', () => {
  it('injects a registered queue and runs its jobs in a @Processor worker', async () => {
    const { host, port } = await useRedis();
    const name = uniqueName('nest');

    class PaintProcessor extends WorkerHost {
      process(job: Job): Promise<string> {
        return Promise.resolve(`painted ${(job.data as { color: string }).color}`);
      }
    }
    Processor(name)(PaintProcessor);

    // A Nest module is a class the @Module decorator describes; it has no members of its own.
    // eslint-disable-next-line @typescript-eslint/no-extraneous-class
    class AppModule {}
    Module({
      imports: [BullModule.forRoot({ connection: { host, port } }), BullModule.registerQueue({ name })],
      providers: [PaintProcessor],
    })(AppModule);

    // abortOnError: false makes a failed start throw here instead of exiting the test process.
    const options: NestApplicationContextOptions = Object.assign(new NestApplicationContextOptions(), { logger: false as const, abortOnError: false });
    const app = await NestFactory.createApplicationContext(AppModule, options);
    try {
      const queue = app.get<InstanceType<ReturnType<typeof loadBullmq>['Queue']>>(getQueueToken(name));
      // The injected queue is the drop-in's class, from the same module the ecosystem loads.
      expect(queue).toBeInstanceOf(loadBullmq().Queue);
      const processor = app.get(PaintProcessor);
      const completed = nextEvent(processor.worker, 'completed');
      const job = await queue.add('wall', { color: 'red' });
      const [doneJob, result] = await completed;
      expect((doneJob as { id: string }).id).toBe(job.id);
      expect(result).toBe('painted red');
      expect(await (await queue.getJob(job.id))?.getState()).toBe('completed');
    } finally {
      await app.close();
    }
  });
});
