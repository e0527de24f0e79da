// Sentences a reviewer, operator or model reads, in one place (pinned by exact-text tests).
export * from "./deploy.js";
