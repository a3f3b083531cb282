/**
 * The per-test cleanup of `setup.ts`, as a vitest setup file: a setup file runs before each test
 * file, also in a worker that keeps its module graph from one file to the next, where hooks
 * registered by an imported module would only reach the first file that imported it.
 */
import { afterEach } from 'vitest';
import { closeOpened } from './setup.js';

afterEach(closeOpened);
