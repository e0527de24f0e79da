import { z } from "zod";
import { memoryMessages } from "../messages/memory.js";
import { MemoryError } from "../memory/errors.js";
import { jsonValueSchema, type JsonValue } from "../memory/types.js";
import { defineTool } from "../tools/define-tool.js";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";

const messageTargetSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("user") }).describe("The user of this conversation"),
  z.object({ type: z.literal("agent"), id: z.string().min(1) }).describe("Another agent"),
  z.object({ type: z.literal("group"), name: z.string().min(1) }).describe("A group of agents"),
  z
    .object({ type: z.literal("channel"), channel: z.string().min(1), address: z.string().min(1) })
    .describe("A registered channel (e.g. a chat integration) and an address in it"),
  z.object({ type: z.literal("discord"), channel_id: z.string().min(1) }).describe("A Discord channel (delivered by the channel registered as \"discord\")"),
  z.object({ type: z.literal("bluesky"), handle: z.string().min(1) }).describe("A Bluesky handle (delivered by the channel registered as \"bluesky\")"),
]);
type MessageTarget = z.infer<typeof messageTargetSchema>;

interface OutgoingMessage {
  target: MessageTarget;
  content: string;
  metadata: Record<string, JsonValue>;
  /** Stable per tool call: a channel can use it to drop a re-sent duplicate. */
  idempotencyKey: string;
  threadId: string | undefined;
  /** Epoch ms. */
  at: number;
}

/** Where messages go. Add a channel (Discord, Bluesky, email...) by implementing this. */
export interface MessageChannel {
  readonly name: string;
  /** Delivers the message; returns a short receipt for the model (e.g. a message id). */
  deliver(message: OutgoingMessage): Promise<string | void> | string | void;
}

/** Keeps delivered messages in memory: the default for the user, agents and groups, and handy in tests. */
export class OutboxChannel implements MessageChannel {
  readonly messages: OutgoingMessage[] = [];
  constructor(readonly name = "outbox") {}
  deliver(message: OutgoingMessage): string {
    this.messages.push(message);
    return `${this.name}#${this.messages.length}`;
  }
}

interface MessageRouterOptions {
  user?: MessageChannel;
  agents?: MessageChannel;
  groups?: MessageChannel;
  channels?: readonly MessageChannel[];
}

/** Picks the channel for a target and delivers once per idempotency key (a resumed run does not send twice). */
export class MessageRouter {
  readonly outbox = new OutboxChannel();
  readonly #user: MessageChannel;
  readonly #agents: MessageChannel;
  readonly #groups: MessageChannel;
  readonly #channels = new Map<string, MessageChannel>();
  readonly #delivered = new Map<string, string>();

  constructor(options: MessageRouterOptions = {}) {
    this.#user = options.user ?? this.outbox;
    this.#agents = options.agents ?? this.outbox;
    this.#groups = options.groups ?? this.outbox;
    for (const channel of options.channels ?? []) this.addChannel(channel);
  }

  addChannel(channel: MessageChannel): this {
    if (this.#channels.has(channel.name)) throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, `channel "${channel.name}" is already registered`);
    this.#channels.set(channel.name, channel);
    return this;
  }

  #channelFor(target: MessageTarget): MessageChannel {
    switch (target.type) {
      case "user":
        return this.#user;
      case "agent":
        return this.#agents;
      case "group":
        return this.#groups;
      case "channel":
        return this.#named(target.channel);
      case "discord":
      case "bluesky":
        return this.#named(target.type);
    }
  }

  #named(name: string): MessageChannel {
    const channel = this.#channels.get(name);
    if (!channel) {
      const known = [...this.#channels.keys()];
      throw new MemoryError(memoryMessages.unknownChannel(name, known), "send_message:unknown-channel");
    }
    return channel;
  }

  async route(message: OutgoingMessage): Promise<string> {
    const previous = this.#delivered.get(message.idempotencyKey);
    if (previous !== undefined) return previous;
    const channel = this.#channelFor(message.target);
    const receipt = (await channel.deliver(message)) ?? "";
    const summary = `sent to ${describeTarget(message.target)} via ${channel.name}${receipt ? ` (${receipt})` : ""}`;
    this.#delivered.set(message.idempotencyKey, summary);
    return summary;
  }
}

function describeTarget(target: MessageTarget): string {
  switch (target.type) {
    case "user":
      return "the user";
    case "agent":
      return `agent ${target.id}`;
    case "group":
      return `group ${target.name}`;
    case "channel":
      return `${target.address} on ${target.channel}`;
    case "discord":
      return `Discord channel ${target.channel_id}`;
    case "bluesky":
      return `Bluesky ${target.handle}`;
  }
}

const sendMessageInputSchema = z.object({
  target: messageTargetSchema,
  content: z.string().min(1).describe("The message"),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

const SEND_MESSAGE_USAGE_RULE =
  "send_message sends a message to the user, another agent, a group, or a registered channel. When send_message is called, the conversation ends.";

/** The `send_message` tool, kept for existing agents: send a message to the user, an agent, a group or a registered channel; the run ends after it. */
export function createSendMessageTool(options: { router?: MessageRouter } = {}) {
  const router = options.router ?? new MessageRouter();
  return defineTool({
    name: "send_message",
    description: "Superseded for plain replies (kept for existing agents). Send a message to the user, an agent, a group or a channel.",
    schema: sendMessageInputSchema,
    usageRule: SEND_MESSAGE_USAGE_RULE,
    risk: "low",
    idempotent: true,
    execute: (input, context) =>
      router.route({
        target: input.target,
        content: input.content,
        metadata: input.metadata === undefined ? {} : z.record(z.string(), jsonValueSchema).parse(input.metadata),
        idempotencyKey: context.idempotencyKey,
        threadId: context.threadId,
        at: Date.now(),
      }),
  });
}
