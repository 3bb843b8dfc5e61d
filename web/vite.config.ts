import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The web app is built into web/dist, which `passk serve` serves. `npm run dev:web` proxies /api to a
// running `passk serve` on port 8787.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // Nothing from the environment reaches the bundle: only PASSK_WEB_-prefixed variables would.
  envPrefix: "PASSK_WEB_",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1200,
    rollupOptions: {
      output: {
        manualChunks: (id) =>
          id.includes("node_modules/echarts") || id.includes("node_modules/zrender") ? "charts" : undefined,
      },
    },
  },
  server: { proxy: { "/api": "http://127.0.0.1:8787" } },
});
