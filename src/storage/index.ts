export { openCheckpointer } from "./checkpointer.js";
