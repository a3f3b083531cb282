export { sendWrite, sendWrites, write, type Write } from './write.js';
