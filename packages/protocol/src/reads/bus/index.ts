export { watermark } from './archive.js';
export { BUS_READ_COMMANDS } from './commands.js';
export { groupPaused } from './paused.js';
