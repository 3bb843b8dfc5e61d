// Reading the reference's (τ²-bench's) model-facing texts out of its Python source, as data.

export {
  definitionsJsonSchema,
  parametersJsonSchema,
  pythonTitle,
  sortLikePydantic,
  type JsonObject,
  type JsonValue,
  type SchemaOptions,
  type SchemaParameter,
  type SourceEnum,
  type SourceField,
  type SourceModel,
  type SourceType,
} from "./pydantic-schema.js";
export { moduleTypeAliases, pythonSourceTypes } from "./pydantic-models.js";
export {
  canonicalDefsJson,
  checkDataModelSource,
  defsDigest,
  readDataModelDefs,
  replaceableDefs,
  withDefs,
  withoutDescriptions,
  type DataModelCheck,
} from "./data-models.js";
export {
  extractDoneTool,
  extractToolkit,
  extractToolkitWithDiscoverable,
  toolDescription,
  type ExtractedTool,
  type ExtractedToolkit,
  type ExtractToolkitOptions,
  type ToolType,
} from "./extract-tools.js";
export {
  extractPromptTemplates,
  LLM_AGENT_FILE,
  USER_SIMULATOR_FILE,
  type AgentPromptTemplates,
  type PromptTemplates,
  type UserPromptTemplates,
} from "./extract-prompts.js";
