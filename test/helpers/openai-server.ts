import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted assistant reply. Tool call arguments may be an object (serialised) or a raw string. */
export interface ScriptedReply {
  content?: string;
  tool_calls?: { id?: string; name: string; arguments: Record<string, unknown> | string }[];
  /** Reply with this HTTP status and an OpenAI-style error body instead. */
  status?: number;
}

/** A request the server received: the parsed JSON body and the headers. */
export interface RecordedRequest {
  path: string;
  body: {
    model?: string;
    stream?: boolean;
    messages?: { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description?: string; parameters?: Record<string, unknown> } }[];
    tool_choice?: unknown;
    parallel_tool_calls?: boolean;
    [key: string]: unknown;
  };
  headers: IncomingMessage["headers"];
}

export type ServerScript = ScriptedReply[] | ((request: RecordedRequest, index: number) => ScriptedReply);

export interface OpenAIServer {
  /** Base URL including `/v1`, for `configuration.baseURL` / `OPENAI_BASE_URL`. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function toolCallsOf(reply: ScriptedReply, index: number) {
  return (reply.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `call_srv_${index}_${i}`,
    type: "function" as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Splits a string into `parts` roughly equal fragments (at least one, possibly empty). */
function fragments(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

function streamReply(res: ServerResponse, reply: ScriptedReply, index: number, model: string, includeUsage: boolean): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const id = `chatcmpl-${index}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  chunk({ role: "assistant", content: "" });
  for (const piece of reply.content ? fragments(reply.content, 3) : []) chunk({ content: piece });
  const calls = toolCallsOf(reply, index);
  calls.forEach((call, i) => {
    chunk({ tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of fragments(call.function.arguments, 3)) {
      chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] });
    }
  });
  chunk({}, calls.length > 0 ? "tool_calls" : "stop");
  if (includeUsage) {
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}\n\n`);
  }
  res.end("data: [DONE]\n\n");
}

/**
 * A local OpenAI-compatible server (loopback, port 0) that answers `/v1/chat/completions` from a
 * script, streaming (SSE with `delta.tool_calls` fragments) or not, and records every request.
 */
export async function startOpenAIServer(script: ServerScript): Promise<OpenAIServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    try {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      if (req.method !== "POST" || path !== "/v1/chat/completions") {
        sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" } });
        return;
      }
      const body = JSON.parse(await readBody(req)) as RecordedRequest["body"];
      const request: RecordedRequest = { path, body, headers: req.headers };
      const index = requests.push(request) - 1;
      const reply = typeof script === "function" ? script(request, index) : script[index];
      if (reply === undefined) {
        sendJson(res, 500, { error: { message: `script has no reply for request ${index}`, type: "server_error" } });
        return;
      }
      if (reply.status !== undefined && reply.status !== 200) {
        sendJson(res, reply.status, { error: { message: reply.content ?? "scripted error", type: "server_error" } });
        return;
      }
      const model = body.model ?? "scripted";
      const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      if (body.stream) {
        streamReply(res, reply, index, model, includeUsage);
        return;
      }
      const calls = toolCallsOf(reply, index);
      sendJson(res, 200, {
        id: `chatcmpl-${index}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: reply.content ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
            finish_reason: calls.length > 0 ? "tool_calls" : "stop",
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    } catch (error) {
      sendJson(res, 400, { error: { message: (error as Error).message, type: "invalid_request_error" } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
