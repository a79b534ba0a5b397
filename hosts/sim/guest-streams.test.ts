// The guest streams contract (streaming exec, forwarded ports, clipboard) on the sim driver.
import { runGuestStreamsSuite } from '../guest-streams-suite.ts';
import { createSimDriver } from './index.ts';

runGuestStreamsSuite({
  name: 'sim',
  newDriver: () => createSimDriver({ timings: { cloneMs: 0, bootMs: 0, stopMs: 0, deleteMs: 0 } }),
  hostRef: { name: 'streams', address: '10.0.0.1', model: 'm4' },
  serve: (port, dir) => `serve ${port} ${dir}`,
  processes: false,
});
