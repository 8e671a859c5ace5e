import { type AssistantClient, AssistantProvider, useAssistant } from "elyra-assistant/react";

function Ask() {
  const { snapshot, prompt, stop } = useAssistant();
  const last = snapshot.items.at(-1);
  return (
    <div>
      {snapshot.busy ? (
        <button type="button" onClick={() => void stop()}>
          Stop
        </button>
      ) : (
        <button type="button" onClick={() => void prompt("Which invoices are overdue?")}>
          Ask
        </button>
      )}
      {last?.kind === "answer" && <p>{last.text}</p>}
    </div>
  );
}

// <App client={assistantClient({ token })} />, the token from the page the host served.
export const App = ({ client }: { client: AssistantClient }) => (
  <AssistantProvider client={client}>
    <Ask />
  </AssistantProvider>
);
