// The shared Host lifecycle suite, on the sim's in-memory Macs.
import { runDriverSuite } from '../driver-suite.ts';
import { createSimDriver } from './index.ts';

runDriverSuite({
  name: 'sim',
  newDriver: () =>
    createSimDriver({
      timings: { cloneMs: 1, bootMs: 2, resizeMs: 1, stopMs: 1, deleteMs: 1, exportMs: 1, importMs: 1 },
    }),
  hostRef: { name: 'suite', address: '10.1.0.1', model: 'm4' },
});
