// Components rendered to HTML in Node (no DOM needed): the error state shows the API's message,
// resolution, code and request id; QueryState picks loading, error, empty or the content.
import { describe, expect, test } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { ApiError } from '../api/client';
import { ErrorMessage, QueryState } from './states';

const query = <T,>(over: Partial<{ isPending: boolean; isError: boolean; error: unknown; data: T }>) => ({
  isPending: false,
  isError: false,
  error: null,
  data: undefined as T | undefined,
  refetch: () => undefined,
  ...over,
});

describe('states', () => {
  test('an API error shows its message, resolution, status, code and request id, as an alert', () => {
    const html = renderToStaticMarkup(
      <ErrorMessage
        error={
          new ApiError(409, {
            code: 'version_conflict',
            message: 'The environment moved.',
            resolution: 'Reload.',
            requestId: 'req_1',
          })
        }
      />,
    );
    expect(html).toContain('role="alert"');
    expect(html).toContain('The environment moved.');
    expect(html).toContain('Reload.');
    expect(html).toContain('409 version_conflict');
    expect(html).toContain('req_1');
  });

  test('QueryState: loading, error with a retry, empty, content', () => {
    expect(
      renderToStaticMarkup(
        <QueryState query={query({ isPending: true })} loading="Loading flags…">
          {() => 'x'}
        </QueryState>,
      ),
    ).toContain('Loading flags…');
    expect(
      renderToStaticMarkup(
        <QueryState query={query({ isError: true, error: new Error('down') })}>{() => 'x'}</QueryState>,
      ),
    ).toMatch(/down.*Try again/);
    expect(
      renderToStaticMarkup(
        <QueryState query={query({ data: [] as number[] })} isEmpty={(d) => d.length === 0} empty="Nothing here">
          {() => 'x'}
        </QueryState>,
      ),
    ).toBe('Nothing here');
    expect(
      renderToStaticMarkup(
        <QueryState query={query({ data: [1, 2] })} isEmpty={(d) => d.length === 0}>
          {(d) => `${d.length} items`}
        </QueryState>,
      ),
    ).toBe('2 items');
  });
});
