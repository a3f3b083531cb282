export { read, sendRead, sendReads, type Read } from './read.js';
export { isNoSuchKey, parseStreamInfo, xinfoStream, xrange, xread, xrevrange, xtop, type RangeInput, type StreamInfo, type StreamReadInput } from './streams.js';
