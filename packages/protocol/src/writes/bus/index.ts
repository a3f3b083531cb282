export { clearWatermark, putWatermark, type WatermarkInput } from './archive.js';
export { pauseGroup, resumeGroup, type PausedGroupInput } from './paused.js';
export { appendRecord, appendRecords, RECORD_ID_FIELD, type AppendRefusals, type RecordId, type RecordInput, type RecordsInput } from './records.js';
