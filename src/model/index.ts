export { createModel } from "./create-model.js";
