export { watermark } from './archive.js';
export { groupPaused } from './paused.js';
