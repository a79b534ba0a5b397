// The exec marker scanner: output before the marker, the status after it, whatever the chunking.
import { describe, expect, it } from 'vitest';
import { MarkedStream } from './exec-marker.ts';

const MARKER = '0123456789abcdef0123456789abcdef';

function feed(chunks: string[], withStatus = true): { out: string[]; stream: MarkedStream } {
  const out: string[] = [];
  const stream = new MarkedStream(MARKER, withStatus, (c) => out.push(c.toString('latin1')));
  for (const c of chunks) stream.add(Buffer.from(c, 'latin1'));
  return { out, stream };
}

describe('MarkedStream', () => {
  it('hands output on at once when its end cannot start a marker (a prompt waiting for input)', () => {
    expect(feed(['first\n']).out).toEqual(['first\n']);
  });

  it('holds back only the bytes that may start a marker, and finds a marker cut anywhere', () => {
    const whole = `out 0123${MARKER}7${MARKER}`;
    for (let cut = 1; cut < whole.length; cut++) {
      const { out, stream } = feed([whole.slice(0, cut), whole.slice(cut)]);
      expect(out.join('')).toBe('out 0123');
      expect([stream.done, stream.status]).toEqual([true, 7]);
    }
  });

  it('gives held-back bytes as output when the stream ends without a marker', () => {
    const { out, stream } = feed(['tail 0123'], false);
    expect(out.join('')).toBe('tail ');
    stream.flush();
    expect(out.join('')).toBe('tail 0123');
    expect(stream.done).toBe(false);
  });

  it('collects into its capture when given no sink', () => {
    const stream = new MarkedStream(MARKER, false);
    stream.add(Buffer.from(`abc${MARKER}ignored`));
    expect([stream.capture.text(), stream.done]).toEqual(['abc', true]);
  });
});
