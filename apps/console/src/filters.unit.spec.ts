import type { Column } from '@tracelight/client';
import { decodeFilters, defaultOperator, describeFilter, encodeFilters, filterOf, listOf, timeRangeFilter } from './filters';

const column = (filter_type: string, over: Partial<Column> = {}): Column => ({
  id: `c_${filter_type}`,
  label: filter_type,
  description: '',
  category: 'standard',
  group_label: 'Standard',
  data_type: 'text',
  filter_type,
  filterable: true,
  sortable: true,
  multi_valued: false,
  is_empty: false,
  is_optional: false,
  applicable_types: [],
  ...over,
});

describe('filters from a column’s filter type', () => {
  it('builds text filters: contains and equality ignore case; lists for one_of', () => {
    const text = column('text');
    expect(defaultOperator(text)).toBe('contains');
    expect(filterOf(text, { columnId: text.id, operator: 'contains', text: 'gpt' })).toEqual({ type: 'text', column_id: 'c_text', operator: 'contains', value: 'gpt', case_sensitive: false });
    expect(filterOf(text, { columnId: text.id, operator: 'one_of', text: 'a, b,,c' })).toEqual({ type: 'text', column_id: 'c_text', operator: 'one_of', value: ['a', 'b', 'c'] });
    expect(filterOf(text, { columnId: text.id, operator: 'eq', text: '' })).toBe('Enter the text to look for');
  });

  it('offers allowed values as a choice list', () => {
    const type = column('text', { allowed_values: ['llm', 'tool'] });
    expect(defaultOperator(type)).toBe('one_of');
    expect(filterOf(type, { columnId: type.id, operator: 'one_of', values: ['tool'] })).toEqual({ type: 'text', column_id: 'c_text', operator: 'one_of', value: ['tool'] });
    expect(filterOf(type, { columnId: type.id, operator: 'one_of', values: [] })).toBe('Choose at least one value');
  });

  it('builds number ranges from either bound or both', () => {
    const n = column('number');
    expect(filterOf(n, { columnId: n.id, operator: 'between', low: '0.2', high: '0.5' })).toEqual({ type: 'number', column_id: 'c_number', operator: 'between', value: [0.2, 0.5] });
    expect(filterOf(n, { columnId: n.id, operator: 'between', low: '3' })).toEqual({ type: 'number', column_id: 'c_number', operator: 'gte', value: 3 });
    expect(filterOf(n, { columnId: n.id, operator: 'between', high: '0' })).toEqual({ type: 'number', column_id: 'c_number', operator: 'lte', value: 0 });
    expect(filterOf(n, { columnId: n.id, operator: 'between', low: 'x' })).toBe('A bound is not a number');
    expect(filterOf(n, { columnId: n.id, operator: 'between' })).toBe('Enter a lower bound, an upper bound or both');
  });

  it('builds date ranges as instants', () => {
    const d = column('date');
    const f = filterOf(d, { columnId: d.id, operator: 'between', low: '2026-01-02T03:04:05' });
    expect(f).toEqual({ type: 'date', column_id: 'c_date', operator: 'gte', value: new Date('2026-01-02T03:04:05').toISOString() });
    expect(filterOf(d, { columnId: d.id, operator: 'between', low: 'nonsense' })).toBe('A bound is not a date');
  });

  it('builds id, collection and boolean filters', () => {
    expect(filterOf(column('id'), { columnId: 'c_id', operator: 'eq', text: 'a' })).toEqual({ type: 'id', column_id: 'c_id', operator: 'eq', value: 'a' });
    expect(filterOf(column('id'), { columnId: 'c_id', operator: 'eq', text: 'a,b' })).toBe('Enter one id, or choose "is one of"');
    expect(filterOf(column('collection'), { columnId: 'c_collection', operator: 'contains', text: 'x, y' })).toEqual({ type: 'collection', column_id: 'c_collection', operator: 'contains', value: ['x', 'y'] });
    expect(filterOf(column('boolean'), { columnId: 'c_boolean', operator: 'eq', flag: false })).toEqual({ type: 'boolean', column_id: 'c_boolean', operator: 'eq', value: false });
    expect(filterOf(column('boolean'), { columnId: 'c_boolean', operator: 'eq' })).toBe('Choose yes or no');
  });

  it('says how an applied filter reads', () => {
    expect(describeFilter({ type: 'number', column_id: 'x', operator: 'between', value: [0.2, 0.5] }, 'Toxicity')).toBe('Toxicity between 0.2 and 0.5');
    expect(describeFilter({ type: 'text', column_id: 'x', operator: 'contains', value: 'gpt' }, 'Model')).toBe('Model contains “gpt”');
    expect(describeFilter({ type: 'collection', column_id: 'x', operator: 'contains', value: ['a', 'b'] }, 'Tags')).toBe('Tags has any of “a”, “b”');
  });

  it('keeps filters in the address and reads back only filters', () => {
    const filters = [{ type: 'text' as const, column_id: 'name', operator: 'eq' as const, value: 'x' }];
    expect(decodeFilters(encodeFilters(filters))).toEqual(filters);
    expect(encodeFilters([])).toBeUndefined();
    expect(decodeFilters('not json')).toEqual([]);
    expect(decodeFilters('[1, {"column_id": "a", "type": "text"}]')).toEqual([{ column_id: 'a', type: 'text' }]);
  });

  it('reads lists and time ranges', () => {
    expect(listOf(' a ,b\nc ,')).toEqual(['a', 'b', 'c']);
    expect(timeRangeFilter('1h', 'created_at', Date.parse('2026-01-01T01:00:00Z'))).toEqual({ type: 'date', column_id: 'created_at', operator: 'gte', value: '2026-01-01T00:00:00.000Z' });
    expect(timeRangeFilter('all', 'created_at', 0)).toBeUndefined();
  });
});
