import {
  type AssistantClient,
  AssistantProvider,
  type PanelItem,
  stepHref,
  useAssistant,
  type WaitingQuestion,
} from "elyra-assistant/react";
import { type FormEvent, useState } from "react";

type Issues = ReadonlyArray<{ readonly path: string; readonly message: string }>;

/** A waiting confirmation: the command's sentence, the arguments, the editable ones as fields. */
function Confirm({ question }: { question: WaitingQuestion }) {
  const { confirm } = useAssistant();
  const args = (question.args ?? {}) as Record<string, unknown>;
  const editable = question.editable.map((e) => e.name);
  const [texts, setTexts] = useState(() =>
    Object.fromEntries(editable.map((name) => [name, String(args[name] ?? "")])),
  );
  const [issues, setIssues] = useState<Issues>([]);
  const answer = async (accept: boolean) => {
    const edited: Record<string, unknown> = { ...args };
    for (const [name, text] of Object.entries(texts)) {
      if (text === "" && !(name in args)) continue; // an optional argument left out
      edited[name] = typeof args[name] === "number" ? Number(text) : text;
    }
    const changed = accept && editable.length > 0 ? edited : undefined;
    const result = await confirm(question.confirmId, accept, changed);
    if (result?._tag === "InvalidEdit") setIssues(result.issues);
  };
  return (
    <section role="dialog" aria-label={question.label ?? `Confirm ${question.tool}`}>
      <p>{question.label ?? `${question.tool}: ${question.description}`}</p>
      {Object.entries(args)
        .filter(([name]) => !editable.includes(name))
        .map(([name, value]) => (
          <p key={name}>
            {name}: {JSON.stringify(value)}
          </p>
        ))}
      {editable.map((name) => (
        <label key={name}>
          {name}
          <input
            value={texts[name]}
            onChange={(e) => setTexts({ ...texts, [name]: e.target.value })}
          />
        </label>
      ))}
      {issues.map((issue) => (
        <p role="alert" key={issue.path}>
          {issue.path}: {issue.message}
        </p>
      ))}
      <button type="button" onClick={() => void answer(false)}>
        Decline
      </button>
      <button
        type="button"
        className={question.destructive ? "danger" : undefined}
        onClick={() => void answer(true)}
      >
        {question.action}
      </button>
    </section>
  );
}

/** A value as people read it: a string as it is, anything else as JSON; absent, "not set". */
const words = (value: unknown) =>
  value === undefined ? "not set" : typeof value === "string" ? value : JSON.stringify(value);

/** An answered confirmation; one the user changed says so, each change beside what it was. */
function Answered({ item }: { item: Extract<PanelItem, { kind: "confirm" }> }) {
  const asked = item.label ?? item.tool;
  const labelOf = (name: string) =>
    item.editable.find((field) => field.name === name)?.label ?? name.replaceAll("_", " ");
  if (item.changes === undefined)
    return (
      <p>
        {asked}: {item.answer}
      </p>
    );
  return (
    <div>
      <p>Claude asked: {asked}</p>
      <ul aria-label="Your changes">
        {item.changes.map((change) => (
          <li key={change.name}>
            {labelOf(change.name)}: {words(change.now)} (was {words(change.was)})
          </li>
        ))}
      </ul>
      <p>Accepted with your changes.</p>
    </div>
  );
}

/** One item of the conversation, as text (never HTML). */
function Item({ item }: { item: PanelItem }) {
  switch (item.kind) {
    case "user":
      return <p className="user">{item.text}</p>;
    case "answer":
      return <p aria-busy={item.streaming}>{item.text}</p>;
    case "tool": {
      const href = stepHref(item);
      return <p>{href === undefined ? item.tool : <a href={href}>{item.tool}</a>}</p>;
    }
    case "confirm":
      return item.answer === undefined ? <Confirm question={item} /> : <Answered item={item} />;
    case "script":
      return <p>Ran code · {item.calls} calls</p>;
    case "error":
      return <p role="alert">Something went wrong: {item.error}</p>;
    case "stopped":
      return <p>Stopped.</p>;
  }
}

const keyOf = (item: PanelItem): string => {
  switch (item.kind) {
    case "answer":
      return `answer ${item.turn} ${item.step}`;
    case "tool":
      return item.callId;
    case "confirm":
      return item.confirmId;
    case "script":
      return item.toolId;
    default:
      return `${item.kind} ${item.turn}`;
  }
};

export function AssistantPanel() {
  const { snapshot, prompt, stop, reset } = useAssistant();
  const [text, setText] = useState("");
  const send = (event: FormEvent) => {
    event.preventDefault();
    void prompt(text);
    setText("");
  };
  return (
    <aside aria-label="Assistant">
      {snapshot.items.map((item) => (
        <Item key={keyOf(item)} item={item} />
      ))}
      {snapshot.error !== null && <p role="alert">{snapshot.error.message}</p>}
      <form onSubmit={send}>
        <input
          aria-label="Ask the assistant"
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
        {snapshot.busy ? (
          <button type="button" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="submit">Send</button>
        )}
        <button type="button" onClick={() => void reset()}>
          New conversation
        </button>
      </form>
    </aside>
  );
}

export const App = ({ client }: { client: AssistantClient }) => (
  <AssistantProvider client={client}>
    <AssistantPanel />
  </AssistantProvider>
);
