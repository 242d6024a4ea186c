// Unit tests for the panel's components: plain DOM in jsdom, no browser (the browser tests
// live in tests/e2e). The sources are TypeScript; vitest transpiles them on the fly.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'jsdom',
    include: ['test/**/*.test.ts'],
    pool: 'threads',
    poolOptions: { threads: { singleThread: true } }
  }
});
