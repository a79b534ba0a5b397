import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'data/**', 'dist/**'],
    // Real desktops, real sshd and real SQLite files: give slow machines room, never sleep in tests.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two cores: the linux-driver suites start real Xvfb/x11vnc/sshd; running many files at once starves them.
    maxWorkers: 2,
    // Leaves the machine as the run found it (VM users, mounts, cgroups no live process holds).
    globalSetup: ['test/support/machine-teardown.ts'],
  },
});
