import { memoryThreads } from "../../src/runtime/threads/memoryThreads.ts";
import { threadIndexContract } from "../fixtures/threadIndexContract.ts";

threadIndexContract("memoryThreads", () => ({ index: memoryThreads() }));
