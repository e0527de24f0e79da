export type { DecisionContext, ProvenanceSettings, TurnCall } from "./context.js";
export { provenanceIndex, ProvenanceIndex, MAX_INDEXED_CHARS_PER_MESSAGE } from "./index-builder.js";
export type { Evidence, SourceKind as ProvenanceSourceKind, SourceText } from "./index-builder.js";
export { canonicalText, DEFAULT_MIN_LENGTH, extractIdentifiers, MIN_NUMBER_DIGITS, tokenize as provenanceTokens, valueQuery } from "./tokens.js";
export type { ValueQuery } from "./tokens.js";
export { AfterSchema, BudgetSchema, FromSchema, NumericSchema, ProvenanceConfigSchema, SourceSchema } from "./schema.js";
export type { BudgetCondition, ConditionSpec, FromCondition, NumericCondition, ProvenanceConfig } from "./schema.js";
