import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { auditArgs, auditId, openAuditSink, truncateResult, type AuditRecord } from "guarded-graph";

/** Writes one guard decision to a durable JSONL audit log, with secrets redacted, and reads it back. */
export async function auditLogExample(dir: string): Promise<{ records: AuditRecord[]; preview: string }> {
  const sink = await openAuditSink(`jsonl:${join(dir, "audit.jsonl")}`);

  const toolCall = { id: "call_1", name: "http_get", args: { url: "https://api.example.com", headers: { Authorization: "Bearer sk-123" } } };
  const record: AuditRecord = {
    // Same thread + call + event → same id: a decision re-computed on resume is stored once.
    id: auditId(["thread-42", toolCall.id, "decision"]),
    at: Date.now(),
    threadId: "thread-42",
    runId: "run-7",
    toolCallId: toolCall.id,
    tool: toolCall.name,
    args: auditArgs(toolCall.args, ["headers.authorization", "token", "*.password"]),
    event: "decision",
    decision: "allow",
    ruleId: "permission:http-read",
    reason: "GET requests to the API are allowed",
  };
  await sink.write([record]);
  await sink.write([record]); // ignored: the id is already in the log

  const records = await sink.query({ threadId: "thread-42" });
  await sink.close();

  // A long tool result keeps its head and tail within the limit.
  const preview = truncateResult("log line\n".repeat(10_000), 200);
  return { records, preview };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { records, preview } = await auditLogExample(mkdtempSync(join(tmpdir(), "audit-")));
  console.log(JSON.stringify(records, null, 2));
  console.log(preview);
}
