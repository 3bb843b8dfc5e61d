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
export { startMockRealtimeServer } from "./mock-realtime-server.js";
export type {
  MockRealtimeBrain,
  MockRealtimeCall,
  MockRealtimeServer,
  MockRealtimeServerOptions,
  MockRealtimeTrigger,
  MockRealtimeTurn,
  MockToolOutput,
  SpeechListener,
} from "./mock-realtime-server.js";
export { goldVoicePolicy } from "./gold-voice-policy.js";

export { startMockSpeechServer, MOCK_SPEECH_SAMPLE_RATE } from "./mock-speech-server.js";
export type {
  MockSpeechFailure,
  MockSpeechRequest,
  MockSpeechServer,
  MockSpeechServerOptions,
} from "./mock-speech-server.js";

export { startMockGeminiLiveServer } from "./mock-gemini-live-server.js";
export type {
  MockGeminiLiveBrain,
  MockGeminiLiveEvent,
  MockGeminiLiveReply,
  MockGeminiLiveServer,
  MockGeminiLiveServerOptions,
  MockGeminiLiveSession,
} from "./mock-gemini-live-server.js";
