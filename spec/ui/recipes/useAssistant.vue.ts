import type { AssistantSnapshot, AssistantStore } from "elyra-assistant/ui";
import { onScopeDispose, type ShallowRef, shallowRef } from "vue";

/** The store's snapshot as a ref: a `shallowRef`, since each snapshot is a new frozen object. */
export function useAssistant(store: AssistantStore): Readonly<ShallowRef<AssistantSnapshot>> {
  const snapshot = shallowRef(store.getSnapshot());
  onScopeDispose(store.subscribe((next) => (snapshot.value = next)));
  return snapshot;
}
