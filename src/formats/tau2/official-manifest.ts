/** Official τ²-bench data files at the pinned upstream commit: path (inside data/tau2/) → git blob hash, size. */
export const OFFICIAL_COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f";

export const OFFICIAL_FILES: ReadonlyArray<{ path: string; blob: string; size: number }> = [
  { path: "domains/airline/db.json", blob: "c6a1e817aa9102c5822e83affb3595acbc312701", size: 7042725 },
  { path: "domains/airline/policy.md", blob: "8098be7db3f47de943fad39d1e057ede6cc6cd04", size: 7676 },
  { path: "domains/airline/split_tasks.json", blob: "c83cce155671e66a6bf07450fd2845fe0eb1f229", size: 1443 },
  { path: "domains/airline/tasks.json", blob: "ea4ff5e3f5e3d97ca391846a6e8dd9eb3437dc80", size: 155528 },
  { path: "domains/mock/db.json", blob: "df0ce81f3d277fe0aba201df3142e3f9a0ee1deb", size: 281 },
  { path: "domains/mock/policy.md", blob: "1a7b7b07ab195b6a83f82e025a26ec27eb82587c", size: 278 },
  { path: "domains/mock/policy_solo.md", blob: "4d02c3fd4c43c083e5238c8bd48769f77460f851", size: 224 },
  { path: "domains/mock/split_tasks.json", blob: "92895cfea24c5f650ce9035000dd1bc2be83a5a0", size: 416 },
  { path: "domains/mock/tasks.json", blob: "f2fff0c59336623ff8f8fdd6618d8cf03753e9ab", size: 14134 },
  { path: "domains/mock/user_db.json", blob: "d6b7d90110ab3fa34afa0b20c98083bebb4fcd51", size: 203 },
  { path: "domains/retail/db.json", blob: "4d67b03b2d39ade5a7ab6facb2edd7ab3e013d48", size: 2811616 },
  { path: "domains/retail/policy.md", blob: "d127e6b074654926f337d0d98b0e669ebe90d19e", size: 6699 },
  { path: "domains/retail/split_tasks.json", blob: "8b20704a17aa1940b1e58668f89dcef2ddaeeea3", size: 3263 },
  { path: "domains/retail/tasks.json", blob: "e95a9f898b2d1f6568ea8faec78edc3767ce747d", size: 345982 },
  { path: "domains/telecom/db.toml", blob: "6c8a639d85896a049a5daf87332107a840a55aac", size: 9628 },
  { path: "domains/telecom/main_policy.md", blob: "c55f5bd10c49a3d0b48f6e83a3168e6242fb2be7", size: 5699 },
  {
    path: "domains/telecom/main_policy_solo.md",
    blob: "2da88ab26054dbd574e48353e54b4296f0e554dd",
    size: 5200,
  },
  {
    path: "domains/telecom/split_tasks.json",
    blob: "a5b01687eaaa5c669f792bff33c0d6ec13be36fd",
    size: 356149,
  },
  { path: "domains/telecom/tasks.json", blob: "6f41a5e3489e187fa247d729706509d8250a31c1", size: 13977063 },
  { path: "domains/telecom/tasks_small.json", blob: "42edfc08d208b008ff68b41b40ebd0de560c1842", size: 83833 },
  {
    path: "domains/telecom/tech_support_manual.md",
    blob: "b64a9f1433bfb62bdaf9e5c1d90c10e833b26c17",
    size: 17589,
  },
  {
    path: "domains/telecom/tech_support_workflow.md",
    blob: "36104c70ea1caf5adfbbc8b26b61e29a1da72a7c",
    size: 16390,
  },
  {
    path: "domains/telecom/tech_support_workflow_solo.md",
    blob: "768d8f446ee7bd9d301f614a03d9a403810c2ecc",
    size: 15470,
  },
  { path: "domains/telecom/user_db.toml", blob: "1def9a98eabf1d4a5fc95a67387ec294f56196d8", size: 933 },
  {
    path: "domains/telecom/workflows/tech_support_path1_no_service.dot",
    blob: "0994c090575d0d763af4f09592c40464019f1ca1",
    size: 5821,
  },
  {
    path: "domains/telecom/workflows/tech_support_path2_mobile_data.dot",
    blob: "92836433b9a7dd61bfc5e0fe02e3310e8129589b",
    size: 12313,
  },
  {
    path: "domains/telecom/workflows/tech_support_path3_mms.dot",
    blob: "6ba8d8c5aae8408318bc2bebac2cd8c5afe58a85",
    size: 5961,
  },
  {
    path: "user_simulator/simulation_guidelines.md",
    blob: "b55a28a1d5eaf81e72bdc263307d9f512fe49a99",
    size: 1449,
  },
  {
    path: "user_simulator/simulation_guidelines_tools.md",
    blob: "a7235b1ddf8d0d1e2edc9b1708916f37b0aac045",
    size: 2747,
  },
  {
    path: "user_simulator/simulation_guidelines_voice.md",
    blob: "0fddef3ec6e14ed5c22c685ea417268f91b8db73",
    size: 6540,
  },
  {
    path: "user_simulator/simulation_guidelines_voice_tools.md",
    blob: "344f00b6b368eff7277edded7afd0fecdfbb8e59",
    size: 7912,
  },
];

/**
 * Upstream source files at the pinned commit (path in the repository → git blob hash) that hold texts
 * the reference shows models but does not keep as data: the agent and user-simulator prompt templates
 * (module constants) and the tools' descriptions (docstrings). `passk data pull` puts them under
 * `<data dir>/upstream/<path>`; passk reads the texts out of them (`formats/tau2/upstream/`).
 */
export const UPSTREAM_FILES: ReadonlyArray<{ path: string; blob: string }> = [
  { path: "src/tau2/agent/llm_agent.py", blob: "652974ff98edb652c582453687977cff1742b7bd" },
  { path: "src/tau2/user/user_simulator.py", blob: "51ef4bba88e2565532ce02da1f36ab3021028178" },
  { path: "src/tau2/environment/tool.py", blob: "cf55463cbac9286f36f5b01f5c799d5b0b50da88" },
  { path: "src/tau2/domains/mock/tools.py", blob: "a4430b1e1c4d037ab2ad8c701a56f8f491a33457" },
  { path: "src/tau2/domains/mock/user_tools.py", blob: "22dc2fee3abd6a5f75dfe18e49098fdde0e729ee" },
  { path: "src/tau2/domains/airline/tools.py", blob: "adc5c09a155d82d91e2f0647682023419eaca2ea" },
  { path: "src/tau2/domains/retail/tools.py", blob: "eba01ab32dca0d4ef33328c22358b794d859f2b6" },
  { path: "src/tau2/domains/telecom/tools.py", blob: "c531b4c717233285271f3c4039961a6a8e562ed6" },
  { path: "src/tau2/domains/telecom/user_tools.py", blob: "a79447b0af1abbe23caeaaefa79b34432279f942" },
  { path: "src/tau2/domains/banking_knowledge/tools.py", blob: "60ed2208905a8cd42c03e6e4a4cc7227f6062d4c" },
  {
    path: "src/tau2/domains/banking_knowledge/retrieval_toolkits.py",
    blob: "f52732b4d00552234fa6b3fdbf5c5548891fd7e4",
  },
  {
    path: "src/tau2/domains/banking_knowledge/retrieval_mixins.py",
    blob: "edd7c246eb582e8005357fb0b0bd670aa1c93f19",
  },
  { path: "docs/leaderboard-submission.md", blob: "113b7466b05593bcaa2bc6f270ddc87d6325947d" },
];

/**
 * The reference's voice test data at the pinned commit, put by `passk data pull` under
 * `<data dir>/voice/<path>`: its golden set for the τ-voice interaction metrics (a voice run in its
 * directory format, three full-duplex simulations with their ticks, and the metrics its own code gives on
 * it), which passk's tests check the metrics on; and its eight recorded utterances (16 kHz mono WAV, the
 * words in the file name), which passk's browser tests play into the voice playground's microphone path.
 */
export const VOICE_FILES: ReadonlyArray<{ path: string; blob: string }> = [
  {
    path: "tests/test_voice/test_interaction_metrics/testdata/expected_metrics.json",
    blob: "0e90261985f5ad573e0e69028e6b9a17e0ece317",
  },
  {
    path: "tests/test_voice/test_interaction_metrics/testdata/experiment/results.json",
    blob: "a388a3c2e2ccff0e6f78a253b946f8ff816dd43a",
  },
  {
    path: "tests/test_voice/test_interaction_metrics/testdata/experiment/simulations/49b22f0c-4a56-41c5-922f-bc2a56e53a23.json",
    blob: "33bb0218318c868c2d2a0a09796546ceedbddd19",
  },
  {
    path: "tests/test_voice/test_interaction_metrics/testdata/experiment/simulations/7c6a3e3e-ac3f-406f-aea9-8cacb0a2e680.json",
    blob: "bf6046b9ead223cf30737c46e362fc5f64996aad",
  },
  {
    path: "tests/test_voice/test_interaction_metrics/testdata/experiment/simulations/cd9c5ed2-9751-4c86-8dac-8a895a332e41.json",
    blob: "33665ecc7f2628c4c44d0600d9076cfeadb6f6f3",
  },
  {
    path: "tests/test_voice/test_audio_native/testdata/check_order_12345.wav",
    blob: "7a0fb6deee5db9c62b9fbc8779ffb807556cee4e",
  },
  {
    path: "tests/test_voice/test_audio_native/testdata/hello.wav",
    blob: "343ac74005d1033d7357f11687c25e2005cb6805",
  },
  {
    path: "tests/test_voice/test_audio_native/testdata/help_me.wav",
    blob: "1b782a4a957fc4041e00f721a333b31603e101ec",
  },
  {
    path: "tests/test_voice/test_audio_native/testdata/hi_how_are_you.wav",
    blob: "a0029056953d43a396c627730797289bd02e561c",
  },
  {
    path: "tests/test_voice/test_audio_native/testdata/no.wav",
    blob: "596520c4f55c270af21282977e4c443bbed488f8",
  },
  {
    path: "tests/test_voice/test_audio_native/testdata/order_status.wav",
    blob: "7bf157bd05d2e3feb4f27a9e7d8f8cb1e5ad9e34",
  },
  {
    path: "tests/test_voice/test_audio_native/testdata/thank_you.wav",
    blob: "1f7bee9b10c2bef6331e8e79b3d4d49975ff744a",
  },
  {
    path: "tests/test_voice/test_audio_native/testdata/yes.wav",
    blob: "58a8185fa047ee216df54a7a28843d07ac12b7d3",
  },
];

/**
 * The τ-voice data at the pinned commit: each domain's frozen per-task voice settings
 * (`<data dir>/<domain>/tasks_voice.json`) and the noise recordings the caller's line mixes in
 * (`<data dir>/voice/noise/{continuous,bursts}/*.wav`). `optional` files are fetched when the network
 * allows and otherwise only warned about (a pull without them succeeds): telecom's settings and three
 * of the four background recordings, which are not in the reference material copied beside passk.
 */
export const VOICE_DATA_FILES: ReadonlyArray<{
  remote: string;
  local: string;
  blob: string;
  optional: boolean;
}> = [
  {
    remote: "data/tau2/domains/mock/tasks_voice.json",
    local: "mock/tasks_voice.json",
    blob: "f9b3384b845591aa9448c6bfd1196f073f31514f",
    optional: false,
  },
  {
    remote: "data/tau2/domains/airline/tasks_voice.json",
    local: "airline/tasks_voice.json",
    blob: "8922c8c41ffcc39a428d85b64bc258813efa1556",
    optional: false,
  },
  {
    remote: "data/tau2/domains/retail/tasks_voice.json",
    local: "retail/tasks_voice.json",
    blob: "96a76e33e1dcc228bf8871507e0678a77d9be8c8",
    optional: false,
  },
  {
    remote: "data/tau2/domains/banking_knowledge/tasks_voice.json",
    local: "banking_knowledge/tasks_voice.json",
    blob: "a2c1dbff5681ddddd719f02094c6086576807069",
    optional: false,
  },
  {
    remote: "data/tau2/domains/telecom/tasks_voice.json",
    local: "telecom/tasks_voice.json",
    blob: "65157f551553d555c490585f68191060a768788d",
    optional: true,
  },
  {
    remote: "data/voice/background_noise_audio_pcm_mono_verified/bursts/car_horn.wav",
    local: "voice/noise/bursts/car_horn.wav",
    blob: "0ddd123421ae9ef5a118e5b9dda4e34dda89cd42",
    optional: false,
  },
  {
    remote: "data/voice/background_noise_audio_pcm_mono_verified/bursts/dog_bark.wav",
    local: "voice/noise/bursts/dog_bark.wav",
    blob: "d45de0944a2ae05165c0eef4e68ee87ab4218f23",
    optional: false,
  },
  {
    remote: "data/voice/background_noise_audio_pcm_mono_verified/bursts/engine_idling.wav",
    local: "voice/noise/bursts/engine_idling.wav",
    blob: "51c16864383bad431a2e4d672b3cf5cfe96d6e1f",
    optional: false,
  },
  {
    remote: "data/voice/background_noise_audio_pcm_mono_verified/bursts/ringing_phone.wav",
    local: "voice/noise/bursts/ringing_phone.wav",
    blob: "21a51aa47d5425d559856cd21fe277abb7cbedb9",
    optional: false,
  },
  {
    remote: "data/voice/background_noise_audio_pcm_mono_verified/bursts/siren.wav",
    local: "voice/noise/bursts/siren.wav",
    blob: "635df41e1d52a40b84109dc31be8fa2186aa2791",
    optional: false,
  },
  {
    remote: "data/voice/background_noise_audio_pcm_mono_verified/continuous/busy_street_iphone_mic.wav",
    local: "voice/noise/continuous/busy_street_iphone_mic.wav",
    blob: "04eaf0ef65aefbaef4087be4429ca59fcdbaff78",
    optional: true,
  },
  {
    remote:
      "data/voice/background_noise_audio_pcm_mono_verified/continuous/medium_size_room_tv_news_iphone_mic.wav",
    local: "voice/noise/continuous/medium_size_room_tv_news_iphone_mic.wav",
    blob: "7d325b64ac15d9a12a4f0e20a2067d8b14b473b0",
    optional: true,
  },
  {
    remote: "data/voice/background_noise_audio_pcm_mono_verified/continuous/people_talking.wav",
    local: "voice/noise/continuous/people_talking.wav",
    blob: "e114f7b6fd13e15357a95f9f1bb9fc4fae0725e0",
    optional: false,
  },
  {
    remote:
      "data/voice/background_noise_audio_pcm_mono_verified/continuous/street_and_metro_station_iphone_mic.wav",
    local: "voice/noise/continuous/street_and_metro_station_iphone_mic.wav",
    blob: "6297e2602d282c3acde7b9481d74c0508841b3fe",
    optional: true,
  },
];

/** An upstream module defining pydantic models that tool parameters take (see `DATA_MODEL_MODULES`). */
export interface DataModelModule {
  /** Path in the repository at the pinned commit. */
  path: string;
  /** The `$defs` entries the module gives the tool schemas, by model or Enum class name. */
  defs: readonly string[];
  /** SHA-256 of the canonical JSON of those entries (`canonicalDefsJson` in formats/tau2/upstream). */
  digest: string;
}

/**
 * Upstream modules holding the pydantic models some tool parameters take (airline's `FlightInfo`,
 * `Passenger`, `Payment`; telecom's `APNSettings`, `APNNames`, `NetworkModePreference`), whose field
 * descriptions and docstrings the reference shows models inside the tool schemas' `$defs`. Their git blob
 * hashes at the pinned commit are not known to passk, so they are optional and verified by what passk
 * reads from them: each digest is that of the expected `$defs` entries, the schema text the reference
 * sends (computed once from the reference's recorded tool schemas). Without them, tool schemas carry
 * these models with passk's structure and no descriptions; everything else is exact.
 */
export const DATA_MODEL_MODULES: ReadonlyArray<DataModelModule> = [
  {
    path: "src/tau2/domains/airline/data_model.py",
    defs: ["FlightInfo", "Passenger", "Payment"],
    digest: "e1a8f37eca9f4035b975eb16f8047073dd4b7b2a61760cf8f502198da82c9893",
  },
  {
    path: "src/tau2/domains/telecom/user_data_model.py",
    defs: ["APNNames", "APNSettings", "NetworkModePreference"],
    digest: "1424affeaa46475c22c5428f8cd37bfe34d83f5a8de8f17cc60e70977ae629b6",
  },
];
