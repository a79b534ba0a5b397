// The linux host driver: this machine's Linux desktops stand in for a Mac's VMs.
export { createLinuxDriver, type LinuxDriver, type LinuxDriverOptions } from './create-driver.ts';
export { LinuxHost } from './host.ts';
export { checkTools, requireTools } from './tools.ts';
export type { LinuxVmRuntime } from './vm-runtime.ts';
