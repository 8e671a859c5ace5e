import { Schema } from "effect";
import { createApp, defineCommand } from "elyra-assistant";

/** Who is signed in, as your session knows them. */
export interface Member {
  readonly id: string;
  readonly name: string;
  readonly abilities: readonly string[];
}

const notes = new Map<number, string>([[1, "Call Ada about invoice 7."]]);

const notesIndex = defineCommand({
  name: "notes_index",
  description: "List the notes, each with its id and text.",
  can: "notes.view",
  args: {},
  run: () => [...notes].map(([id, text]) => ({ id, text })),
});

const notesDestroy = defineCommand({
  name: "notes_destroy",
  description: "Delete one note by its id.",
  can: "notes.delete",
  args: { id: Schema.Number },
  run: ({ id }) => ({ deleted: notes.delete(id) }),
});

export const app = createApp({
  commands: [notesIndex, notesDestroy],
  userAbilities: (user) => (user as Member).abilities,
  // What the assistant may do (never more than the user may), and what it asks first.
  assistant: { allow: ["notes.*"], confirm: ["notes.delete"] },
});
