import { BaseStore, getStore, type Item, type Operation, type OperationResults } from "@langchain/langgraph";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";
import { deployMessages } from "../messages/index.js";

type SearchOptions = Parameters<BaseStore["search"]>[1];
type ListOptions = Parameters<BaseStore["listNamespaces"]>[0];

/**
 * A BaseStore that forwards every operation to the store of the run it is called from (the one
 * LangGraph Platform injects: `config.store`, `getStore()`). Build a graph's long-lived objects on
 * it when the real store is only known at run time. Outside a run with a store it refuses.
 * Each method forwards to the same method (a run's store may be a batching wrapper without `batch`).
 */
export class RunStore extends BaseStore {
  #current(): BaseStore {
    const store = getStore();
    if (store === undefined || store === this) throw new GuardedGraphError(ErrorCode.PLATFORM_CONFIG, deployMessages.noPlatformStore());
    return store;
  }

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    return this.#current().batch(operations);
  }

  override async get(namespace: string[], key: string): Promise<Item | null> {
    return this.#current().get(namespace, key);
  }

  override async search(namespacePrefix: string[], options?: SearchOptions): ReturnType<BaseStore["search"]> {
    return this.#current().search(namespacePrefix, options);
  }

  override async put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[]): Promise<void> {
    return this.#current().put(namespace, key, value, index);
  }

  override async delete(namespace: string[], key: string): Promise<void> {
    return this.#current().delete(namespace, key);
  }

  override async listNamespaces(options?: ListOptions): Promise<string[][]> {
    return this.#current().listNamespaces(options);
  }
}
