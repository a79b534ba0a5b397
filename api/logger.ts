// The server's log: JSON lines (for collectors) unless stdout is a terminal, where a person reads it
// and gets pino-pretty's one line per event with the time and level up front.
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export function createLogger(
  level = process.env.LOG_LEVEL ?? 'info',
  tty = process.stdout.isTTY,
  destination: NodeJS.WritableStream = process.stdout,
): Logger {
  if (!tty) return pino({ level }, destination);
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
