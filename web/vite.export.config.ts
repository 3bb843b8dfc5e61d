import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The web app as `passk export --format html` copies it into a run's folder: one classic script and
// one stylesheet (web/dist/export), since a page opened from disk (file://) may not load ES modules.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  envPrefix: "PASSK_WEB_",
  base: "./",
  publicDir: false,
  build: {
    outDir: "dist/export",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2500,
    modulePreload: false,
    rolldownOptions: {
      input: "src/main.tsx",
      // A classic script has no import.meta; the app's lazy pages are inlined, so nothing reads it.
      transform: { define: { "import.meta": "{}" } },
      output: {
        format: "iife",
        codeSplitting: false,
        entryFileNames: "passk-app.js",
        assetFileNames: "passk-app[extname]",
      },
    },
  },
});
