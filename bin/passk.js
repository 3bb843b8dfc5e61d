#!/usr/bin/env node
import("../dist/cli/main.js").catch((error) => {
  if (error && error.code === "ERR_MODULE_NOT_FOUND") {
    console.error("passk is not built yet: run `npm install` (or `npm run build`) first.");
    process.exit(1);
  }
  throw error;
});
