import { describe, expect, it } from 'vitest';
import { pythonTypeSchema } from '../src/ingest/importers/xlam.js';
import { parsePythonCalls } from '../src/ingest/loose-json.js';

describe('parsePythonCalls (ToolACE-style call text)', () => {
  it('reads names with spaces and dots, Python literals, nested values and quoting', () => {
    expect(
      parsePythonCalls(
        `[Get Weather(city="Oslo, NO", days=3), hut.availability(beds=-2, dates=['2025-07-12', "2025-07-13"], opts={'late': True, 'note': None})]`,
      ),
    ).toEqual([
      { name: 'Get Weather', positional: [], args: { city: 'Oslo, NO', days: 3 } },
      { name: 'hut.availability', positional: [], args: { beds: -2, dates: ['2025-07-12', '2025-07-13'], opts: { late: true, note: null } } },
    ]);
    // A string holding `)`, `=` and `,` is one value; an escaped quote stays in it.
    expect(parsePythonCalls(`f(q='a=b), c', r="say \\"hi\\"")`)).toEqual([{ name: 'f', positional: [], args: { q: 'a=b), c', r: 'say "hi"' } }]);
    expect(parsePythonCalls('[ping()]')).toEqual([{ name: 'ping', positional: [], args: {} }]);
  });

  it('returns positional arguments apart, in order', () => {
    expect(parsePythonCalls(`[sort('report.pdf', True, limit=2)]`)).toEqual([{ name: 'sort', positional: ['report.pdf', true], args: { limit: 2 } }]);
  });

  it('is undefined for what is not a call list', () => {
    for (const text of [
      '[]',
      '[this is not a call]',
      '[f(city=Oslo)]',
      '[f(a=1, 2)]',
      '[f(a=1)',
      'f(a=1) and more',
      '[f(a=1)] trailing',
      '[(a=1)]',
      '[Crampons, an ice axe] are essential',
    ]) {
      expect(parsePythonCalls(text), text).toBeUndefined();
    }
  });
});

describe('pythonTypeSchema (xLAM parameter types)', () => {
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['str', { type: 'string' }, false],
    ['int, optional', { type: 'integer' }, true],
    ['List[int]', { type: 'array', items: { type: 'integer' } }, false],
    ['List[str], optional', { type: 'array', items: { type: 'string' } }, true],
    ['Optional[List[Dict[str, Any]]]', { type: 'array', items: { type: 'object' } }, true],
    ['list(str)', { type: 'array', items: { type: 'string' } }, false],
    ['List[List[int]]', { type: 'array', items: { type: 'array', items: { type: 'integer' } } }, false],
    ['Tuple[int, int]', { type: 'array' }, false],
    ['Union[int, float]', { type: ['integer', 'number'] }, false],
    ['Union[int, Callable]', {}, false],
    ['typing.Dict[str, int]', { type: 'object' }, false],
    ['Callable[[float], float]', {}, false],
    ['Any', {}, false],
    ['', {}, false],
    ['datetime', {}, false],
    ["str, optional, default 'en'", { type: 'string' }, true],
    ['int, default 5', { type: 'integer' }, false],
    ["Literal['asc', 'desc']", { enum: ['asc', 'desc'] }, false],
    ['List[Literal[1, 2]], optional', { type: 'array', items: { enum: [1, 2] } }, true],
  ];
  for (const [text, schema, optional] of cases) {
    it(`${JSON.stringify(text)}`, () => expect(pythonTypeSchema(text)).toEqual({ schema, optional }));
  }
});
