// One sim VM: its size, run state and address, and — allocated only once used — its disk and the
// guest's state (pointer, typed text, recordings). A VM that is only cloned and booted costs a few
// hundred bytes, so 2,000 of them fit easily.
import type { EgressPolicy } from '../../crds/index.ts';
import type { ClipboardContent, VmInfo } from '../driver.ts';
import type { SimDisk } from './disk.ts';
import { SimNetwork } from './network.ts';
import type { Recordings } from './recordings.ts';

/** `starting` and `stopping` hold the VM's cores and memory; only `running` answers guest calls. */
export type SimVmState = 'stopped' | 'starting' | 'running' | 'stopping';

export interface GuestState {
  cursor: { x: number; y: number };
  /** The last characters typed (bounded), for tests and replays to check what reached the guest. */
  typed: string;
  /** Input events seen: moves, clicks, scrolls, key presses. */
  inputEvents: number;
  recordings: Recordings;
  /** What the clipboard holds (set through the guest). */
  clipboard: ClipboardContent;
  /** Its servers and streams, ended at power-off. */
  network: SimNetwork;
}

export const TYPED_MAX = 4096;

export class SimVm {
  readonly name: string;
  image: string;
  cpu: number;
  memoryGiB: number;
  state: SimVmState = 'stopped';
  /** A running VM frozen by `pauseVm`: it holds its resources and answers no guest call. */
  paused = false;
  ip: string | undefined;
  disk: SimDisk | undefined;
  guest: GuestState | undefined;
  lastActivityMs: number | undefined;
  /** The egress policy in force while it runs (the sim records it; nothing leaves a sim VM). */
  egress: EgressPolicy | undefined;

  constructor(name: string, image: string, cpu: number, memoryGiB: number) {
    this.name = name;
    this.image = image;
    this.cpu = cpu;
    this.memoryGiB = memoryGiB;
  }

  /** Holds cores and memory on the host. */
  get holdsResources(): boolean {
    return this.state !== 'stopped';
  }

  guestState(): GuestState {
    this.guest ??= {
      cursor: { x: 0, y: 0 },
      typed: '',
      inputEvents: 0,
      recordings: new Map(),
      clipboard: { type: 'empty' },
      network: new SimNetwork(),
    };
    return this.guest;
  }

  info(): VmInfo {
    const running = this.state === 'running';
    return {
      name: this.name,
      image: this.image,
      cpu: this.cpu,
      memoryGiB: this.memoryGiB,
      state: running ? 'running' : 'stopped',
      ...(running && this.paused && { paused: true }),
      ...(running && this.ip !== undefined && { ip: this.ip }),
    };
  }
}
