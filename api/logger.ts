// The server's log: JSON lines (for collectors) unless stdout is a terminal, where a person reads it
// and gets pino-pretty's one line per event with the time and level up front.
import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

// pino-pretty (with its colour and date libraries) is loaded for a terminal only: a server logging
// JSON lines to a collector never runs it.
const require = createRequire(import.meta.url);

export function createLogger(
  level = process.env.LOG_LEVEL ?? 'info',
  tty = process.stdout.isTTY,
  destination: NodeJS.WritableStream = process.stdout,
): Logger {
  if (!tty) return pino({ level }, destination);
  const pretty = require('pino-pretty') as typeof PinoPretty;
  const stream = pretty({
    colorize: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
    sync: true,
    destination,
  });
  return pino({ level }, stream);
}
