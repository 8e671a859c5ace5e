// @vitest-environment happy-dom
/**
 * docs/ui.md's Svelte and Vue recipes, run as written against the fake
 * client: a prompt, an answer streaming in, a confirmation answered. The
 * Svelte component is read out of the page (its one `svelte` block) and
 * compiled; the Vue composable is ./recipes/useAssistant.vue.ts, which the
 * page quotes whole (the last test checks it still does).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fireEvent, within } from "@testing-library/dom";
import { createAssistantStore } from "elyra-assistant/ui";
import { build, type Plugin } from "esbuild";
import { compile } from "svelte/compiler";
import { afterEach, describe, expect, it } from "vitest";
import { createApp, defineComponent, nextTick, type PropType, ref } from "vue";
import { fencedBlocks } from "../react/fenced.ts";
import { answeredTurn, askedToDelete, fakeClient, numbered } from "./fixtures.ts";
import { useAssistant } from "./recipes/useAssistant.vue.ts";

const RECIPES = join(import.meta.dirname, "recipes");

afterEach(() => {
  document.body.innerHTML = "";
});

/** docs/ui.md's Svelte recipe, as a `.svelte` file a bundler's Svelte plugin compiles for the browser. */
const svelteRecipe: Plugin = {
  name: "svelte-recipe",
  setup: (b) => {
    b.onResolve({ filter: /^recipe\.svelte$/ }, ({ path }) => ({ path, namespace: "docs" }));
    b.onLoad({ filter: /.*/, namespace: "docs" }, () => {
      const blocks = fencedBlocks("docs/ui.md", "svelte");
      expect(blocks).toHaveLength(1);
      const compiled = compile(blocks[0] ?? "", { filename: "recipe.svelte", generate: "client" });
      return { contents: compiled.js.code, loader: "js", resolveDir: RECIPES };
    });
  },
};

interface SvelteBundle {
  readonly default: never;
  readonly mount: (component: never, options: { target: Element; props: object }) => object;
  readonly unmount: (instance: object) => void;
  readonly flushSync: () => void;
}

/** The recipe and Svelte's browser runtime in one module (one copy of Svelte), loaded from a data: URL. */
const loadSvelteRecipe = async (): Promise<SvelteBundle> => {
  const bundled = await build({
    stdin: {
      contents: `export { default } from "recipe.svelte";\nexport { mount, unmount, flushSync } from "svelte";`,
      resolveDir: RECIPES,
      loader: "js",
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["browser"],
    write: false,
    logLevel: "silent",
    plugins: [svelteRecipe],
  });
  const code = bundled.outputFiles[0]?.text ?? "";
  return import(
    /* @vite-ignore */ `data:text/javascript;base64,${Buffer.from(code).toString("base64")}`
  );
};

describe("the Svelte recipe", () => {
  it("prompts, streams the answer in and answers a confirmation", async () => {
    const svelte = await loadSvelteRecipe();
    const fake = fakeClient();
    const store = createAssistantStore(fake.client);
    const target = document.body.appendChild(document.createElement("div"));
    const app = svelte.mount(svelte.default, { target, props: { store } });
    const view = within(target);

    const box = view.getByLabelText<HTMLInputElement>("Ask the assistant");
    fireEvent.input(box, { target: { value: "Who owes us?" } });
    fireEvent.submit(box.closest("form") as HTMLFormElement);
    svelte.flushSync();
    expect(fake.calls).toEqual([{ method: "prompt", args: ["Who owes us?", "/"] }]);
    expect(box.value).toBe("");

    const [started, step, first, second, answered] = numbered(
      answeredTurn(1, "Who owes us?", ["Acme owes ", "€1,200."]),
    );
    fake.emit(started!, step!, first!);
    svelte.flushSync();
    expect(view.getByText("Who owes us?")).toBeTruthy();
    const answer = view.getByText("Acme owes");
    fake.emit(second!, answered!);
    svelte.flushSync();
    expect(answer.textContent).toBe("Acme owes €1,200.");

    fake.emit(...numbered([askedToDelete(42)], 6));
    svelte.flushSync();
    expect(view.getByText("Delete a customer.")).toBeTruthy();
    fireEvent.click(view.getByRole("button", { name: "Accept" }));
    await Promise.resolve();
    expect(fake.calls.at(-1)).toEqual({
      method: "confirm",
      args: ["c42", true, { tool: "customers_destroy", args: { id: 42 } }],
    });
    fake.emit(
      ...numbered([{ _tag: "ConfirmAnswered", turn: 1, confirmId: "c42", answer: "accepted" }], 7),
    );
    svelte.flushSync();
    expect(view.queryByRole("button", { name: "Accept" })).toBeNull();

    svelte.unmount(app);
    expect(fake.streams.map((s) => s.open)).toEqual([false]);
  });
});

describe("the Vue recipe", () => {
  it("follows the store in a shallowRef: the prompt, the answer streaming in, a confirmation", async () => {
    const fake = fakeClient();
    const store = createAssistantStore(fake.client);
    const Panel = defineComponent({
      props: { store: { type: Object as PropType<typeof store>, required: true } },
      setup: (props) => {
        const snapshot = useAssistant(props.store);
        const text = ref("");
        const send = () => {
          void props.store.prompt(text.value);
          text.value = "";
        };
        return { snapshot, text, send };
      },
      template: `
        <template v-for="item in snapshot.items">
          <p v-if="item.kind === 'user' || item.kind === 'answer'">{{ item.text }}</p>
          <button v-else-if="item.kind === 'confirm' && item.answer === undefined"
            @click="store.confirm(item.confirmId, true)">{{ item.action }}</button>
        </template>
        <form @submit.prevent="send"><input aria-label="Ask the assistant" v-model="text" /></form>`,
    });
    const target = document.body.appendChild(document.createElement("div"));
    const app = createApp(Panel, { store });
    app.mount(target);
    const view = within(target);

    const box = view.getByLabelText<HTMLInputElement>("Ask the assistant");
    fireEvent.input(box, { target: { value: "Who owes us?" } });
    fireEvent.submit(box.closest("form") as HTMLFormElement);
    await nextTick();
    expect(fake.calls).toEqual([{ method: "prompt", args: ["Who owes us?", "/"] }]);
    expect(box.value).toBe("");

    const [started, step, first, second, answered] = numbered(
      answeredTurn(1, "Who owes us?", ["Acme owes ", "€1,200."]),
    );
    fake.emit(started!, step!, first!);
    await nextTick();
    const answer = view.getByText("Acme owes");
    fake.emit(second!, answered!);
    await nextTick();
    expect(answer.textContent).toBe("Acme owes €1,200.");

    fake.emit(...numbered([askedToDelete(42)], 6));
    await nextTick();
    fireEvent.click(view.getByRole("button", { name: "Accept" }));
    await nextTick();
    expect(fake.calls.at(-1)).toEqual({
      method: "confirm",
      args: ["c42", true, { tool: "customers_destroy", args: { id: 42 } }],
    });
    fake.emit(
      ...numbered([{ _tag: "ConfirmAnswered", turn: 1, confirmId: "c42", answer: "accepted" }], 7),
    );
    await nextTick();
    expect(view.queryByRole("button", { name: "Accept" })).toBeNull();

    // Unmounting disposes the component's scope: the recipe unsubscribes, the stream closes.
    app.unmount();
    expect(fake.streams.map((s) => s.open)).toEqual([false]);
  });
});

describe("docs/ui.md", () => {
  it("quotes the Vue recipe whole", () => {
    const recipe = readFileSync(join(RECIPES, "useAssistant.vue.ts"), "utf8");
    expect(fencedBlocks("docs/ui.md", "ts")).toContain(recipe);
  });
});
