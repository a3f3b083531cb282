import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../vitest.shared.js';

// The bench's own tests sit beside what they test (faults/test), not under a top-level test/.
export default mergeConfig(sharedConfig, defineConfig({ test: { include: ['faults/test/**/*.test.ts'] } }));
