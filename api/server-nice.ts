/**
 * The nice level `sandbay server` runs at unless told (`--priority`): ahead of the desktops it
 * serves, so a call's few milliseconds of server work never wait behind a booting desktop. The
 * process launcher (hosts/linux/launcher-process.ts) puts itself back to 0, so the VMs' programs
 * run at the default. docs/desktop.md.
 */
export const DEFAULT_SERVER_NICE = -5;
