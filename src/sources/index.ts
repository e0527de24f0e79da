export { writeFileAtomic } from "./atomic-write.js";
export { DESCRIPTOR_PATHS, isTempFileName } from "./safe-fs.js";
export type { FileRule } from "./file-rules.js";
export { FileSource } from "./file-source.js";
export { SourceManager } from "./source-manager.js";
export type { DataSource, NotificationSink, SourceNotification, SourceStatus } from "./types.js";
