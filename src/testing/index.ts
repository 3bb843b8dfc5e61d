export { startMockLlmServer } from "./mock-llm-server.js";
export type {
  MockLlmRequest,
  MockLlmScript,
  MockLlmServer,
  MockLlmServerOptions,
} from "./mock-llm-server.js";
export { mockReply } from "./mock-llm-reply.js";
export type { MockLlmReply, MockToolCall, MockUsage } from "./mock-llm-reply.js";
export type { MockCacheBreakpoint, MockLlmConversation, MockLlmProtocol } from "./mock-llm-codec.js";
export type { MockPromptCacheOptions, MockPromptCacheUsage } from "./mock-llm-prompt-cache.js";
export { goldReplies, goldScript, isUserSimulatorRequest } from "./gold-model.js";
export { flakyGoldAgent, spreadSuccessProbability } from "./flaky-agent.js";
export {
  hearTestSpeech,
  speakTestSpeech,
  testSpeechSeconds,
  TestSpeechListener,
  SYMBOL_SECONDS,
} from "./speech-codec.js";
