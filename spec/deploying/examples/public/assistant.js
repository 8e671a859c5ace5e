// The page's module, served as it is: no bundler. It imports the prebuilt panel by its URL.
import {
  assistantClient,
  createAssistantStore,
  installAssistant,
} from "/assets/elyra-assistant.js";

// One window per tab: a reload keeps its conversation, replayed from the store.
const tabId = () => {
  const known = sessionStorage.getItem("assistant-client");
  if (known !== null) return known;
  const id = crypto.randomUUID();
  sessionStorage.setItem("assistant-client", id);
  return id;
};

const token = document.querySelector('meta[name="elyra-token"]')?.content ?? "";
const store = createAssistantStore(assistantClient({ token, clientId: tabId() }));
installAssistant(store); // the <elyra-assistant-panel> in the page takes it
