export { writeFileAtomic } from "./atomic-write.js";
export { DESCRIPTOR_PATHS, isTempFileName } from "./safe-fs.js";
export { FILE_PERMISSIONS, FileRules, fileRuleSchema } from "./file-rules.js";
export type { FilePermission, FileRule, PermissionMatch } from "./file-rules.js";
export { FileSource, sha256 } from "./file-source.js";
export type { FileOperation, FileResult, FileSourceOptions, LoadedFile } from "./file-source.js";
export { checkRelativePath } from "./paths.js";
export { SourceManager } from "./source-manager.js";
export type { DataSource, NotificationSink, SourceKind, SourceNotification, SourceStatus } from "./types.js";
