// Reading Tart's `--format json` output (fields as Sources/tart/Commands/List.swift and Get.swift
// encode them). Anything else is an error naming the command and quoting the text.
import { unexpectedOutput } from './tart-errors.ts';

export interface TartListEntry {
  Source: string;
  Name: string;
  Disk: number;
  Running: boolean;
  State: string;
}

export interface TartVmInfo {
  CPU: number;
  /** MiB. */
  Memory: number;
  Disk: number;
  Display: string;
  Running: boolean;
  State: string;
}

function parse(command: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw unexpectedOutput(command, 'not JSON', text);
  }
}

export function parseList(text: string): TartListEntry[] {
  const v = parse('tart list', text);
  const ok =
    Array.isArray(v) &&
    v.every(
      (e: Record<string, unknown>) =>
        typeof e?.Name === 'string' &&
        typeof e.Source === 'string' &&
        typeof e.Disk === 'number' &&
        typeof e.Running === 'boolean',
    );
  if (!ok) throw unexpectedOutput('tart list', 'not a list of VMs with Name, Source, Disk and Running', text);
  return v as TartListEntry[];
}

export function parseGet(text: string): TartVmInfo {
  const v = parse('tart get', text) as Record<string, unknown>;
  const ok =
    typeof v?.CPU === 'number' &&
    typeof v.Memory === 'number' &&
    typeof v.Running === 'boolean' &&
    typeof v.Display === 'string';
  if (!ok) throw unexpectedOutput('tart get', 'not a VM with CPU, Memory, Display and Running', text);
  return v as unknown as TartVmInfo;
}

/** `VNC server is running at vnc://:<password>@127.0.0.1:<port>` (Tart's one line for --vnc-experimental). */
export function parseVncLine(text: string): { password: string; host: string; port: number } | undefined {
  const m = /^VNC server is running at vnc:\/\/:([^@\s]*)@([0-9.]+):(\d+)\s*$/m.exec(text);
  if (!m) return undefined;
  return { password: decodeURIComponent(m[1]!), host: m[2]!, port: Number(m[3]) };
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function parseIp(text: string): string {
  const ip = text.trim();
  if (!IPV4.test(ip)) throw unexpectedOutput('tart ip', 'not an IPv4 address', text);
  return ip;
}

/** macOS' `sysctl -n kern.boottime`: `{ sec = 1732435200, usec = 12345 } Tue Nov 24 07:20:00 2026`. */
export function parseBootTime(text: string): string {
  const m = /^\{ sec = (\d+), usec = (\d+) \}/.exec(text.trim());
  if (!m) throw unexpectedOutput('sysctl -n kern.boottime', 'not `{ sec = N, usec = N }`', text);
  return new Date(Number(m[1]) * 1000 + Math.floor(Number(m[2]) / 1000)).toISOString();
}
