// The server's log format: JSON lines when stdout is not a terminal, pino-pretty's lines when it is.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

describe('the server log', () => {
  it('writes JSON lines when stdout is not a terminal', () => {
    const lines: string[] = [];
    const log = createLogger(
      'info',
      false,
      new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }),
    );
    log.info({ url: 'http://127.0.0.1:8080' }, 'sandbay is serving');
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      msg: 'sandbay is serving',
      url: 'http://127.0.0.1:8080',
    });
  });

  it('writes one readable line per event on a terminal', () => {
    const lines: string[] = [];
    const log = createLogger(
      'info',
      true,
      new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }),
    );
    log.info({ url: 'http://127.0.0.1:8080' }, 'sandbay is serving');
    const text = lines.join('');
    // eslint-disable-next-line no-control-regex
    const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: sandbay is serving \{"url":"http:\/\/127\.0\.0\.1:8080"\}\n$/,
    );
  });
});
