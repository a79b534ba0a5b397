import { describe, expect, it } from 'vitest';
import { ApiMetrics } from './metrics.ts';

describe('ApiMetrics', () => {
  it('counts requests by method, route and status across scrapes (counts kept per request, added when scraped)', async () => {
    const metrics = new ApiMetrics({ defaultMetrics: false });
    const observe = metrics.observerOf('/v1/sandboxes/:sandboxID');
    const answer = (method: string, statusCode: number) =>
      observe.call(
        undefined as never,
        { method } as never,
        { statusCode, elapsedTime: 2 } as never,
        () => {},
      );
    answer('GET', 200);
    answer('GET', 200);
    answer('GET', 404);
    const line = (text: string, status: number) =>
      text
        .split('\n')
        .find((l) =>
          l.startsWith(
            `sandbay_http_requests_total{method="GET",route="/v1/sandboxes/:sandboxID",status="${status}"}`,
          ),
        );
    let text = await metrics.registry.metrics();
    expect(line(text, 200)).toMatch(/ 2$/);
    expect(line(text, 404)).toMatch(/ 1$/);
    expect(text).toMatch(
      /sandbay_http_request_duration_seconds_count\{method="GET",route="\/v1\/sandboxes\/:sandboxID"\} 3/,
    );
    answer('GET', 200);
    text = await metrics.registry.metrics();
    expect(line(text, 200)).toMatch(/ 3$/);
    expect(line(text, 404)).toMatch(/ 1$/);
  });
});
